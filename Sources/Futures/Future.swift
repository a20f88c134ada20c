/// A value that arrives later: it completes exactly once, with ``FutureResult/success(_:)``,
/// ``FutureResult/fail(_:)`` or ``FutureResult/cancelled``.
///
/// A future is produced by a ``Promise``, by a block (``init(_:block:)``), by a timer
/// (``init(afterDelay:success:)``), or derived from another future with ``onComplete(_:block:)->Future<S>``,
/// ``onSuccess(_:block:)-(_,(T)->S)``, ``map(_:block:)`` and their relatives. Consumers ask for
/// cancellation with ``getCancelToken()``; the request travels to whichever stage is running (see
/// the "Cancellation trees" article).
///
/// Every member is safe from any thread. Blocks never run while a lock of the package is held, so
/// they may complete, register on or cancel any future, including this one.
///
/// The class cannot be subclassed outside this module (derived futures are an internal subclass
/// that carries its block, so a stage costs one allocation).
public class Future<T: Sendable>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `machine` and `control` are read and written only inside
  // `lock.withLock`; values removed from them (callbacks, handlers, upstream links) are released
  // after unlocking, and every callback runs after unlocking.

  let lock = CoreLock()
  @exclusivity(unchecked) var machine: SettleStateMachine<FutureResult<T>, FutureCallback<T>>
  @exclusivity(unchecked) var control = RequestControl<T>()

  /// A pending future (for promises and derived stages).
  init(pending: ()) {
    machine = SettleStateMachine()
  }

  /// A future that has already succeeded with `value`.
  public init(success value: T) {
    machine = SettleStateMachine(settled: .success(value))
  }

  /// A future that has already failed with `error`.
  public init(fail error: any Error) {
    machine = SettleStateMachine(settled: .fail(error))
  }

  /// A future that is already cancelled. Write `Future<Int>(cancelled: ())`.
  public init(cancelled: ()) {
    machine = SettleStateMachine(settled: .cancelled)
  }

  /// A future completed with `result`.
  public init(result: FutureResult<T>) {
    machine = SettleStateMachine(settled: result)
  }

  /// A future whose value `block` computes on `executor`: a thrown error fails it.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs; ``Executor/immediate`` (the default) runs it now, on this
  ///     thread, before the initializer returns.
  ///   - block: the work.
  public convenience init(_ executor: Executor = .immediate, block: @escaping @Sendable () throws -> T) {
    self.init(pending: ())
    executor.resolvedForRegistration.execute { [self] in
      do {
        settle(.success(try block()), detachUpstream: false)
      } catch {
        settle(.fail(error), detachUpstream: false)
      }
    }
  }

  /// The result, once completed; `nil` while pending.
  public final var result: FutureResult<T>? { lock.withLock { machine.value } }

  /// The value, if the future succeeded.
  public final var value: T? { result?.value }

  /// The error, if the future failed.
  public final var error: (any Error)? { result?.error }

  /// Whether the future has completed (in any of the three ways).
  public final var isCompleted: Bool { lock.withLock { machine.isSettled } }

  /// Whether a cancel request has reached this future (see ``Promise/isCancellationRequested``).
  final var isCancellationRequested: Bool { lock.withLock { control.requested != nil } }

  // MARK: - Settling and delivery

  /// Completes with `result` unless already completed.
  ///
  /// Waiting callbacks run on this thread before this returns (nested completions are queued by
  /// `SettleDelivery`, so a long chain completes in constant stack).
  ///
  /// - Parameter detachUpstream: remove this future's callbacks from the futures it was waiting
  ///   on (pass `false` when they already delivered to it).
  /// - Parameter unlessClaimed: fail (and change nothing) if the producer already handed the
  ///   future to another one.
  /// - Returns: whether this call completed the future.
  @discardableResult
  final func settle(_ result: FutureResult<T>, detachUpstream: Bool, unlessClaimed: Bool = false) -> Bool {
    var released = RequestControl<T>()
    let action = lock.withLock { () -> SettleStateMachine<FutureResult<T>, FutureCallback<T>>.SettleAction in
      if unlessClaimed && control.isClaimed { return .alreadySettled }
      let action = machine.settle(result)
      if case .alreadySettled = action { return action }
      if control.hasRequestState {
        swap(&released, &control)
        control.requested = released.requested
      }
      return action
    }
    switch action {
    case .alreadySettled: return false
    case .settled: break
    case .deliver: SettleDelivery.deliver(self)
    }
    if detachUpstream { released.upstream.removeConsumers() }
    return true
  }

  /// Applies a completion: a result settles at once; `completeUsing` binds to the other future.
  ///
  /// - Parameter claim: whether this is the producer's completion, which loses once the producer
  ///   already handed the future to another one (``Completion/completeUsing(_:)``).
  @discardableResult
  final func apply(_ completion: Completion<T>, claim: Bool, detachUpstream: Bool) -> Bool {
    switch completion {
    case .success(let value): return settle(.success(value), detachUpstream: detachUpstream, unlessClaimed: claim)
    case .fail(let error): return settle(.fail(error), detachUpstream: detachUpstream, unlessClaimed: claim)
    case .cancelled: return settle(.cancelled, detachUpstream: detachUpstream, unlessClaimed: claim)
    case .completeUsing(let other): return bind(to: other, claim: claim)
    }
  }

  /// Offers a callback: it waits for the result, or runs now on this thread if the result was
  /// already delivered (then `nil` is returned).
  final func observe(_ callback: FutureCallback<T>) -> RegistrationKey? {
    switch lock.withLock({ machine.observe(callback) }) {
    case .queued(let key): return key
    case .runNow(let callback, let result):
      callback.run(result)
      return nil
    }
  }

  /// Removes a waiting callback (a consumer leaving); it is released after unlocking.
  final func removeConsumer(_ key: RegistrationKey) {
    let removed = lock.withLock { machine.remove(key) }
    _ = removed
  }

  /// Completes this future with whatever `source` ends with; requests made meanwhile are
  /// forwarded to `source`.
  ///
  /// - Returns: `false` if `claim` and the producer had already completed or handed the future
  ///   over, or if `source` is this future.
  final func bind(to source: Future<T>, claim: Bool) -> Bool {
    guard source !== self else { return false }
    if claim {
      let claimed = lock.withLock { () -> Bool in
        guard !machine.isSettled, !control.isClaimed else { return false }
        control.isClaimed = true
        return true
      }
      guard claimed else { return false }
    }
    guard let key = source.observe(.forward(self)) else { return true }
    var replaced = Upstream.none
    let outcome = lock.withLock { () -> (settled: Bool, pending: CancellationOptions?) in
      if machine.isSettled { return (true, nil) }
      replaced = control.upstream
      control.upstream = .one(source, key)
      defer { control.unforwarded = nil }
      return (false, control.unforwarded)
    }
    if outcome.settled {
      source.removeConsumer(key)
    } else if let options = outcome.pending {
      driveRequest(RequestHops(RequestHop(from: self, to: source, key: key, options: options)))
    }
    _ = replaced
    return true
  }
}

