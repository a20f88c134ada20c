import CancelCore

/// The cancellation state shared by every member of one cancellable chain.
///
/// Every ``CancellablePromise`` made from another by chaining (`then`, `map`, `done`, `catch`,
/// and the rest) shares its context, so ``cancel(error:)`` on any member, on the context itself,
/// or on the finalizer `catch` returns cancels the whole chain:
///
/// - every member still pending is rejected with the error (``PMKError/cancelled`` by default),
///   **synchronously**, before `cancel` returns — including a stage whose body is running right
///   now (its eventual value or error is then ignored: the first resolution wins);
/// - every registered ``CancellableTask`` has its `cancel()` called exactly once, before the
///   members are rejected (oldest member first, so a chain's handlers see it in chain order);
/// - no body of the chain **starts** after `cancel` returned (`ensure` and `finally` bodies, and
///   `catch`/`recover` bodies that handle the error, still run: they are how a cancelled chain
///   ends);
/// - sub-chains that bodies returned, and the inputs of the combinators built without
///   `autoCancel:`, are linked to the context, so the cancel reaches them too.
///
/// Cancelling twice changes nothing: the first error stays. The context is built on the core's
/// cancellation source: cancel handlers run on the cancelling thread, never under a lock.
///
/// While the context lives, every pending member of its chain waits in it (so a cancel reaches
/// it). The context lives as long as something that can cancel it does: a member, a finalizer or
/// the context itself held by your code, or a chain it is linked into. Once none is left, nobody
/// can cancel the chain any more: the context goes away and lets go of its pending members, and
/// a pending chain nobody can reach is freed (one still reachable, through a resolver for
/// example, runs on as a chain that can no longer be cancelled).
public final class CancelContext: Cancellable, Sendable {
  /// The core source whose cancellation is the chain's cancellation.
  @usableFromInline let source = CancelStorage()

  @usableFromInline init() {}

  /// A context for a branch that continues from `upstream` (after `recover`): cancelling the
  /// branch also cancels `upstream`, but cancelling `upstream` leaves the branch to the recover.
  init(branchOf upstream: CancelContext) {
    chain.append(upstream)
  }

  /// A context goes away once nothing that could cancel it is left (see the type's notes): its
  /// source then completes without cancellation. Observers of ``signal`` (a token made from the
  /// context) complete as not cancelled, the handlers still registered (tasks) are released, and
  /// so are the members still pending, which frees whatever of the chain nobody else holds.
  deinit {
    _ = source.close()
  }

  /// What the chain's stages use of it: the same source, without keeping this context alive.
  @inlinable var chain: ChainState { ChainState(source: source) }

  /// Cancels the chain with ``PMKError/cancelled``. See ``cancel(error:)``.
  public func cancel() {
    cancel(error: Self.defaultError)
  }

  /// ``PMKError/cancelled`` boxed once: every `cancel()` would otherwise allocate a box for it.
  static let defaultError: any Error = PMKError.cancelled

  /// Cancels the chain with `error`: every pending member is rejected with it, synchronously, and
  /// every registered task is cancelled once. Does nothing if the chain was already cancelled.
  ///
  /// - Parameter error: the rejection error (the first one given wins).
  public func cancel(error: Error) {
    _ = source.cancel(reason: error)
  }

  /// PromiseKit 7's other spelling of ``cancel(error:)``.
  ///
  /// - Parameter error: the rejection error.
  public func cancel(with error: Error) {
    cancel(error: error)
  }

  /// The chain's cancellation as a core signal: cancelled, with ``cancelledError``, when the
  /// chain is cancelled. Hand it to code written against `CancelCore` (or wrap it in a token).
  public var signal: CancelSignal { CancelSignal(storage: source) }

  /// Whether a cancel rejected at least one member. `false` on a chain that finished before it was
  /// cancelled (unlike PromiseKit 7, which reports `true`).
  public var isCancelled: Bool { source.isMarked }

  /// Whether ``cancel(error:)`` was called (even if the chain had already finished).
  @inlinable public var cancelAttempted: Bool { source.isCancelled }

  /// Whether the chain was cancelled with the error `error` identifies (that very error object).
  /// Lock-free: a stage passing a cancel down the chain checks that the error it was handed is the
  /// cancel error before keeping it.
  @inlinable func isCancelled(by error: ErrorIdentity) -> Bool { source.isCancelled(by: error) }

  /// The error the chain was cancelled with (the first one), or `nil`.
  public var cancelledError: Error? { source.reason }

  // MARK: Members, tasks, links

  /// Makes `promise` a member: a cancel rejects it while it is pending. It leaves the context as
  /// soon as it settles, so a long-lived context stays small.
  @inlinable
  func adopt<T>(_ promise: Promise<T>) {
    let member = ChainMember(promise, source: source)
    if source.addMember(member) { promise.attachMember(member) }
  }

  /// See ``ChainState/settle(_:with:)``.
  @inlinable
  func settle<T>(_ promise: Promise<T>, with result: Result<T, Error>) {
    chain.settle(promise, with: result)
  }

  /// See ``ChainState/reject(_:cancelledWith:)``.
  @inlinable @discardableResult
  func reject<T>(_ promise: Promise<T>, cancelledWith reason: any Error) -> Bool {
    chain.reject(promise, cancelledWith: reason)
  }

  /// Calls `task.cancel()` (once) and `reject` when the chain is cancelled; at once if it already
  /// was.
  func append(task: (any CancellableTask)?, reject: (@Sendable (Error) -> Void)?) {
    guard task != nil || reject != nil else { return }
    _ = source.register(
      .onCancelWithReason { reason in
        task?.cancel()
        reject?(reason)
      })
  }

  /// Links `other` so that cancelling this context cancels it too (with the same error).
  func append(_ other: CancelContext) {
    chain.append(other)
  }
}
