#if canImport(Darwin)
  import Darwin
#else
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif
#endif

/// The package's one lock: every other type that needs mutual exclusion uses this one.
///
/// It guards only short, bounded critical sections that never run user code (handlers run after
/// unlock, removed closures are released after unlock), so waiting is always brief. On Darwin it
/// is an `os_unfair_lock`; elsewhere a test-and-test-and-set lock on one 32-bit word that spins
/// briefly and then yields.
///
/// It lives inline in its ``CoreLockHost`` (a ``CoreLockStorage``, the host's first stored
/// property), and `host.lock` is this handle to it, found from the object's address. A handle is
/// only valid while its host is alive: use it where it is made (`lock.withLock { ... }`), never
/// store it. Why: docs/architecture.md, "Who owns synchronization".
@usableFromInline
package struct CoreLock {
  @usableFromInline let storage: UnsafeMutablePointer<CoreLockStorage>

  @inlinable @inline(__always)
  init(storage: UnsafeMutablePointer<CoreLockStorage>) {
    self.storage = storage
  }

  #if canImport(Darwin)
    /// Runs `body` with the lock held. `body` must not call user code or take this lock again.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(
      _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let primitive = UnsafeMutableRawPointer(storage).assumingMemoryBound(to: os_unfair_lock.self)
      os_unfair_lock_lock(primitive)
      defer { os_unfair_lock_unlock(primitive) }
      return try body()
    }
  #else
    /// Runs `body` with the lock held. `body` must not call user code or take this lock again.
    @inlinable @inline(__always)
    package func withLock<Result, Failure: Error>(
      _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let word = self.word
      if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
        Self.lockContended(word)
      }
      defer { word.store(0, ordering: .releasing) }
      return try body()
    }

    /// 0 = unlocked, 1 = locked.
    @inlinable @inline(__always)
    var word: CoreAtomic<UInt32> {
      CoreAtomic(UnsafeMutableRawPointer(storage).assumingMemoryBound(to: CoreAtomicStorage<UInt32>.self))
    }

    /// The slow path: spin on plain loads (so waiters don't bounce the cache line), then yield.
    @usableFromInline @inline(never)
    static func lockContended(_ word: CoreAtomic<UInt32>) {
      var spins = 0
      while true {
        if word.load(ordering: .relaxed) == 0,
          word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
        {
          return
        }
        spins += 1
        if spins >= 100 { sched_yield() }
      }
    }
  #endif
}

/// The storage of a ``CoreLock``, unlocked when created: the first stored property of its
/// ``CoreLockHost``, or the first field of a struct that is that property.
///
/// Nothing reads or writes it as a Swift property after initialization: only the host's `lock`
/// handle does, through its address.
@usableFromInline
package struct CoreLockStorage {
  #if canImport(Darwin)
    /// `OS_UNFAIR_LOCK_INIT`.
    @usableFromInline var primitive = os_unfair_lock()
  #else
    @usableFromInline var primitive = CoreAtomicStorage<UInt32>(0)
  #endif

  /// An unlocked lock.
  @inlinable package init() {}
}

/// An object that hosts a ``CoreLock`` inline: its **first stored property** is a
/// ``CoreLockStorage`` (or a struct whose first field is one); for a subclass, the root class
/// declares it first.
///
/// `lock` finds the storage at the start of the object's stored properties (the standard
/// library's `_getUnsafePointerToStoredProperties`, which swift-atomics' `ManagedAtomic` relies on
/// the same way). A host whose first stored property were something else would lock on that, so
/// every host checks in each initializer, once its properties are set, that `lock` finds its
/// storage: `precondition(hostsLock(at: &lockStorage), ...)`, which folds away in a release build.
///
/// A host whose object size is tuned (a promise, a future) may keep the storage further in, where
/// it fills padding: it then gives ``coreLockStorage`` by a formula, and the same check traps at
/// once on a layout the formula did not foresee.
@usableFromInline
package protocol CoreLockHost: AnyObject {
  /// The host's ``CoreLockStorage``: by default its first stored property.
  var coreLockStorage: UnsafeMutablePointer<CoreLockStorage> { get }
}

extension CoreLockHost {
  /// The storage is the first stored property.
  @inlinable @inline(__always)
  package var coreLockStorage: UnsafeMutablePointer<CoreLockStorage> {
    firstStoredProperty(of: self, as: CoreLockStorage.self)
  }

  /// The lock this object hosts (see ``CoreLockHost``).
  @inlinable @inline(__always)
  package var lock: CoreLock {
    CoreLock(storage: coreLockStorage)
  }

  /// Whether `storage`, the host's ``CoreLockStorage`` property passed by an initializer once every
  /// property is set, is where ``lock`` looks. Folds to a constant in a specialized initializer.
  @inlinable @inline(__always)
  package func hostsLock(at storage: inout CoreLockStorage) -> Bool {
    withUnsafeMutablePointer(to: &storage) { $0 == lock.storage }
  }
}

/// The first stored property of `object` (of its root class), as `type`: where a ``CoreLockHost``
/// keeps its ``CoreLockStorage`` and a host of ``CoreAtomic``s their storage.
@inlinable @inline(__always)
package func firstStoredProperty<Storage>(of object: AnyObject, as type: Storage.Type) -> UnsafeMutablePointer<Storage>
{
  _getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: Storage.self)
}
