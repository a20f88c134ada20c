/// The futures a future waits on, each with the key of its callback there.
enum Upstream: Sendable {
  /// Nothing: a producer's own future, a stage whose block is running, or a completed future.
  case none
  /// One future (a parent, or the future a block or producer handed over).
  case one(_FutureCore, RegistrationKey)
  /// Several (the inputs of a combinator).
  case many(ContiguousArray<UpstreamLink>)

  /// Removes this future's callbacks from every upstream future. Call it outside any lock.
  func removeConsumers() {
    switch self {
    case .none: break
    case .one(let node, let key): node.removeConsumer(key)
    case .many(let links): for link in links where !link.direct { link.node.removeConsumer(link.key) }
    }
  }
}

/// One upstream future and the key of the callback there.
struct UpstreamLink: Sendable {
  let node: _FutureCore
  let key: RegistrationKey
  /// A direct link (a batch's input): requests reach the input as its own token's would, without
  /// the tree rule, and the link's callback belongs to the batch, so it is never removed.
  var direct = false
}
