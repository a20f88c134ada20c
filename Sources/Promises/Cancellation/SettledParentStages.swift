/// The stages `map(on: nil)` and `then(on: nil)` add to a cancellable chain after a member that
/// has already settled and handed out its callbacks (`Promise.resultForCallbackNow`; while they
/// are still being delivered, a new stage waits behind them): the body runs at once, inside the
/// call (as it would through the parent's callback), and the new member is made settled, so it
/// never waits in the chain's source.
///
/// The rules are those of a stage that waits (see ``CancellableMapStage``): no body starts once
/// the chain's cancel has started, and a cancel that starts while the body runs wins over what the
/// body returns (``ChainState/claimCancel(for:)``). One difference, which nobody holding the new
/// member can see: a cancel made on another thread while the body runs counts as having rejected
/// this member (``CancelContext/isCancelled``) when the call returns rather than when the cancel
/// returns, since the member is not in the chain's list for the cancel to reject.
extension CancelContext {
  /// `map(on: nil)` after a member settled with `parent`.
  @inlinable
  func mapSettled<Input, U: Sendable>(
    _ parent: consuming Swift.Result<Input, Error>, _ transform: (Input) throws -> U
  ) -> CancellablePromise<U> {
    var result: Swift.Result<U, Error>?
    switch consume parent {
    case .success(let value):
      // `nil` when the cancel started first: the claim rejects the member.
      if !cancelStarted { result = Swift.Result { try transform(value) } }
    case .failure(let error):
      result = .failure(consume error)
    }
    return settledMember(claiming: result)
  }

  /// `then(on: nil)` after a member settled with `parent`: the new member settles at once when
  /// the thenable the body returns has settled (linked into this chain first, when it is a
  /// cancellable one), and otherwise waits for it as a ``CancellableThenStage`` that has run its
  /// body.
  @inlinable
  func thenSettled<Input: Sendable, Follow: CancellableThenFollowing>(
    _ parent: consuming Swift.Result<Input, Error>, _ body: (Input) throws -> Follow.Returned, following: Follow.Type
  ) -> CancellablePromise<Follow.Followed.T> {
    var result: Swift.Result<Follow.Followed.T, Error>?
    switch consume parent {
    case .success(let value):
      guard !cancelStarted else { break }
      do {
        let followed = Follow.follow(try body(value), linkingTo: chain)
        // (The cast folds away where this is specialized.)
        if let promise = followed as? Promise<Follow.Followed.T>, let settled = promise.resultForCallbackNow {
          result = settled
        } else {
          return CancellableThenStage<Input, Follow>(followedBy: ()).wait(for: followed, in: self)
        }
      } catch {
        result = .failure(error)
      }
    case .failure(let error):
      result = .failure(consume error)
    }
    return settledMember(claiming: result)
  }

  /// A settled member of this chain with `result`, or with the cancel error once this chain's
  /// cancel has started (`nil`: the body did not run because it had).
  @inlinable
  func settledMember<V: Sendable>(claiming result: consuming Swift.Result<V, Error>?) -> CancellablePromise<V> {
    var result = result
    if chain.cancelStarted { chain.claimStartedCancelOutOfLine(for: &result) }
    return CancellablePromise(settled: Promise(settled: result!), context: self)
  }
}
