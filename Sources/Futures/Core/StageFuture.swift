/// A future derived from another one with a block: one object, the future and its stage. It waits
/// in its parent's callbacks; when the parent completes, it runs its block on its executor and
/// completes with the block's outcome. A stage detached or force-cancelled before its block starts
/// never starts it. A conforming class stores its block in one field, as given, and says what the
/// block's outcome means (``complete(running:with:)``); the rest is written once here.
///
/// A conforming class is `@unchecked Sendable` for one reason: `block` is written by the
/// initializer and taken once by the stage's run (or dropped by `receive`), which the parent's
/// callback starts exactly once, after the registration it follows (through the parent's lock);
/// nothing else touches it. The state inherited from `_FutureCore` is guarded by its lock.
/// Why: docs/architecture.md, "Who owns synchronization" (a derived future is one object).
@usableFromInline
protocol StageFuture: _FutureCore {
  /// The block's type.
  associatedtype Block
  /// The block, until the stage runs: taken then, so that nothing it captures outlives the run
  /// (a kept future must not keep, say, the object its block captured).
  var block: Block? { get set }
  /// Whether the block runs only for a success (a failure or a cancellation then passes through
  /// without running it or hopping executors) or for every result.
  static var runsOnSuccessOnly: Bool { get }
  /// Runs `block` with the parent's `result` and applies its outcome (a thrown error fails the
  /// stage).
  ///
  /// - Returns: `self` if it completed and left the delivery of its callbacks to the caller.
  func complete(running block: Block, with result: ErasedResult) throws -> _FutureCore?
}

extension StageFuture {
  /// Registers the stage on `parent` and returns it as the derived future.
  @inlinable
  func attach(to parent: _FutureCore) -> Self {
    attachStage(to: parent, FutureCallback { [self] result in receive(result) })
    return self
  }

  /// Called once with the parent's result, outside any lock. Returns `self` if it completed
  /// and left the delivery of its callbacks to the caller (the parent's delivery loop).
  @inlinable
  func receive(_ result: ErasedResult) -> _FutureCore? {
    if Self.runsOnSuccessOnly ? !result.isSuccess : result.isAbandoned {
      block = nil  // it will never run
      return settleLeavingDelivery(result)
    }
    if stageExecutor == .immediate { return run(result) }
    executor.execute { [self] in run(result)?.deliverNow() }
    return nil
  }

  /// Runs the block; returns `self` if it completed and left the delivery to the caller.
  @inlinable
  func run(_ result: ErasedResult) -> _FutureCore? {
    guard let block = block.take() else { return nil }
    if isCompleted { return nil }  // detached or forced meanwhile: the block never starts
    do {
      return try complete(running: block, with: result)
    } catch {
      return settleLeavingDelivery(.fail(error))
    }
  }
}

/// A stage whose block maps a success value to a value (`map`, `onSuccess`).
@usableFromInline
final class ValueStage<Input: Sendable, T: Sendable>: Future<T>, StageFuture, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: see `StageFuture`.
  @usableFromInline @exclusivity(unchecked) var block: (@Sendable (Input) throws -> T)?

  @inlinable
  init(executor: Executor, block: @escaping @Sendable (Input) throws -> T) {
    self.block = block
    super.init(pendingStageOn: executor)
  }

  @inlinable static var runsOnSuccessOnly: Bool { true }

  @inlinable
  func complete(running block: @Sendable (Input) throws -> T, with result: ErasedResult) throws -> _FutureCore? {
    settleLeavingDelivery(.success(try block(result.successValue(as: Input.self))))
  }
}

/// A stage whose block maps a success value to a future to complete with (`onSuccess` returning
/// a future).
@usableFromInline
final class FutureStage<Input: Sendable, T: Sendable>: Future<T>, StageFuture, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: see `StageFuture`.
  @usableFromInline @exclusivity(unchecked) var block: (@Sendable (Input) throws -> Future<T>)?

  @inlinable
  init(executor: Executor, block: @escaping @Sendable (Input) throws -> Future<T>) {
    self.block = block
    super.init(pendingStageOn: executor)
  }

  @inlinable static var runsOnSuccessOnly: Bool { true }

  @inlinable
  func complete(
    running block: @Sendable (Input) throws -> Future<T>, with result: ErasedResult
  ) throws -> _FutureCore? {
    _ = bind(to: try block(result.successValue(as: Input.self)), claim: false)
    return nil
  }
}

/// A stage whose block runs for every result and answers with a completion (`onComplete`,
/// `onFail`, `onCancel`).
@usableFromInline
final class ResultStage<Input: Sendable, T: Sendable>: Future<T>, StageFuture, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: see `StageFuture`.
  @usableFromInline @exclusivity(unchecked) var block: (@Sendable (FutureResult<Input>) throws -> Completion<T>)?

  @inlinable
  init(executor: Executor, block: @escaping @Sendable (FutureResult<Input>) throws -> Completion<T>) {
    self.block = block
    super.init(pendingStageOn: executor)
  }

  @inlinable static var runsOnSuccessOnly: Bool { false }

  @inlinable
  func complete(
    running block: @Sendable (FutureResult<Input>) throws -> Completion<T>, with result: ErasedResult
  ) throws -> _FutureCore? {
    applyBlockCompletion(try block(result.typed(as: Input.self)).erased, input: result)
    return nil
  }
}
