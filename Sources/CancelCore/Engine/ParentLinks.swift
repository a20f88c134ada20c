/// A child source's registrations in its parents, kept so the child can remove them when it ends.
///
/// One parent is the common case, so it is stored inline without an array.
enum ParentLinks: Sendable {
  case none
  case one(CancelRegistration)
  case many([CancelRegistration])

  mutating func append(_ registration: CancelRegistration) {
    switch self {
    case .none: self = .one(registration)
    case .one(let first): self = .many([first, registration])
    case .many(var all):
      self = .none
      all.append(registration)
      self = .many(all)
    }
  }

  /// Removes every link from its parent. Call it without holding any lock.
  func unregisterAll() {
    switch self {
    case .none: break
    case .one(let registration): registration.unregister()
    case .many(let all): for registration in all { registration.unregister() }
    }
  }

  /// The parents' storages, for reading what they hold (their deadlines).
  var storages: [CancelStorage] {
    switch self {
    case .none: return []
    case .one(let registration): return registration.storage.map { [$0] } ?? []
    case .many(let all): return all.compactMap(\.storage)
    }
  }
}
