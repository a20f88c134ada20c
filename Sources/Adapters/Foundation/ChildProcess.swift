import CancelCore
import Foundation
import Tokens

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a child process that cancellation really stops.
///
/// This is the facade-neutral engine behind the process adapters of every facade (async,
/// `CancellablePromise`, `Future`, token-driven): it reports exactly once through a completion
/// callback, and a `CancelSignal` stops the child.
///
/// Stopping is two-step: when the signal is cancelled while the child runs, it receives `SIGTERM`
/// at once; if it is still running after `gracePeriod` (2 seconds by default), it receives
/// `SIGKILL`. Either way the child is reaped (no zombie remains) before the completion runs, and
/// the completion receives `.failure(reason)` with the signal's reason, so
/// `Error.isCancellation` is `true` for it. A child that ends on its own first reports
/// `.success` with its output, even if the signal is cancelled a moment later.
///
/// Standard output and standard error are collected in memory; use it for commands whose output
/// fits there.
public enum ChildProcess {
  /// The default delay between `SIGTERM` and `SIGKILL`.
  public static let defaultGracePeriod: Duration = .seconds(2)

  /// Starts `executableURL` and calls `completion` once, when it has ended and been reaped.
  ///
  /// - Parameters:
  ///   - executableURL: the program to run (no `PATH` search; see ``findExecutable(named:)``).
  ///   - arguments: its arguments.
  ///   - environment: its environment; `nil` inherits this process's.
  ///   - currentDirectoryURL: its working directory; `nil` inherits this process's.
  ///   - signal: cancelling it stops the child (`SIGTERM`, then `SIGKILL` after `gracePeriod`).
  ///   - gracePeriod: how long the child may take to exit after `SIGTERM`.
  ///   - scheduler: the timer for the grace period (inject a `ManualDeadlineScheduler` in tests).
  ///   - completion: called exactly once, on a background thread: `.success` with the output if
  ///     the child ended on its own, `.failure` with the cancellation reason if it was stopped,
  ///     or `.failure(ProcessLaunchError)` if it could not start (then no process ever ran).
  /// - Returns: the child's process identifier, or `nil` if it could not start.
  @discardableResult
  public static func run(
    _ executableURL: URL,
    arguments: [String] = [],
    environment: [String: String]? = nil,
    currentDirectoryURL: URL? = nil,
    signal: CancelSignal = .never,
    gracePeriod: Duration = defaultGracePeriod,
    scheduler: some DeadlineScheduler = .dispatch,
    completion: @escaping @Sendable (Result<ProcessOutput, any Error>) -> Void
  ) -> Int32? {
    let child = RunningChild(executableURL: executableURL)
    child.process.arguments = arguments
    child.process.environment = environment
    child.process.currentDirectoryURL = currentDirectoryURL
    if signal.isCancelled, let reason = signal.reason {
      completion(.failure(reason))
      return nil
    }
    do {
      try child.start()
    } catch {
      completion(.failure(ProcessLaunchError(executableURL: executableURL, underlying: error)))
      return nil
    }
    let stop = signal.onCancel { (reason: any Error) in
      child.stop(reason: reason, gracePeriod: gracePeriod, scheduler: scheduler)
    }
    child.finished.observe { result in
      stop.unregister()
      completion(result)
    }
    return child.processIdentifier
  }

