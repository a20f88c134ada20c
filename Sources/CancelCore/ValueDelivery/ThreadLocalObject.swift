#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One object of a class per thread, created on a thread's first use and released when that thread
/// exits: the per-thread queues of `SettleDelivery` and `IterativeRelease`.
struct ThreadLocalObject<Object: AnyObject> {
  private let key: pthread_key_t

  /// A new thread-local slot. Make one per use, in a global: a slot is never deleted.
  init() {
    var key = pthread_key_t()
    // The destructor runs when a thread with an object exits; it releases the slot's reference.
    #if canImport(Darwin)
      let status = pthread_key_create(&key) { pointer in
        Unmanaged<AnyObject>.fromOpaque(pointer).release()
      }
    #else
      let status = pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<AnyObject>.fromOpaque(pointer).release()
      }
    #endif
    precondition(status == 0, "pthread_key_create failed: \(status)")
    self.key = key
  }

  /// The calling thread's object, made by `make` on first use, retained for the caller: for a
  /// caller that hands the object a value it owns, which a closure could only capture in an
  /// optional and take out again.
  @inline(__always)
  func current(make: () -> Object) -> Object {
    if let existing = pthread_getspecific(key) { return Unmanaged<Object>.fromOpaque(existing).takeUnretainedValue() }
    let created = make()
    pthread_setspecific(key, Unmanaged.passRetained(created).toOpaque())
    return created
  }

  /// Calls `body` with the calling thread's object, made by `make` on first use. The slot keeps
  /// the object alive, so `body` borrows it without a retain and release per call.
  @inline(__always)
  func withCurrent(make: () -> Object, _ body: (Object) -> Void) {
    if let existing = pthread_getspecific(key) {
      return Unmanaged<Object>.fromOpaque(existing)._withUnsafeGuaranteedRef(body)
    }
    let created = make()
    pthread_setspecific(key, Unmanaged.passRetained(created).toOpaque())
    body(created)
  }
}
