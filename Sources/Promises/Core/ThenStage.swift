/// The promise `then(on: nil)` returns on a pending ``Promise``: the derived promise and its body
/// in one object, which waits in its parent's callbacks as itself and then, as itself again, in
/// the callbacks of the promise the body returned.
///
/// As ``MapStage``: a stage costs one allocation besides what its body returns, instead of the
/// promise and a closure context (and a second one to follow a pending returned promise); a stage
/// that settles inside a delivery hands its own delivery back, so a long chain resolves in constant
/// stack. (With a queue, `then` keeps the closures: dispatching allocates anyway.)
@usableFromInline
final class ThenStage<Input: Sendable, U: Thenable>: Promise<U.T>, ParentWaitingStage, FollowingStage,
  @unchecked Sendable
{
  // Safety of `@unchecked Sendable`: `body` is written by the initializer and taken once by the
  // parent's callback, which the core runs exactly once and only after the registration it
  // follows (so after the initializer, through the parent's lock); nothing else touches it. The
  // state inherited from `Promise` is guarded by its lock.

  /// The body, until the parent's callback takes it (nothing it captures outlives the run).
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Input) throws -> U)?

  @inlinable
  init(_ body: @escaping @Sendable (Input) throws -> U) {
    self.body = body
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it.
  @inlinable
  func attach(to parent: Promise<Input>) -> Promise<U.T> {
    wait(on: parent)
    return self
  }

  /// Called once with the parent's result. Returns whether the caller hands this stage's delivery
  /// back (see `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let body = body.take() else { return false }
    switch consume result {
    case .success(let value):
      let returned: U
      do {
        returned = try body(value)
        // Returning the very promise this call returned would wait for itself.
        guard returned !== self else { throw PMKError.returnedSelf }
      } catch {
        return settle(.failure(error), handingBackOn: queue)
      }
      return follow(returned, handingBackOn: queue)
    case .failure(let error):
      return settle(.failure(consume error), handingBackOn: queue)
    }
  }
}