  /// A child process run that every facade can start: `try await …run()`, `.promise()`,
  /// `.future()`, `.start(token:completion:)`.
  ///
  /// Each start launches a new child with these arguments; the stopping rules are those of
  /// ``run(_:arguments:environment:currentDirectoryURL:signal:gracePeriod:scheduler:completion:)``.
  ///
  /// - Parameters:
  ///   - executableURL: the program to run (no `PATH` search; see ``findExecutable(named:)``).
  ///   - arguments: its arguments.
  ///   - environment: its environment; `nil` inherits this process's.
  ///   - currentDirectoryURL: its working directory; `nil` inherits this process's.
  ///   - gracePeriod: how long the child may take to exit after `SIGTERM`.
  ///   - scheduler: the timer for the grace period.
  /// - Returns: the run, not started.
  public static func work(
    _ executableURL: URL,
    arguments: [String] = [],
    environment: [String: String]? = nil,
    currentDirectoryURL: URL? = nil,
    gracePeriod: Duration = defaultGracePeriod,
    scheduler: some DeadlineScheduler = .dispatch
  ) -> CancellableWork<ProcessOutput> {
    CancellableWork { signal, completion in
      run(
        executableURL, arguments: arguments, environment: environment, currentDirectoryURL: currentDirectoryURL,
        signal: signal, gracePeriod: gracePeriod, scheduler: scheduler, completion: completion)
    }
  }

  /// Runs a child process to its end and returns its output; cancelling the current task stops
  /// the child (`SIGTERM`, then `SIGKILL` after `gracePeriod`).
  ///
  /// - Parameters:
  ///   - executableURL: the program to run (no `PATH` search; see ``findExecutable(named:)``).
  ///   - arguments: its arguments.
  ///   - environment: its environment; `nil` inherits this process's.
  ///   - currentDirectoryURL: its working directory; `nil` inherits this process's.
  ///   - gracePeriod: how long the child may take to exit after `SIGTERM`.
  /// - Returns: the output of a child that ended on its own (whatever its exit status).
  /// - Throws: `CancellationError()` when the task's cancellation stopped the child, or
  ///   ``ProcessLaunchError`` when it could not start.
  public static func run(
    _ executableURL: URL,
    arguments: [String] = [],
    environment: [String: String]? = nil,
    currentDirectoryURL: URL? = nil,
    gracePeriod: Duration = defaultGracePeriod
  ) async throws -> ProcessOutput {
    try await work(
      executableURL, arguments: arguments, environment: environment, currentDirectoryURL: currentDirectoryURL,
      gracePeriod: gracePeriod
    ).run()
  }

  /// Starts a child process that `token` stops, and calls `completion` once when it has ended.
  ///
  /// The token form of
  /// ``run(_:arguments:environment:currentDirectoryURL:signal:gracePeriod:scheduler:completion:)``;
  /// same rules, with the token's reason as the outcome of a stopped child.
  ///
  /// - Returns: the child's process identifier, or `nil` if it could not start.
  @discardableResult
  public static func run(
    _ executableURL: URL,
    arguments: [String] = [],
    environment: [String: String]? = nil,
    currentDirectoryURL: URL? = nil,
    token: CancellationToken,
    gracePeriod: Duration = defaultGracePeriod,
    completion: @escaping @Sendable (Result<ProcessOutput, any Error>) -> Void
  ) -> Int32? {
    run(
      executableURL, arguments: arguments, environment: environment, currentDirectoryURL: currentDirectoryURL,
      signal: token.signal, gracePeriod: gracePeriod, completion: completion)
  }

  /// Looks `name` up in `PATH` the way a shell would; `nil` if no executable file matches.
  public static func findExecutable(named name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }
}

/// One running child: the `Process`, its output collectors and its outcome.
//
// Safety of `@unchecked Sendable`: `process` is configured before `start()` on the starting
// thread and afterwards only asked `isRunning`/`processIdentifier`/`terminate()`, which
// Foundation's `Process` synchronizes internally. All cross-thread state lives in core
// `SettleCell`s (the outcome, the collected output, whether we stopped it).
private final class RunningChild: @unchecked Sendable {
  let process = Process()
  let executableURL: URL
  /// Settled once the child has exited and been reaped, and both pipes reached end of file.
  let finished = SettleCell<Result<ProcessOutput, any Error>>()
  /// Settled with the reason when cancellation stopped the child.
  private let stoppedBecause = SettleCell<any Error>()
  private let exited = SettleCell<ProcessOutput.Termination>()
  private let standardOutput = SettleCell<Data>()
  private let standardError = SettleCell<Data>()
  private(set) var processIdentifier: Int32 = 0

