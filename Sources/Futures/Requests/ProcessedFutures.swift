/// The futures one request processed. The first one is kept inline, so a request that stops at
/// its own future allocates nothing; the others are held strongly, so that no future freed during
/// the request can lend its address to a new one.
struct ProcessedFutures {
  private let start: _FutureCore
  private var others: Set<Identity> = []

  init(_ start: _FutureCore) {
    self.start = start
  }

  func contains(_ future: _FutureCore) -> Bool {
    future === start || (!others.isEmpty && others.contains(Identity(future: future)))
  }

  mutating func insert(_ future: _FutureCore) {
    others.insert(Identity(future: future))
  }

  /// A future compared and hashed by identity.
  private struct Identity: Hashable {
    let future: _FutureCore

    static func == (lhs: Identity, rhs: Identity) -> Bool { lhs.future === rhs.future }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(future)) }
  }
}
