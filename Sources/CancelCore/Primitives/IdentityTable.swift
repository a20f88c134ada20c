/// One shared object per live key object, found by the key's identity.
///
/// For adapters that attach to a foreign object which cannot take a callback back (a NIO future):
/// the first waiter makes the shared object and attaches it to the key once; every later waiter
/// joins the shared object, whose waiters can leave, so a waiter that gives up leaves nothing on
/// the key. The owner removes the entry when the key's event has happened.
///
/// An entry holds its key weakly: an entry whose key was freed without the event, or whose
/// address a new object now has, is replaced rather than joined, and such stale entries are
/// dropped as the table grows. Whatever an entry held is released after unlocking.
//
// Safety of `@unchecked Sendable`: `entries` and `pruneAt` are read and written only inside
// `lock.withLock`. The shared objects are handed out as the callers' `Sendable` types.
package final class IdentityTable<Shared: AnyObject>: CoreLockHost, @unchecked Sendable {
  private struct Entry {
    weak var key: AnyObject?
    let shared: Shared
  }

  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  private var entries: [ObjectIdentifier: Entry] = [:]
  /// The entry count at which stale entries are dropped next.
  private var pruneAt = 64

  /// An empty table.
  package init() {
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// The number of entries, stale ones included.
  package var count: Int { lock.withLock { entries.count } }

  /// The object shared for `key`, made with `make` (under the table's lock: it must only
  /// allocate) if there is none; `isNew` tells the caller to attach it to `key`.
  package func shared(for key: AnyObject, make: () -> Shared) -> (shared: Shared, isNew: Bool) {
    let id = ObjectIdentifier(key)
    let (result, released) = lock.withLock { () -> ((Shared, Bool), [ObjectIdentifier: Entry]?) in
      if let entry = entries[id], entry.key === key { return ((entry.shared, false), nil) }
      let shared = make()
      // A stale entry under this address is replaced; it is released after unlocking.
      var released = entries.updateValue(Entry(key: key, shared: shared), forKey: id).map { [id: $0] }
      if entries.count >= pruneAt {
        let all = entries
        entries = all.filter { $0.value.key != nil }
        pruneAt = max(64, 2 * entries.count)
        released = all
      }
      return ((shared, true), released)
    }
    _ = released
    return result
  }

  /// The object shared for `key`, if there is one.
  package func existing(for key: AnyObject) -> Shared? {
    lock.withLock {
      guard let entry = entries[ObjectIdentifier(key)], entry.key === key else { return nil }
      return entry.shared
    }
  }

  /// Removes the entry of the key whose identity is `id`, if it still holds `shared`.
  package func remove(_ id: ObjectIdentifier, ifShared shared: Shared) {
    let removed = lock.withLock { () -> Entry? in
      guard let entry = entries[id], entry.shared === shared else { return nil }
      return entries.removeValue(forKey: id)
    }
    _ = removed
  }
}
