import Dispatch

/// The queue of a chaining method whose body takes on its caller's isolation: ``main``, or by
/// default the queue ``conf`` names.
///
/// The chaining methods that take it (`then`, `map`, `done`, `catch`, … without `on:`, or with
/// `on: .main`) accept a body written in a `@MainActor` class as it is written there:
///
/// ```swift
/// @MainActor final class ViewModel {
///   var label = ""
///   func load() {
///     fetchName().done { self.label = $0 }.catch { _ in self.label = "?" }
///   }
/// }
/// ```
///
/// Such a body runs on the main queue, where the main actor runs, whatever the queue ``conf``
/// names. A body written outside any actor runs on the queue ``conf`` names, as with the methods
/// that take a `DispatchQueue?`; one isolated to another actor runs on that actor, in a task.
/// Pass a `DispatchQueue?` (`on: nil`, `on: .global()`) to run a body that is not isolated to an
/// actor on another queue.
public struct StageQueue: Sendable {
  /// The queue a body not isolated to an actor runs on; `nil` for the resolving thread.
  @usableFromInline let queue: DispatchQueue?

  @inlinable init(_ queue: DispatchQueue?) {
    self.queue = queue
  }

  /// The main queue.
  public static var main: StageQueue { StageQueue(.main) }

  /// ``conf`` `.Q.map`, read when the chaining method is called: the default of `then`, `map`,
  /// `compactMap`, `tap` and `recover`.
  public static var mapDefault: StageQueue { StageQueue(conf.Q.map) }

  /// ``conf`` `.Q.return`, read when the chaining method is called: the default of `done`, `get`,
  /// `catch`, `ensure`, `ensureThen` and `finally`.
  public static var returnDefault: StageQueue { StageQueue(conf.Q.return) }
}

/// How the chaining methods whose body takes on its caller's isolation (an `@isolated(any)`
/// function; see ``StageQueue``) run that body.
///
/// A body isolated to no actor is called synchronously on the stage's queue, one isolated to the
/// main actor synchronously on the main queue (whatever the stage's queue: the main queue is the
/// main actor's executor, on Linux too), both through the methods that take a `DispatchQueue?`.
/// A body isolated to another actor is awaited in a task, which runs it on that actor.
@usableFromInline
enum IsolatedBody {
  /// The queue to call a body with `isolation` on synchronously; `nil` (no queue) for a body
  /// isolated to an actor other than the main actor.
  @inlinable
  static func queue(for isolation: (any Actor)?, on stage: StageQueue) -> DispatchQueue?? {
    guard let actor = isolation else { return .some(stage.queue) }
    return actor === MainActor.shared ? .some(.main) : .none
  }

  // Swift calls a synchronous `@isolated(any)` function only with `await`; the callers above call
  // it only where its isolation holds, through the core's casts (`IsolatedCall`, which says why
  // they are sound).

  /// `body` as the synchronous function it is (see `IsolatedCall`).
  @inlinable
  static func synchronous<Input, Output>(
    _ body: @escaping @Sendable @isolated(any) (Input) throws -> Output
  ) -> @Sendable (Input) throws -> Output {
    IsolatedCall.synchronous(body)
  }

  /// `body` as the synchronous function it is (see `IsolatedCall`).
  @inlinable
  static func synchronous<Input, Output>(
    _ body: @escaping @Sendable @isolated(any) (Input) -> Output
  ) -> @Sendable (Input) -> Output {
    IsolatedCall.synchronous(body)
  }

  /// `body` as the synchronous function it is (see `IsolatedCall`).
  @inlinable
  static func synchronous<Output>(_ body: @escaping @Sendable @isolated(any) () -> Output) -> @Sendable () -> Output {
    IsolatedCall.synchronous(body)
  }

  /// Runs `work` in a task and returns a promise of what it returns or throws.
  @usableFromInline
  static func promise<Output: Sendable>(_ work: @escaping @Sendable () async throws -> Output) -> Promise<Output> {
    let promise = Promise<Output>(pending: ())
    Task {
      do {
        promise.settle(.success(try await work()))
      } catch {
        promise.settle(.failure(error))
      }
    }
    return promise
  }

  /// Runs `body` with `input` on the actor it is isolated to, in a task, unless a cancel of
  /// `chain` has started by the time it would start there (the check runs on that actor, right
  /// before the body): a body of a cancellable chain does not start after `cancel` returned.
  /// Returns a promise of what it returns or throws (the cancel error when it did not start).
  @usableFromInline
  static func promise<Input: Sendable, Output: Sendable>(
    _ body: @escaping @Sendable @isolated(any) (Input) throws -> Output, _ input: Input,
    unlessCancelled chain: ChainState
  ) -> Promise<Output> {
    guard let actor = body.isolation else { preconditionFailure("only for a body isolated to an actor") }
    let call = IsolatedCall.synchronous(body)
    return promise {
      try await run(on: actor) {
        if chain.cancelStarted, let reason = chain.cancelReason { throw reason }
        return try call(input)  // on `actor`, where the body's isolation holds
      }
    }
  }

  /// Runs `work` on `actor`.
  @usableFromInline
  static func run<Output: Sendable>(
    on actor: isolated any Actor, _ work: @Sendable () throws -> Output
  ) throws -> Output {
    try work()
  }

  /// Runs `work` in a task and returns a guarantee of what it returns.
  @usableFromInline
  static func guarantee<Output: Sendable>(_ work: @escaping @Sendable () async -> Output) -> Guarantee<Output> {
    let guarantee = Guarantee<Output>(pending: ())
    Task { guarantee.settle(await work()) }
    return guarantee
  }
}
