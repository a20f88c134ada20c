/// A child source's registrations in its parents, kept so the child can remove them when it ends.
///
/// One parent is the common case, so it is stored inline without an array.
enum ParentLinks: Sendable {
  case none
  case one(CancelRegistration)
  case many([CancelRegistration])

  /// Adds `registration`. A parent that ended without a cancel leaves its link here (it never
  /// tells its children): those are dropped whenever the list has grown to a power of two, so a
  /// long-lived child linked to many short-lived parents keeps at most about twice its open ones.
  mutating func append(_ registration: CancelRegistration) {
    switch self {
    case .none: self = .one(registration)
    case .one(let first):
      self = first.storage?.isCompleted ?? true ? .one(registration) : .many([first, registration])
    case .many(var all):
      self = .none
      if all.count >= 4, all.count & (all.count - 1) == 0 { all.removeAll { $0.storage?.isCompleted ?? true } }
      all.append(registration)
      self = .many(all)
    }
  }

  /// How many links are kept (for tests).
  var count: Int {
    switch self {
    case .none: return 0
    case .one: return 1
    case .many(let all): return all.count
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
