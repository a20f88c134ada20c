#if os(macOS) || os(Linux)
  import CancelCore
  import Foundation
  import Subprocess
  import Tokens

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Darwin)
    import Darwin
  #endif
  #if canImport(System)
    import System
  #else
    import SystemPackage
  #endif

  /// Runs a child process that cancellation really stops, with every process it started.
  ///
  /// This is the facade-neutral engine behind the process adapters of every facade (async,
  /// `CancellablePromise`, `Future`, token-driven): it reports exactly once through a completion
  /// callback, and a `CancelSignal` stops the child. It launches, watches and reaps the child with
  /// swift-subprocess (`Subprocess`).
  ///
  /// The child starts in a **process group of its own**, so stopping reaches the whole tree a shell,
  /// `make` or `npm` starts beneath it. Stopping is two-step: when the signal is cancelled while the
  /// child runs, the group receives `SIGTERM` at once; after `gracePeriod` (2 seconds by default)
  /// whatever is left of the group receives `SIGKILL`. The completion runs once the child has exited
  /// and been reaped (no zombie of ours remains), with `.failure(reason)` — the signal's reason, so
  /// `Error.isCancellation` is `true` for it. A child that ends on its own first reports `.success`
  /// with its output, even if the signal is cancelled a moment later.
  ///
  /// Output is read until the child exits: a process it left running in the background that still
  /// holds the output pipes does not keep the run waiting. Standard output and standard error are
  /// collected in memory; use it for commands whose output fits there.
  ///
  /// A group is signalled by its number, the child's process identifier. That number stays the
  /// group's while any process of the group exists; once all are gone the system could, after
  /// wrapping around its whole pid space within the grace period, hand it to a new group, and the
  /// pending `SIGKILL` would reach that group. The engine cancels the `SIGKILL` when it finds the
  /// group gone as the child is reaped, which leaves that window only to groups whose other members
  /// outlive the child.
  public enum ChildProcess {
    /// The default delay between `SIGTERM` and `SIGKILL`.
    public static let defaultGracePeriod: Duration = .seconds(2)

    /// Starts `executableURL` in a process group of its own and calls `completion` once, when it has
    /// ended and been reaped.
    ///
    /// - Parameters:
    ///   - executableURL: the program to run (no `PATH` search; see ``findExecutable(named:)``).
    ///   - arguments: its arguments.
    ///   - environment: its environment; `nil` inherits this process's.
    ///   - currentDirectoryURL: its working directory; `nil` inherits this process's.
    ///   - signal: cancelling it stops the child's whole process group (`SIGTERM`, then `SIGKILL`
    ///     after `gracePeriod`). By default the current token's signal (`CancellationToken.current`,
    ///     read when the call is made), or `.never` outside any scope.
    ///   - gracePeriod: how long the group may take to exit after `SIGTERM`.
    ///   - scheduler: the timer for the grace period (inject a `ManualDeadlineScheduler` in tests).
    ///   - launched: called once, on a background thread, with the child's process identifier
    ///     (which also numbers its process group) as soon as it runs, before `completion`; never if
    ///     it could not start. The child may already have run for a moment by then. A cancel made
    ///     once it was called sends `SIGTERM` (and schedules the `SIGKILL`) before `cancel()`
    ///     returns.
    ///   - completion: called exactly once, on a background thread: `.success` with the output if
    ///     the child ended on its own, `.failure` with the cancellation reason if it was stopped,
    ///     or `.failure(ProcessLaunchError)` if it could not start (then no process ever ran).
    public static func run(
      _ executableURL: URL,
      arguments: [String] = [],
      environment: [String: String]? = nil,
      currentDirectoryURL: URL? = nil,
      signal: CancelSignal = CancellationToken.current?.signal ?? .never,
      gracePeriod: Duration = defaultGracePeriod,
      scheduler: some DeadlineScheduler = .dispatch,
      launched: @escaping @Sendable (_ processIdentifier: Int32) -> Void = { _ in },
      completion: @escaping @Sendable (Swift.Result<ProcessOutput, any Error>) -> Void
    ) {
      if signal.isCancelled, let reason = signal.reason {
        completion(.failure(reason))
        return
      }
      let group = ChildGroup()
      let stop = signal.onCancel { (reason: any Error) in
        group.stop(reason: reason, gracePeriod: gracePeriod, scheduler: scheduler)
      }
      let command = Command(
        executableURL: executableURL, arguments: arguments, environment: environment,
        currentDirectoryURL: currentDirectoryURL)
      // A task of its own, never cancelled: stopping is the group's signals, not Subprocess's
      // teardown, so the grace period follows the injected scheduler.
      Task {
        let result = await group.run(command, launched: launched)
        stop.unregister()
        completion(result)
      }
    }

    /// A child process run that every facade can start: `try await …run()`, `.promise()`,
    /// `.future()`, `.start(token:completion:)`.
    ///
    /// Each start launches a new child with these arguments; the stopping rules are those of
    /// ``run(_:arguments:environment:currentDirectoryURL:signal:gracePeriod:scheduler:launched:completion:)``.
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
    /// the child and every process it started (its process group: `SIGTERM`, then `SIGKILL` after
    /// `gracePeriod`).
    ///
    /// - Parameters:
    ///   - executableURL: the program to run (no `PATH` search; see ``findExecutable(named:)``).
    ///   - arguments: its arguments.
    ///   - environment: its environment; `nil` inherits this process's.
    ///   - currentDirectoryURL: its working directory; `nil` inherits this process's.
    ///   - gracePeriod: how long the child's group may take to exit after `SIGTERM`.
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
    /// ``run(_:arguments:environment:currentDirectoryURL:signal:gracePeriod:scheduler:launched:completion:)``;
    /// same rules, with the token's reason as the outcome of a stopped child.
    ///
    /// - Parameters:
    ///   - executableURL: the program to run (no `PATH` search; see ``findExecutable(named:)``).
    ///   - arguments: its arguments.
    ///   - environment: its environment; `nil` inherits this process's.
    ///   - currentDirectoryURL: its working directory; `nil` inherits this process's.
    ///   - token: cancelling it stops the child's whole process group.
    ///   - gracePeriod: how long the group may take to exit after `SIGTERM`.
    ///   - launched: called once, on a background thread, with the child's process identifier as
    ///     soon as it runs.
    ///   - completion: called exactly once with the outcome.
    public static func run(
      _ executableURL: URL,
      arguments: [String] = [],
      environment: [String: String]? = nil,
      currentDirectoryURL: URL? = nil,
      token: CancellationToken,
      gracePeriod: Duration = defaultGracePeriod,
      launched: @escaping @Sendable (_ processIdentifier: Int32) -> Void = { _ in },
      completion: @escaping @Sendable (Swift.Result<ProcessOutput, any Error>) -> Void
    ) {
      run(
        executableURL, arguments: arguments, environment: environment, currentDirectoryURL: currentDirectoryURL,
        signal: token.signal, gracePeriod: gracePeriod, launched: launched, completion: completion)
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

  /// What to launch.
  private struct Command: Sendable {
    let executableURL: URL
    let arguments: [String]
    let environment: [String: String]?
    let currentDirectoryURL: URL?
  }

  /// One child and its process group: launched by Subprocess, stopped by signals to the group.
  ///
  /// Every piece of state that threads share is a core `SettleCell`, settled once: the group's
  /// number once the child runs, the reason once cancellation stopped it, and the child's reaping.
  /// Whichever of "launched" and "stopped" comes second sends the signals, exactly once.
  private final class ChildGroup: Sendable {
    /// The process group (the child's pid), once the child runs.
    private let group = SettleCell<pid_t>()
    /// The reason, once cancellation stopped the child.
    private let stoppedBecause = SettleCell<any Error>()
    /// Settled once Subprocess has reaped the child.
    private let reaped = SettleCell<Void>()

    /// Launches the command, waits for it to end and be reaped, and returns its outcome.
    func run(_ command: Command, launched: @Sendable (Int32) -> Void) async -> Swift.Result<ProcessOutput, any Error> {
      if let reason = stoppedBecause.value { return .failure(reason) }  // stopped before it started
      var options = PlatformOptions()
      options.processGroupID = 0  // a group of its own, numbered by the child's pid
      do {
        let result = try await Subprocess.run(
          .path(FilePath(command.executableURL.path)),
          arguments: Arguments(command.arguments),
          environment: command.environment.map { .custom(Self.keys($0)) } ?? .inherit,
          workingDirectory: command.currentDirectoryURL.map { FilePath($0.path) },
          platformOptions: options,
          input: .none,
          output: .data(limit: .max),
          error: .data(limit: .max)
        ) { execution in
          let pid = execution.processIdentifier.value
          // The group first: a cancel made once `launched` has reported the child then signals it
          // before `cancel()` returns (and schedules the escalation), instead of whenever this
          // thread gets here.
          group.settle(pid)
          launched(pid)
        }
        reaped.settle(())
        if let reason = stoppedBecause.value { return .failure(reason) }
        return .success(
          ProcessOutput(
            processIdentifier: result.processIdentifier.value, termination: Self.termination(result.terminationStatus),
            standardOutput: result.standardOutput, standardError: result.standardError))
      } catch {
        reaped.settle(())
        guard group.value != nil else {
          return .failure(ProcessLaunchError(executableURL: command.executableURL, underlying: error))
        }
        return .failure(stoppedBecause.value ?? error)
      }
    }

    /// Cancellation: `SIGTERM` to the group now (or as soon as the child runs), `SIGKILL` to what is
    /// left of it after the grace period.
    func stop(reason: any Error, gracePeriod: Duration, scheduler: some DeadlineScheduler) {
      guard reaped.value == nil, stoppedBecause.settle(reason) else { return }
      group.observe { [reaped] group in
        guard reaped.value == nil else { return }
        _ = kill(-group, SIGTERM)
        let escalation = scheduler.schedule(after: gracePeriod) {
          _ = kill(-group, SIGKILL)  // every process of the group that outlived SIGTERM
        }
        reaped.observe { _ in
          // The child is reaped; if nothing else of its group exists, nothing is left to kill (and
          // the group's number is no longer reserved for it).
          if kill(-group, 0) == -1 && errno == ESRCH { escalation.cancel() }
        }
      }
    }

    private static func keys(_ environment: [String: String]) -> [Environment.Key: String] {
      Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), $0.value) })
    }

    private static func termination(_ status: TerminationStatus) -> ProcessOutput.Termination {
      switch status {
      case .exited(let code): return .exited(Int32(code))
      case .signaled(let signal): return .uncaughtSignal(Int32(signal))
      }
    }
  }
#endif
