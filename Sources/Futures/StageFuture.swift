/// A future derived from another one with a block: the future and its stage in one object.
///
/// It waits in its parent's callbacks; when the parent completes it runs its block on its
/// executor and completes with the block's completion. A stage detached or force-cancelled before
/// its block starts never starts it.
final class StageFuture<Input: Sendable, T: Sendable>: Future<T>, FutureStage, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the stored properties added here are immutable; the state
  // inherited from `Future` is guarded by its lock.

  /// The user's block, stored as given (no wrapping closure).
  enum Body: Sendable {
    /// `onComplete`: runs for every result.
    case complete(@Sendable (FutureResult<Input>) throws -> Completion<T>)
    /// `onSuccess`/`map` returning a value: runs only for a success.
    case success(@Sendable (Input) throws -> T)
    /// `onSuccess` returning a future: runs only for a success.
    case successFuture(@Sendable (Input) throws -> Future<T>)
  }

  let executor: Executor
  let body: Body

  init(executor: Executor, body: Body) {
    self.executor = executor
    self.body = body
    super.init(pending: ())
  }

  /// Registers the stage on `parent`; returns the stage as the derived future.
  static func attach(to parent: Future<Input>, executor: Executor, body: Body) -> Future<T> {
    let stage = StageFuture(executor: executor.resolvedForRegistration, body: body)
    if let key = parent.observe(.stage(stage)) {
      var replaced = Upstream.none
      let settled = stage.lock.withLock { () -> Bool in
        if stage.machine.isSettled { return true }
        replaced = stage.control.upstream
        stage.control.upstream = .one(parent, key)
        return false
      }
      if settled { parent.removeConsumer(key) }
      _ = replaced
    }
    return stage
  }

  func receive(_ result: FutureResult<Input>) {
    if case .complete = body {
    } else {
      // A failure or cancellation passes through without running the block (or hopping
      // executors).
      switch result {
      case .success: break
      case .fail(let error):
        settle(.fail(error), detachUpstream: false)
        return
      case .cancelled:
        settle(.cancelled, detachUpstream: false)
        return
      }
    }
    if executor.isImmediate {
      run(result)
    } else {
      executor.execute { [self] in run(result) }
    }
  }

  private func run(_ result: FutureResult<Input>) {
    if isCompleted { return }  // detached or forced meanwhile: the block never starts
    let completion: Completion<T>
    do {
      switch body {
      case .complete(let block):
        completion = try block(result)
      case .success(let block):
        guard case .success(let value) = result else { return }
        completion = .success(try block(value))
      case .successFuture(let block):
        guard case .success(let value) = result else { return }
        completion = .completeUsing(try block(value))
      }
    } catch {
      completion = .fail(error)
    }
    apply(completion, claim: false, detachUpstream: false)
  }
}
