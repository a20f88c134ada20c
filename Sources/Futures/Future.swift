/// A value that arrives later: it completes exactly once, with ``FutureResult/success(_:)``,
/// ``FutureResult/fail(_:)`` or ``FutureResult/cancelled``.
///
/// A future is produced by a ``Promise``, by a block (``init(block:)``), by a timer
/// (``init(afterDelay:success:)``), or derived from another future with
/// ``onComplete(_:block:)-(_,(FutureResult<T>)->Completion<S>)``,
/// ``onSuccess(_:block:)-(_,(T)->S)``, ``map(_:block:)-(_,(T)->S)`` and their relatives (each
/// also in a form whose block takes on the caller's isolation: see ``BlockExecutor``). Consumers ask for cancellation with ``getCancelToken()``; the request travels
/// to whichever stage is running (see the "Cancellation trees" article).
///
/// Every member is safe from any thread. Blocks never run while a lock of the package is held, so
/// they may complete, register on or cancel any future, including this one.
///
/// The class cannot be subclassed outside this module (derived futures are an internal subclass
/// that carries its block, so a stage costs one allocation).
public class Future<T: Sendable>: _FutureCore, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: this subclass adds no stored state; `_FutureCore` guards
  // its state with its lock.

  /// A pending future (for promises).
  @usableFromInline
  override init(pending: ()) {
    super.init(pending: ())
  }

  /// A pending derived stage whose block runs on `executor`. Inlinable, so that a literal
  /// executor (`.immediate`) is classified at compile time.
  @inlinable
  init(pendingStageOn executor: Executor) {
    let kind = StageExecutor(executor)
    super.init(pendingStage: kind, stored: kind == .stored ? executor : nil)
  }

  // Inlinable so that the value is boxed by code specialized for `T` (see
  // `Promise.completeWithSuccess`).
  /// A future that has already succeeded with `value`.
  ///
  /// Disfavored, so that a trailing closure (`Future { 5 }`) is the block of ``init(block:)``,
  /// not a value of a function type.
  @inlinable @_disfavoredOverload
  public init(success value: T) {
    super.init(settled: .success(value))
  }

  /// A future that has already failed with `error`.
  public init(fail error: any Error) {
    super.init(settled: .fail(error))
  }

  /// A future that is already cancelled. Write `Future<Int>(cancelled: ())`.
  public init(cancelled: ()) {
    super.init(settled: .cancelled)
  }

  /// A future completed with `result`.
  @inlinable
  public init(result: FutureResult<T>) {
    super.init(settled: result.erased)
  }

  /// A future whose value `block` computes on `executor`: a thrown error fails it.
  ///
  /// Without an executor, or with `.main`, `.primary` or `.current`, ``init(block:)`` and
  /// ``init(_:block:)-(BlockExecutor,_)`` are chosen instead: their block takes on the caller's
  /// isolation (see ``BlockExecutor``) and one that is not isolated to an actor runs as here.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs; ``Executor/immediate`` (the default) runs it now, on this
  ///     thread, before the initializer returns.
  ///   - block: the work.
  @_disfavoredOverload
  public convenience init(_ executor: Executor = .immediate, block: @escaping @Sendable () throws -> T) {
    self.init(pending: ())
    complete(on: executor, block)
  }

  /// Runs `block` on `executor` and completes this pending future with its value or error.
  final func complete(on executor: Executor, _ block: @escaping @Sendable () throws -> T) {
    executor.resolvedForRegistration.execute { [self] in
      do {
        settle(.success(try block()), detachUpstream: false)
      } catch {
        settle(.fail(error), detachUpstream: false)
      }
    }
  }

  // Inlinable, as every path that boxes or unboxes a value: see `Promise.completeWithSuccess`.
  /// The result, once completed; `nil` while pending.
  @inlinable
  public final var result: FutureResult<T>? { erasedResult?.typed(as: T.self) }

  /// The value, if the future succeeded.
  @inlinable
  public final var value: T? {
    guard let result = erasedResult, result.isSuccess else { return nil }
    return result.successValue(as: T.self)
  }

  /// The record of this future's cancel: where the request that led to it was made, whether it
  /// was forwarded, which future's producer (or option, or block) ended it and how, and the
  /// futures that passed the cancel on to this one; `nil` unless the future completed
  /// ``FutureResult/cancelled``.
  ///
  /// It is built on demand, and never changes once the future is cancelled. Its `reason` is
  /// `CancellationError()`, unless the cancel of another facade reached the future through a
  /// bridge (a token's handler, a cancellable chain's `asFuture()`): then the record starts with
  /// that cancel's, reason included. A future cancelled because the future it waited on was keeps
  /// a reference to that future for it. How to read one: `docs/explaining-cancellation.md`.
  public final var cancellationRecord: CancellationRecord? { cancelRecord }

  /// The label given with ``Promise/init(label:)`` or ``labelled(_:)``, if any: records name
  /// the future by it.
  public final var label: String? { recordLabel }

  /// Gives this future a label, which its records and the records of the futures its cancel
  /// reaches name it by (`"thumbnail"`, `"GET /users"`).
  ///
  /// A label is set once, while the future is pending (label it where it is made): a later call,
  /// or one on a completed future, changes nothing, so that a record never changes once made.
  ///
  /// - Parameter label: the label.
  /// - Returns: this future, to chain where it is made: `download().labelled("download")`.
  @discardableResult
  public final func labelled(_ label: String) -> Self {
    setRecordLabel(label)
    return self
  }

  /// The error, if the future failed.
  public final var error: (any Error)? {
    if case .fail(let error)? = erasedResult { return error }
    return nil
  }
}
