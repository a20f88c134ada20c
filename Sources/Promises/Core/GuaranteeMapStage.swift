/// The guarantee `map(on: nil)` returns (and `done`, `get` and `asVoid`, which are built on it):
/// the derived guarantee and its transform in one object.
///
/// As ``MapStage`` does for a promise, it waits in its parent's callbacks as itself
/// (``PromiseCallback/stage(_:_:)``): a synchronous stage costs one allocation instead of two (the
/// guarantee plus a closure context holding the transform and the guarantee), and a stage that
/// settles inside its parent's delivery hands its own delivery back instead of queueing it.
@usableFromInline
final class GuaranteeMapStage<Input: Sendable, T: Sendable>: Guarantee<T>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `transform` is written by the initializer and taken once by
  // the parent's callback, which the core runs exactly once and only after the registration it
  // follows (so after the initializer, through the parent's lock); nothing else touches it. The
  // state inherited from `Guarantee` is guarded by its lock.

  /// The transform, until the parent's callback takes it: released as soon as the stage ran, so
  /// that nothing it captures outlives the run.
  @usableFromInline @exclusivity(unchecked) var transform: (@Sendable (Input) -> T)?

  @inlinable
  init(_ transform: @escaping @Sendable (Input) -> T) {
    self.transform = transform
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it: `transform` runs on the resolving thread once
  /// `parent` resolves (at once if it has).
  @inlinable
  func attach(to parent: Guarantee<Input>) -> Guarantee<T> {
    parent.observe(
      .stage(self) { stage, value, queue in
        // Captures nothing. `stage` is the callback's reference: it moves into the delivery handed
        // back, or is released here.
        let stage = unsafeDowncast(consume stage, to: GuaranteeMapStage<Input, T>.self)
        guard stage.receive(consume value, handingBackOn: queue) else { return nil }
        return Guarantee<T>.readyDelivery(of: stage)
      })
    return self
  }

  /// Called once with the parent's value. Returns whether the caller hands this stage's delivery
  /// back (see `Guarantee.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ value: consuming Input, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let transform = transform.take() else { return false }
    return settle(transform(value), handingBackOn: queue)
  }
}