  init(executableURL: URL) {
    self.executableURL = executableURL
    process.executableURL = executableURL
  }

  func start() throws {
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    process.terminationHandler = { [exited] process in
      // Foundation calls this after it has reaped the child.
      switch process.terminationReason {
      case .exit: exited.settle(.exited(process.terminationStatus))
      case .uncaughtSignal: exited.settle(.uncaughtSignal(process.terminationStatus))
      @unknown default: exited.settle(.exited(process.terminationStatus))
      }
    }
    try Self.withEmptySignalMask { try process.run() }
    processIdentifier = process.processIdentifier
    Self.collect(output.fileHandleForReading, into: standardOutput)
    Self.collect(errors.fileHandleForReading, into: standardError)
    let pid = processIdentifier
    // The cells, not `self`: `self` holds the process, whose termination handler (never cleared by
    // Linux Foundation) holds `exited`, so a callback on `exited` holding `self` would keep the
    // whole child alive for ever if the process were never reported (the leak check found such a
    // cycle).
    exited.observe { [standardOutput, standardError, stoppedBecause, finished] termination in
      standardOutput.observe { [standardError, stoppedBecause, finished] out in
        standardError.observe { [stoppedBecause, finished] err in
          if let reason = stoppedBecause.value {
            finished.settle(.failure(reason))
          } else {
            finished.settle(
              .success(
                ProcessOutput(processIdentifier: pid, termination: termination, standardOutput: out, standardError: err)
              ))
          }
        }
      }
    }
  }

  /// Cancellation: `SIGTERM` now, `SIGKILL` after the grace period if the child still runs.
  func stop(reason: any Error, gracePeriod: Duration, scheduler: some DeadlineScheduler) {
    guard exited.value == nil, stoppedBecause.settle(reason) else { return }
    process.terminate()
    let pid = processIdentifier
    let escalation = scheduler.schedule(after: gracePeriod) { [exited] in
      // While `exited` is unsettled Foundation has not reported the child reaped, so `pid` is
      // still ours (in the microseconds between the kernel reaping it and Foundation reporting it,
      // the pid could only be reused if the pid space wrapped around in that instant).
      if exited.value == nil { _ = kill(pid, SIGKILL) }
    }
    exited.observe { _ in escalation.cancel() }
  }

  /// Runs `body` with every signal unblocked on this thread, then restores the thread's mask.
  ///
  /// On Linux, Foundation's `Process` hands the launching thread's signal mask to the child, and
  /// Dispatch and Swift-concurrency worker threads block most signals: a child launched from one
  /// of them starts with `SIGTERM` blocked and ignores `terminate()` (we measured a `sleep 30`
  /// surviving it). Launching with an empty mask gives the child the default a shell would. For
  /// the millisecond of the launch this thread can receive process-directed signals, which only
  /// matters to a program that blocks a signal in every thread to `sigwait` for it.
  private static func withEmptySignalMask<T>(_ body: () throws -> T) rethrows -> T {
    #if os(Linux)
      var empty = sigset_t()
      var previous = sigset_t()
      sigemptyset(&empty)
      pthread_sigmask(SIG_SETMASK, &empty, &previous)
      defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    #endif
    return try body()
  }

  /// Reads `handle` to end of file on a thread of its own (pipes must be drained while the child
  /// runs, or a chatty child blocks on a full pipe).
  ///
  /// The read blocks for as long as the child runs, so it must not borrow a Dispatch worker: on
  /// Linux the global queues have about one worker per core, and a few long-running children
  /// would starve every other `DispatchQueue.global()` client (Foundation's own termination
  /// report included), delaying cancellation by seconds.
  private static func collect(_ handle: FileHandle, into cell: SettleCell<Data>) {
    let reader = Thread {
      let data = (try? handle.readToEnd()) ?? Data()
      try? handle.close()
      cell.settle(data)
    }
    reader.name = "ChildProcess output reader"
    reader.stackSize = 64 * 1024
    reader.start()
  }
}
