/// The promise behind a member that `map` adds to a cancellable chain (and `compactMap`, `done`
/// and `get`, which are built on it): the member's promise and its transform in one object.
///
/// Like ``MapStage``, it waits in its parent's callbacks as itself (see
/// ``CancellableChainStage``); a member costs this object and its ``CancellablePromise``.
@usableFromInline
final class CancellableMapStage<Input: Sendable, T: Sendable>: Promise<T>, CancellableChainStage,
  @unchecked Sendable
{
  // Safety of `@unchecked Sendable`: `transform` and `context` are written before the stage is
  // registered on its parent and taken once by the parent's callback, which the core runs exactly
  // once and only after that registration (through the parent's lock); nothing else touches them. The state inherited from `Promise` is guarded by its lock.

  /// The transform, until the parent's callback takes it (see ``MapStage``: nothing it captures
  /// outlives the run).
  @usableFromInline @exclusivity(unchecked) var transform: (@Sendable (Input) throws -> T)?
  /// The chain, until the parent's callback takes it: no transform starts once a cancel was
  /// attempted. Released after the run, so that a kept promise does not keep the chain's source
  /// alive. (Its source, not its context: the context's source keeps this stage's parent, so a
  /// stage holding the context would keep a dropped pending chain alive.)
  @usableFromInline @exclusivity(unchecked) var context: ChainState?

  @inlinable
  init(_ transform: @escaping @Sendable (Input) throws -> T) {
    self.transform = transform
    super.init(pending: ())
  }

  /// Takes (and so releases from the stage) the transform and the context; `nil` if taken before.
  @inlinable
  func takeWork() -> (@Sendable (Input) throws -> T, ChainState)? {
    guard let transform = transform.take(), let context = context.take() else { return nil }
    return (transform, context)
  }

  @inlinable
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let (transform, context) = takeWork() else { return false }
    switch consume result {
    case .success(let value):
      guard !context.cancelStarted else { return false }
      return settle(Swift.Result { try transform(value) }, handingBackOn: queue)
    case .failure(let error):
      return settle(.failure(consume error), handingBackOn: queue)
    }
  }
}