extension Future: DeferredDelivery {
  /// Part of `DeferredDelivery`: runs the waiting callbacks, batch by batch, outside the lock.
  package final func deliverCallbacks() {
    while let (batch, result) = lock.withLock({ machine.nextBatch() }) {
      var batch = batch
      while let callback = batch.popOldest() { callback.run(result) }
    }
  }
}

/// Something waiting for a future's result.
enum FutureCallback<T: Sendable>: Sendable {
  /// A derived future's stage.
  case stage(any FutureStage<T>)
  /// A future completing with this one's result (``Completion/completeUsing(_:)``).
  case forward(Future<T>)
  /// An input of a combinator.
  case join(FutureJoin, Int)
  /// Anything else.
  case closure(@Sendable (FutureResult<T>) -> Void)

  func run(_ result: FutureResult<T>) {
    switch self {
    case .stage(let stage): stage.receive(result)
    case .forward(let future): future.settle(result, detachUpstream: false)
    case .join(let join, let index): join.operandCompleted(index, succeeded: result.isSuccess)
    case .closure(let body): body(result)
    }
  }
}

/// A derived future waiting for its parent's result.
protocol FutureStage<Input>: AnyObject, Sendable {
  associatedtype Input: Sendable
  /// Called once with the parent's result, outside any lock.
  func receive(_ result: FutureResult<Input>)
}
