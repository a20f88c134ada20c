import CancelCore

/// The guarantee `then(on: nil)` returns on a ``Guarantee``: the derived guarantee and its body in
/// one object, which waits in its parent's callbacks as itself and then, as itself again, in the
/// callbacks of the guarantee the body returned (as ``ThenStage`` does for a promise).
///
/// A stage costs one allocation besides what its body returns, instead of the guarantee and two
/// closure contexts; a stage that settles inside a delivery hands its own delivery back. (With a
/// queue, `then` keeps the closures: dispatching allocates anyway.)
@usableFromInline
final class GuaranteeThenStage<Input: Sendable, U: Sendable>: Guarantee<U>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `body` is written by the initializer and taken once by the
  // parent's callback, which the core runs exactly once and only after the registration it follows
  // (so after the initializer, through the parent's lock); nothing else touches it. The state
  // inherited from `Guarantee` is guarded by its lock.

  /// The body, until the parent's callback takes it (nothing it captures outlives the run).
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Input) -> Guarantee<U>)?

  @inlinable
  init(_ body: @escaping @Sendable (Input) -> Guarantee<U>) {
    self.body = body
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it.
  @inlinable
  func attach(to parent: Guarantee<Input>) -> Guarantee<U> {
    parent.observe(
      .stage(self) { stage, value, queue in
        // Captures nothing; `stage` is the callback's reference (see `GuaranteeMapStage`).
        let stage = unsafeDowncast(consume stage, to: GuaranteeThenStage<Input, U>.self)
        guard stage.receive(consume value, handingBackOn: queue) else { return nil }
        return Guarantee<U>.readyDelivery(of: stage)
      })
    return self
  }

  /// Called once with the parent's value. Returns whether the caller hands this stage's delivery
  /// back (see `Guarantee.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ value: consuming Input, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let body = body.take() else { return false }
    let returned = body(value)
    // At once if the returned guarantee already settled (and delivered), as a callback would.
    if let settled = returned.valueForCallbackNow { return settle(settled, handingBackOn: queue) }
    returned.observe(
      .stage(self) { stage, value, queue in
        let stage = unsafeDowncast(consume stage, to: GuaranteeThenStage<Input, U>.self)
        guard stage.settle(consume value, handingBackOn: queue) else { return nil }
        return Guarantee<U>.readyDelivery(of: stage)
      })
    return false
  }
}
