import CancelCore
import Tokens

/// A piece of work that cancellation really stops, not yet started, that every facade can run.
///
/// Each Foundation adapter of this module (child processes, `URLSession` transfers, Dispatch
/// timers and work items, `Operation`s, `NotificationCenter` observations) is written once, as an
/// engine that takes a `CancelSignal` and reports its end exactly once. A `CancellableWork` holds
/// such an engine with its arguments, and starts it in the style of the caller's facade:
///
/// | You write | You get |
/// | --- | --- |
/// | `try await work.run()` | an async call; cancelling the task stops the work |
/// | `work.start(token: token) { result in … }` | a callback; cancelling the token stops the work |
/// | `work.start(signal: signal) { result in … }` | the same on a core `CancelSignal` |
/// | `work.promise()` | a `CancellablePromise`; `cancel()` stops the work |
/// | `work.future()` | a `Future`; a cancel request stops the work |
///
/// Every way of running it keeps the same promises: the work reports **exactly once**; when it
/// was stopped by cancellation the outcome is the cancellation reason (`CancellationError()` by
/// default), never the unrelated error the stopped work produced, so `Error.isCancellation` tells
/// a cancellation from a failure; and work that had already finished keeps its result.
///
/// A value of this type is only a description: each `run()`, `start` or conversion starts the
/// work anew.
public struct CancellableWork<Value: Sendable>: Sendable {
  /// What an engine calls, once, when the work has ended.
  public typealias Completion = @Sendable (Swift.Result<Value, any Error>) -> Void

  /// The engine: starts the work, stops it when the signal is cancelled, reports once.
  @usableFromInline let engine: @Sendable (CancelSignal, @escaping Completion) -> Void

  /// Wraps an engine.
  ///
  /// The engine must start the work, stop it when `signal` is cancelled, and call `completion`
  /// exactly once — with `.failure(reason)` (the signal's reason) when cancellation stopped it, at
  /// once if `signal` is already cancelled. The adapters of this module are written this way; use
  /// this initializer to make your own work runnable by every facade.
  ///
  /// An engine that calls `completion` more than once breaks that contract, and the ways of running
  /// it then differ: `promise()` and `future()` keep the first outcome, `start` passes every call
  /// on to its `completion`, and `run()` stops the program (Swift's checked continuation reports
  /// "tried to resume its continuation more than once").
  ///
  /// - Parameter engine: starts the work on a signal and reports its end once.
  public init(_ engine: @escaping @Sendable (_ signal: CancelSignal, _ completion: @escaping Completion) -> Void) {
    self.engine = engine
  }

  /// Starts the work; cancelling `signal` stops it.
  ///
  /// Without a `signal`, the work is stopped by the current token
  /// (`CancellationToken.current`, read when the call is made) and carries its deadline; outside
  /// any scope it runs to its end.
  ///
  /// - Parameters:
  ///   - signal: stops the work when cancelled; `.never` to run it to its end. By default, the
  ///     current token's signal, or `.never` outside any scope.
  ///   - completion: called exactly once with the outcome; the thread depends on the work (each
  ///     adapter documents it).
  @inlinable public func start(
    signal: CancelSignal = CancellationToken.current?.signal ?? .never, completion: @escaping Completion
  ) {
    engine(signal, completion)
  }

  /// Starts the work; cancelling `token` stops it.
  ///
  /// - Parameters:
  ///   - token: stops the work when cancelled; its reason becomes the outcome.
  ///   - completion: called exactly once with the outcome.
  @inlinable public func start(token: CancellationToken, completion: @escaping Completion) {
    engine(token.signal, completion)
  }

  /// Runs the work and returns its value; cancelling the current task, or the current token,
  /// stops it.
  ///
  /// Inside a scope (`withCancellationToken(_:operation:)`, `CancellationToken.withCurrent(_:operation:)`)
  /// this is ``run(token:)`` with `CancellationToken.current`: the work is stopped with the token's
  /// reason and carries its deadline. Outside any scope only the task's cancellation stops it.
  ///
  /// If the task or the current token is already cancelled, the work does not start and this
  /// throws at once.
  ///
  /// - Returns: the work's value.
  /// - Throws: the current token's reason when it stopped the work, `CancellationError()` when the
  ///   task's cancellation did, or the work's own error.
  public func run() async throws -> Value {
    if let token = CancellationToken.current { return try await run(token: token) }
    return try await run(stoppedBy: CancelSource())
  }

  /// Runs the work and returns its value; cancelling the current task or `token` stops it.
  ///
  /// - Parameter token: stops the work when cancelled; its reason is what this throws.
  /// - Returns: the work's value.
  /// - Throws: the token's reason, `CancellationError()` when the task's cancellation stopped the
  ///   work, or the work's own error.
  public func run(token: CancellationToken) async throws -> Value {
    do {
      return try await run(stoppedBy: CancelSource(linkedTo: token.signal))
    } catch {
      // The token may also have cancelled the task (inside `withCancellationToken`), and which of
      // the two stopped the work first is not ordered: the token's reason is the outcome either way.
      if error is CancellationError, let reason = token.reason { throw reason }
      throw error
    }
  }

  /// Runs the work on `stop`'s signal, cancelling `stop` when the current task is cancelled.
  private func run(stoppedBy stop: CancelSource) async throws -> Value {
    defer { stop.close() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        engine(stop.signal) { continuation.resume(with: $0) }
      }
    } onCancel: {
      // Runs under the task's status lock: it only flips the source, and the engines' stop
      // handlers only start stopping the work (they never wait for it).
      stop.cancel()
    }
  }
}
