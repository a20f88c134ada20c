import CancelCore

/// A stage object that waits for a thenable's result and receives it (`map`'s ``MapStage``,
/// `then`'s ``ThenStage``, `recover`'s ``RecoverStage``, `ensure`'s and `tap`'s
/// ``PassThroughStage``, `catch`'s ``CatchStage``): the one way such a stage waits on its parent.
@usableFromInline
protocol ParentWaitingStage: SettleHost {
  /// The parent's value.
  associatedtype Input: Sendable

  /// Called once with the parent's result, on the resolving thread. Returns whether the caller
  /// hands this stage's delivery back (see `Promise.settle(_:handingBackOn:)`).
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool
}

extension ParentWaitingStage {
  /// Waits on `parent`: in a ``Promise``'s callbacks as this stage itself
  /// (``PromiseCallback/stage(_:_:)``: no closure context, and a stage that settles hands its
  /// delivery back), on any other thenable through its `pipe`.
  @inlinable
  func wait<Parent: Thenable>(on parent: Parent) where Parent.T == Input {
    // (The cast folds away where this is specialized.)
    guard let promise = parent as? Promise<Input> else {
      parent.pipe { [self] result in _ = self.receive(result, handingBackOn: nil) }
      return
    }
    promise.observe(
      .stage(self) { stage, result, queue in
        // Captures nothing (where specialized). `stage` is the callback's reference: it moves into
        // the delivery handed back, or is released here.
        let stage = unsafeDowncast(consume stage, to: Self.self)
        guard stage.receive(consume result, handingBackOn: queue) else { return nil }
        return Self.readyDelivery(of: stage)
      })
  }
}
