/// A token cancelled as soon as either operand is; completed without cancellation once both
/// completed without cancellation.
///
/// | `lhs` \ `rhs` | cancelled | not cancelled | pending |
/// |---|---|---|---|
/// | **cancelled** | cancelled | cancelled | cancelled |
/// | **not cancelled** | cancelled | not cancelled | pending |
/// | **pending** | cancelled | pending | pending |
///
/// The reason is that of the operand cancelled first (`lhs`'s if both already were). The result
/// completes on the thread that completes the deciding operand, before that call returns.
/// Dropping it while pending leaves nothing behind once the operands complete.
///
/// This fixes couchdeveloper/Cancellation's `||`, which never completed when both operands
/// completed without cancellation (and reported a cancellation when `rhs` merely completed).
///
/// - Parameters:
///   - lhs: a token.
///   - rhs: another token.
/// - Returns: the combined token. When the outcome already depends on one operand alone, that
///   operand itself.
public func || (lhs: CancellationToken, rhs: CancellationToken) -> CancellationToken {
  if lhs.isCancelled || rhs.isClosed { return lhs }
  if rhs.isCancelled || lhs.isClosed { return rhs }
  return CancellationToken(storage: EitherToken.make(first: lhs.storage, second: rhs.storage))
}

/// A token cancelled once both operands are; completed without cancellation as soon as either
/// completes without cancellation.
///
/// | `lhs` \ `rhs` | cancelled | not cancelled | pending |
/// |---|---|---|---|
/// | **cancelled** | cancelled | not cancelled | pending |
/// | **not cancelled** | not cancelled | not cancelled | not cancelled |
/// | **pending** | pending | not cancelled | pending |
///
/// The reason is always `rhs`'s. The result completes on the thread that completes the deciding
/// operand, before that call returns. Dropping it while pending leaves nothing behind once the
/// operands complete.
///
/// - Parameters:
///   - lhs: a token.
///   - rhs: another token.
/// - Returns: the combined token. When the outcome already depends on one operand alone, that
///   operand itself.
public func && (lhs: CancellationToken, rhs: CancellationToken) -> CancellationToken {
  if lhs.isClosed { return lhs }
  if rhs.isClosed || lhs.isCancelled { return rhs }
  return CancellationToken(storage: BothToken.make(first: lhs.storage, second: rhs.storage))
}

extension Sequence<CancellationToken> {
  /// A token cancelled as soon as any of these tokens is, completed without cancellation once all
  /// of them completed without cancellation: `||` over the sequence.
  ///
  /// An empty sequence gives ``CancellationToken/none``. The reason is that of the token
  /// cancelled first. Completion runs in constant stack however many tokens there are.
  ///
  /// - Returns: the combined token.
  public func anyCancelled() -> CancellationToken {
    var iterator = makeIterator()
    guard let first = iterator.next() else { return .none }
    return IteratorSequence(iterator).reduce(first, ||)
  }

  /// A token cancelled once all of these tokens are, completed without cancellation as soon as
  /// any of them completes without cancellation: `&&` over the sequence.
  ///
  /// An empty sequence gives ``CancellationToken/none`` (nothing could ever cancel it). The reason
  /// is the last token's. Completion runs in constant stack however many tokens there are.
  ///
  /// - Returns: the combined token.
  public func allCancelled() -> CancellationToken {
    var iterator = makeIterator()
    guard let first = iterator.next() else { return .none }
    return IteratorSequence(iterator).reduce(first, &&)
  }
}
