#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The executor whose block the calling thread is running, for ``Executor/current``.
///
/// A thread-local slot: only its own thread reads or writes it, so it needs no synchronization.
enum ExecutorContext {
  /// The box stored in the slot.
  private final class Box {
    let executor: Executor
    init(_ executor: Executor) { self.executor = executor }
  }

  /// The executor running the calling code, if a block of an executor is running on this thread.
  static var current: Executor? {
    guard let pointer = pthread_getspecific(executorKey) else { return nil }
    return Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue().executor
  }

  /// Runs `work` with `executor` as this thread's current executor, then restores the previous
  /// one.
  static func run(_ executor: Executor, _ work: () -> Void) {
    let previous = pthread_getspecific(executorKey)
    let box = Unmanaged.passRetained(Box(executor))
    pthread_setspecific(executorKey, box.toOpaque())
    defer {
      pthread_setspecific(executorKey, previous)
      box.release()
    }
    work()
  }
}

/// The slot; values are unretained while set (`run` keeps its box alive), so no destructor.
private let executorKey: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key, nil)
  precondition(status == 0, "pthread_key_create failed: \(status)")
  return key
}()
