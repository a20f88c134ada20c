/// A flag that exactly one caller takes, whatever the threads: the once-flag of "requests at most
/// once".
///
/// One atomic word kept inline in its host, a ``OnceFlagHost`` whose first stored property is a
/// ``OnceFlagStorage`` (as a ``CoreLockHost`` keeps its lock), so a host that is made often (a
/// future's cancel token) costs no allocation for it. The host never reads or writes the storage
/// as a property: only this handle does, atomically.
@usableFromInline
package struct OnceFlag {
  @usableFromInline let word: CoreAtomic<Bool>

  @inlinable @inline(__always)
  init(_ storage: UnsafeMutablePointer<OnceFlagStorage>) {
    word = CoreAtomic(UnsafeMutableRawPointer(storage).assumingMemoryBound(to: CoreAtomicStorage<Bool>.self))
  }

  /// Takes the flag: `true` for the first caller only, `false` for every later one.
  @inlinable @inline(__always)
  package func take() -> Bool {
    !word.exchange(true, ordering: .acquiringAndReleasing)
  }

  /// Whether the flag was taken.
  @inlinable @inline(__always)
  package var isTaken: Bool {
    word.load(ordering: .acquiring)
  }
}

/// The storage of a ``OnceFlag``, not taken when created: the first stored property of its
/// ``OnceFlagHost``.
@usableFromInline
package struct OnceFlagStorage {
  @usableFromInline var taken = CoreAtomicStorage<Bool>(false)

  /// A flag not taken.
  @inlinable package init() {}
}

/// An object that hosts a ``OnceFlag`` inline: its **first stored property** is a
/// ``OnceFlagStorage``. Every initializer checks, once the properties are set,
/// `precondition(hostsOnceFlag(at: &onceStorage), ...)` (see ``CoreLockHost`` for why).
@usableFromInline
package protocol OnceFlagHost: AnyObject {}

extension OnceFlagHost {
  /// The flag this object hosts.
  @inlinable @inline(__always)
  package var onceFlag: OnceFlag {
    OnceFlag(firstStoredProperty(of: self, as: OnceFlagStorage.self))
  }

  /// Whether `storage`, the host's ``OnceFlagStorage`` property, is where ``onceFlag`` looks.
  @inlinable @inline(__always)
  package func hostsOnceFlag(at storage: inout OnceFlagStorage) -> Bool {
    withUnsafeMutablePointer(to: &storage) { $0 == firstStoredProperty(of: self, as: OnceFlagStorage.self) }
  }
}
