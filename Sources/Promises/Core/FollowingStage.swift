import CancelCore

/// A stage promise that settles like a thenable its body returned (`then`'s ``ThenStage``,
/// `recover`'s ``RecoverStage``): it waits on a returned ``Promise`` as itself.
@usableFromInline
protocol FollowingStage: AnyObject, Sendable {}

extension FollowingStage {
  /// Settles like `returned`: at once if it is a promise that already settled (and delivered),
  /// else when it settles, waiting in its callbacks as this stage. Returns whether the caller
  /// hands this stage's delivery back (see `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func follow<Value, Returned: Thenable>(_ returned: Returned, handingBackOn queue: ThreadDeliveryQueue?) -> Bool
  where Self: Promise<Value>, Returned.T == Value {
    // (The cast folds away where this is specialized.)
    guard let promise = returned as? Promise<Value> else {
      returned.pipe { [self] result in self.settle(result) }
      return false
    }
    if let settled = promise.resultForCallbackNow { return self.settle(settled, handingBackOn: queue) }
    promise.observe(
      .stage(self) { stage, result, queue in
        let stage = unsafeDowncast(consume stage, to: Self.self)
        guard stage.settle(consume result, handingBackOn: queue) else { return nil }
        return Promise<Value>.readyDelivery(of: stage)
      })
    return false
  }
}
