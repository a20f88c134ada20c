import CancelCore

/// The promise `recover(on: nil)` returns on a ``Promise``: the derived promise, its body and its
/// policy in one object, which waits in its parent's callbacks as itself and then, as itself
/// again, in the callbacks of the promise the body returned (as ``ThenStage`` does for `then`).
///
/// A stage costs one allocation besides what its body returns, instead of the promise and a closure
/// context (and a second one to follow a pending returned promise); a stage that settles inside a
/// delivery hands its own delivery back. (With a queue, `recover` keeps the closures.)
@usableFromInline
final class RecoverStage<U: Thenable>: Promise<U.T>, ParentWaitingStage, FollowingStage, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `body` is written by the initializer and taken once by the
  // parent's callback, which the core runs exactly once and only after the registration it follows
  // (so after the initializer, through the parent's lock); `policy` is immutable. The state
  // inherited from `Promise` is guarded by its lock.
  /// The body, until the parent's callback takes it (nothing it captures outlives the run).
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Error) throws -> U)?
  /// Which errors reach the body.
  @usableFromInline let policy: CatchPolicy

  @inlinable
  init(policy: CatchPolicy, _ body: @escaping @Sendable (Error) throws -> U) {
    self.body = body
    self.policy = policy
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it.
  @inlinable
  func attach<Parent: Thenable>(to parent: Parent) -> Promise<U.T> where Parent.T == U.T {
    wait(on: parent)
    return self
  }

  /// Called once with the parent's result: a fulfilment (or an error the policy does not cover)
  /// passes through; a covered error goes to the body, and the stage settles like what it returns.
  @inlinable
  func receive(_ result: consuming Swift.Result<U.T, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let body = body.take() else { return false }
    let error: any Error
    switch consume result {
    case .failure(let failure) where policy.handles(failure): error = failure
    case let passed: return settle(passed, handingBackOn: queue)
    }
    let returned: U
    do {
      returned = try body(error)
      // Returning the very promise this call returned would wait for itself.
      guard returned !== self else { throw PMKError.returnedSelf }
    } catch {
      return settle(.failure(error), handingBackOn: queue)
    }
    return follow(returned, handingBackOn: queue)
  }
}
