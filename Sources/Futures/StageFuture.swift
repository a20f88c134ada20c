/// A future derived from another one with a block: the future and its stage in one object.
///
/// It waits in its parent's callbacks; when the parent completes it runs its block on its
/// executor and completes with the block's completion. A stage detached or force-cancelled before
/// its block starts never starts it.
///
/// The block is stored as given (no wrapping closure), in one of three fields, so that the stage
/// has no generic enum whose metadata unspecialized code would have to look up.
@usableFromInline
final class StageFuture<Input: Sendable, T: Sendable>: Future<T>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the stored properties added here are immutable; the state
  // inherited from `_FutureCore` is guarded by its lock.

  @usableFromInline let executor: Executor
  /// `onSuccess`/`map` returning a value: runs only for a success.
  @usableFromInline let valueBlock: (@Sendable (Input) throws -> T)?
  /// `onSuccess` returning a future: runs only for a success.
  @usableFromInline let futureBlock: (@Sendable (Input) throws -> Future<T>)?
  /// `onComplete`: runs for every result.
  @usableFromInline let resultBlock: (@Sendable (FutureResult<Input>) throws -> Completion<T>)?

  @usableFromInline
  init(
    executor: Executor, value: (@Sendable (Input) throws -> T)? = nil,
    future: (@Sendable (Input) throws -> Future<T>)? = nil,
    result: (@Sendable (FutureResult<Input>) throws -> Completion<T>)? = nil
  ) {
    self.executor = executor
    valueBlock = value
    futureBlock = future
    resultBlock = result
    super.init(pending: ())
  }

  /// Registers the stage on `parent` and returns it as the derived future.
  ///
  /// Inlined so that the runner handed to the parent is made in the client, specialized for the
  /// client's types and capturing nothing: delivery then runs the stage's code specialized (no
  /// runtime metadata lookups, a direct cast of the value) without allocating a closure context.
  @inlinable
  func attach(to parent: _FutureCore) -> Future<T> {
    attach(to: parent) { core, result in unsafeDowncast(core, to: StageFuture<Input, T>.self).receive(result) }
  }

  /// Registers the stage on `parent`, to be run by `runner`, and returns it as the derived future.
  @usableFromInline
  func attach(to parent: _FutureCore, runner: @escaping StageRunner) -> Future<T> {
    if let key = parent.observe(.stage(self, runner)) {
      var replaced = Upstream.none
      let settled = lock.withLock { () -> Bool in
        if machine.isSettled { return true }
        replaced = control.upstream
        control.upstream = .one(parent, key)
        return false
      }
      if settled { parent.removeConsumer(key) }
      _ = replaced
    }
    return self
  }

  /// Called once with the parent's result, outside any lock. Returns `self` if it completed
  /// and left the delivery of its callbacks to the caller (the parent's delivery loop).
  @inlinable
  func receive(_ result: ErasedResult) -> _FutureCore? {
    if resultBlock == nil {
      // A failure or cancellation passes through without running the block (or hopping
      // executors).
      switch result {
      case .boxed: break
      case .fail, .cancelled: return settleLeavingDelivery(result)
      }
    }
    if executor.isImmediate { return run(result) }
    executor.execute { [self] in run(result)?.deliverNow() }
    return nil
  }

  /// Runs the block; returns `self` if it completed and left the delivery to the caller.
  @inlinable
  func run(_ result: ErasedResult) -> _FutureCore? {
    if isCompleted { return nil }  // detached or forced meanwhile: the block never starts
    do {
      if let valueBlock, case .boxed(let box) = result {
        return settleLeavingDelivery(.success(try valueBlock(ValueBox<Input>.unbox(box))))
      } else if let futureBlock, case .boxed(let box) = result {
        _ = bind(to: try futureBlock(ValueBox<Input>.unbox(box)), claim: false)
      } else if let resultBlock {
        apply(try resultBlock(result.typed(as: Input.self)).erased, claim: false, detachUpstream: false)
      }
    } catch {
      return settleLeavingDelivery(.fail(error))
    }
    return nil
  }
}
