import CancelCore
import Dispatch

/// The guarantee behind the ``PMKFinalizer`` that `catch` returns: it settles once the chain
/// ended, after the handler ran if it had to, and keeps the handler and its options in the same
/// object.
///
/// Like ``MapStage``, it waits in its parent's callbacks as itself
/// (``PromiseCallback/stage(_:_:)``): a `catch` costs the finalizer and this object, with no
/// closure context holding the handler, its options and the finalizer. A handler that runs on a
/// queue costs the dispatched block too, and only for a rejection its policy covers.
@usableFromInline
final class CatchStage<Input: Sendable>: Guarantee<Void>, ParentWaitingStage, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `body` is written by the initializer and taken once by the
  // parent's callback, which the core runs exactly once and only after the registration it follows
  // (so after the initializer, through the parent's lock); `queue`, `flags` and `policy` are
  // immutable. The state inherited from `Guarantee` is guarded by its lock.

  /// The handler, until the parent's callback takes it: released once the chain ended, so that
  /// nothing it captures outlives the run.
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Error) -> Void)?
  /// Where the handler runs; `nil`: on the resolving thread.
  @usableFromInline let queue: DispatchQueue?
  /// The dispatch flags for the handler.
  @usableFromInline let flags: DispatchFlags
  /// Which errors reach the handler.
  @usableFromInline let policy: CatchPolicy

  @inlinable
  init(on queue: DispatchQueue?, flags: DispatchFlags, policy: CatchPolicy, _ body: @escaping @Sendable (Error) -> Void)
  {
    self.body = body
    self.queue = queue
    self.flags = flags
    self.policy = policy
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns the finalizer that ends with it.
  @inlinable
  func attach<Parent: Thenable>(to parent: Parent) -> PMKFinalizer where Parent.T == Input {
    let finalizer = PMKFinalizer(guarantee: self)
    wait(on: parent)
    return finalizer
  }

  /// Called once with the parent's result. Returns whether the caller hands this stage's delivery
  /// back (see `Guarantee.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    // Read and cleared rather than `take()`n: moving a closure through that generic method
    // reabstracts it, which allocates two thunk contexts.
    guard let body else { return false }
    self.body = nil
    guard case .failure(let error) = result, policy.handles(error) else {
      return settle((), handingBackOn: queue)
    }
    guard let handlerQueue = self.queue else {
      body(error)
      return settle((), handingBackOn: queue)
    }
    run(body, with: error, on: handlerQueue)
    return false
  }

  /// Runs `body` with `error` on `queue`, then settles. Apart from ``receive(_:handingBackOn:)``,
  /// so that the block's context is made only on this path.
  @usableFromInline
  func run(_ body: @escaping @Sendable (Error) -> Void, with error: any Error, on queue: DispatchQueue) {
    queue.async(flags) {
      body(error)
      self.settle(())
    }
  }
}
