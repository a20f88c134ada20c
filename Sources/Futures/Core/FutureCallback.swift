/// Something waiting for a future's result: a function that receives it, outside any lock, and
/// returns a future it completed whose callbacks the caller must deliver (see
/// `_FutureCore.settleLeavingDelivery(_:)`).
///
/// One closure, 16 bytes, so that a future's inline callback slot stays small. A derived stage's
/// callback is made by inlinable code in the client, specialized for its types, and captures only
/// the stage: a closure capturing one object uses it as its context and allocates nothing.
@usableFromInline
package struct FutureCallback: Sendable {
  @usableFromInline let run: @Sendable (ErasedResult) -> _FutureCore?

  @inlinable
  init(_ run: @escaping @Sendable (ErasedResult) -> _FutureCore?) {
    self.run = run
  }

  /// A future completing with this one's result (``Completion/completeUsing(_:)``).
  static func forward(to future: _FutureCore) -> FutureCallback {
    FutureCallback { result in future.settleLeavingDelivery(result) }
  }

  /// Input `index` of a combinator.
  static func join(_ join: FutureJoin, _ index: Int) -> FutureCallback {
    FutureCallback { result in
      // An abandoned input never completes: the join waits for it as it would have.
      if result.isAbandoned { return nil }
      join.operandCompleted(index, succeeded: result.isSuccess)
      return nil
    }
  }
}

/// Where a derived stage runs its block, in one byte; other executors are kept in the stage's
/// `FutureExtras`.
@usableFromInline
enum StageExecutor: UInt8, Sendable {
  case immediate, main, async, stored

  /// The case for `executor`. Inlinable, so that it folds away for a literal executor.
  @inlinable
  init(_ executor: Executor) {
    switch executor {
    case .immediate: self = .immediate
    case .main: self = .main
    case .async: self = .async
    default: self = .stored
    }
  }
}
