import Foundation

/// What a child process left behind when it ended on its own.
public struct ProcessOutput: Sendable, Equatable {
  /// How a process ended.
  public enum Termination: Sendable, Equatable {
    /// It exited with this status code.
    case exited(Int32)
    /// A signal it did not handle ended it (for example `SIGSEGV`, or a `SIGKILL` sent by someone
    /// else).
    case uncaughtSignal(Int32)
  }

  /// The child's process identifier, while it ran.
  public let processIdentifier: Int32
  /// How the child ended.
  public let termination: Termination
  /// Everything the child wrote to its standard output.
  public let standardOutput: Data
  /// Everything the child wrote to its standard error.
  public let standardError: Data

  /// Creates an output record.
  public init(processIdentifier: Int32, termination: Termination, standardOutput: Data, standardError: Data) {
    self.processIdentifier = processIdentifier
    self.termination = termination
    self.standardOutput = standardOutput
    self.standardError = standardError
  }

  /// Whether the child exited with status 0.
  public var succeeded: Bool { termination == .exited(0) }

  /// The standard output decoded as UTF-8 (invalid bytes replaced).
  public var standardOutputText: String { String(decoding: standardOutput, as: UTF8.self) }
}

/// A child process could not be started.
public struct ProcessLaunchError: Error, CustomStringConvertible {
  /// The executable that was asked for.
  public let executableURL: URL
  /// What the system said.
  public let underlying: any Error

  /// Creates the error.
  public init(executableURL: URL, underlying: any Error) {
    self.executableURL = executableURL
    self.underlying = underlying
  }

  /// A sentence naming the executable and the cause.
  public var description: String { "could not launch \(executableURL.path): \(underlying)" }
}
