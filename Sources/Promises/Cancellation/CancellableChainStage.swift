import Dispatch

/// A stage of a cancellable chain that is its member's promise and waits on its parent as itself
/// (``PromiseCallback/stage(_:_:)``): ``CancellableMapStage`` and ``CancellableThenStage``. Such
/// a stage allocates no closure context to wait, and it hands its delivery back when it settles
/// inside its parent's (a cancel passing down the chain, a rejection passing through).
@usableFromInline
protocol CancellableChainStage: AnyObject, Sendable {
  /// The parent's value.
  associatedtype Input: Sendable

  /// The chain's state, set once when the stage joins the chain, before it is registered on its
  /// parent.
  var context: ChainState? { get set }

  /// Called once with the parent's result: on the resolving thread, or on the stage's queue when
  /// fulfilled. Returns whether the caller hands this stage's delivery back (see
  /// `Promise.settle(_:handingBackOn:)`; never with a `nil` queue).
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool
}

extension CancellableChainStage {
  /// Makes this stage (a pending promise nobody else holds yet) a member of `context`, registers
  /// it on `parent` and returns the new member. A fulfilled parent's value reaches the stage on
  /// `queue` (on the resolving thread when `nil`); a rejection reaches it on the resolving thread.
  /// Consuming: the caller's reference to the stage becomes its parent's callback.
  @inlinable
  consuming func attach<Value: Sendable>(
    to parent: Promise<Input>, in context: CancelContext, on queue: DispatchQueue?, flags: DispatchFlags
  ) -> CancellablePromise<Value> where Self: Promise<Value> {
    self.context = context.chain
    let member = CancellablePromise<Value>(unsharedMember: copy self, context: context)
    if let queue {
      parent.pipe { [self] result in
        switch result {
        case .success(let value):
          queue.async(flags) { _ = self.receive(.success(value), handingBackOn: nil) }
        case .failure:
          _ = receive(result, handingBackOn: nil)
        }
      }
    } else {
      parent.observe(
        .stage(consume self) { stage, result, queue in
          // As in `MapStage`: captures nothing, and `stage` is the callback's reference: it moves
          // into the delivery handed back, or is released here.
          let stage = unsafeDowncast(consume stage, to: Self.self)
          guard stage.receive(consume result, handingBackOn: queue) else { return nil }
          return Promise<Value>.readyDelivery(of: stage)
        })
    }
    return member
  }
}
