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
/// completes on the thread that completes the deciding operand, before that call returns. Once it
/// has completed, nothing of it stays registered in either operand; dropped while pending, it is
/// freed once it completes.
///
/// This fixes couchdeveloper/Cancellation's `||`, which reported a cancellation when `rhs` merely
/// completed, and never completed when only `lhs` did.
///
/// - Parameters:
///   - lhs: a token.
///   - rhs: another token.
/// - Returns: the combined token. When the outcome already depends on one operand alone, that
///   operand itself.
public func || (lhs: CancellationToken, rhs: CancellationToken) -> CancellationToken {
  if lhs.isCancelled || rhs.isClosed { return lhs }
  if rhs.isCancelled || lhs.isClosed { return rhs }
  return CancellationToken(storage: CancelJoin.join(.anyCancelled, lhs.storage, rhs.storage))
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
/// The reason is that of the operand cancelled last (`rhs`'s if both already were). The result
/// completes on the thread that completes the deciding operand, before that call returns. Once it
/// has completed, nothing of it stays registered in either operand; dropped while pending, it is
/// freed once it completes.
///
/// - Parameters:
///   - lhs: a token.
///   - rhs: another token.
/// - Returns: the combined token. When the outcome already depends on one operand alone, that
///   operand itself.
public func && (lhs: CancellationToken, rhs: CancellationToken) -> CancellationToken {
  if lhs.isClosed { return lhs }
  if rhs.isClosed || lhs.isCancelled { return rhs }
  return CancellationToken(storage: CancelJoin.join(.allCancelled, lhs.storage, rhs.storage))
}

extension Sequence<CancellationToken> {
  /// A token cancelled as soon as any of these tokens is, completed without cancellation once all
  /// of them completed without cancellation: `||` over the sequence, as one join.
  ///
  /// The reason is that of the token cancelled first. An empty sequence gives
  /// ``CancellationToken/none``; a single token gives that token.
  ///
  /// - Returns: the combined token.
  public func anyCancelled() -> CancellationToken {
    join(.anyCancelled)
  }

  /// A token cancelled once all of these tokens are, completed without cancellation as soon as
  /// any of them completes without cancellation: `&&` over the sequence, as one join.
  ///
  /// The reason is that of the token cancelled last. An empty sequence gives
  /// ``CancellationToken/none`` (nothing could ever cancel it); a single token gives that token.
  ///
  /// - Returns: the combined token.
  public func allCancelled() -> CancellationToken {
    join(.allCancelled)
  }

  private func join(_ rule: CancelJoinStateMachine.Rule) -> CancellationToken {
    let storages = map(\.storage)
    switch storages.count {
    case 0: return .none
    case 1: return CancellationToken(storage: storages[0])
    default: return CancellationToken(storage: CancelJoin.join(rule, storages))
    }
  }
}
