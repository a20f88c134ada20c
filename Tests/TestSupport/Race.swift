import Atomics
import CancelCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Scales stress-test iteration counts.
///
/// Set `STRESS_DIVISOR` (for example to 20 under `--sanitize=thread`) to run fewer iterations;
/// a test never runs fewer than `minimum` (at least 1), so no stress test ever becomes a no-op.
public enum Stress {
  /// The divisor read from `STRESS_DIVISOR`, 1 when unset or invalid.
  public static let divisor: Int = {
    guard let text = ProcessInfo.processInfo.environment["STRESS_DIVISOR"], let value = Int(text), value > 0 else {
      return 1
    }
    return value
  }()

  /// Whether `STRESS_FULL_SIZE=1` asks for the full sizes an issue names even where a test runs a
  /// smaller default in the everyday `swift test` (CI sets it for a release-build run of those
  /// tests, where the full size takes minutes instead of half an hour).
  public static let fullSize: Bool = ProcessInfo.processInfo.environment["STRESS_FULL_SIZE"] == "1"

  /// `full` divided by ``divisor``, but never below `minimum` nor below 1.
  public static func iterations(_ full: Int, minimum: Int = 1_000) -> Int {
    max(full / divisor, min(minimum, full), 1)
  }
}

/// Races `first` against `second` on two threads, `iterations` times.
///
/// Each iteration makes a fresh value with `setup`, releases both threads at the same moment (a
/// spinning barrier, so neither has a head start of a thread wake-up), waits for both, then calls
/// `check` on the calling thread. The second thread is a dedicated `Thread`, so the two really run
/// in parallel on a two-core machine. A thread that has spun for a while without the other one
/// arriving sleeps until it does: on a machine whose cores are busy with other work the other
/// thread may not be running at all, and spinning would starve it. Yielding would too: Linux's
/// scheduler hands a yielding thread's core to the busy work, not to the thread it waits for, so a
/// wait that yields lasts as many time slices as it yields.
public func race<State: Sendable>(
  iterations: Int,
  setup: () -> State,
  _ first: @escaping @Sendable (State) -> Void,
  _ second: @escaping @Sendable (State) -> Void,
  check: (State) -> Void
) {
  let mailbox = Mailbox<State>()
  let worker = Thread {
    for iteration in 1...iterations {
      mailbox.waitUntil(mailbox.go, reaches: iteration)
      second(mailbox.value!)
      mailbox.publish(mailbox.done, iteration)
    }
  }
  worker.stackSize = 1 << 20
  worker.start()
  for iteration in 1...iterations {
    let state = setup()
    mailbox.value = state
    mailbox.publish(mailbox.go, iteration)
    first(state)
    mailbox.waitUntil(mailbox.done, reaches: iteration)
    mailbox.value = nil
    check(state)
  }
}

/// The hand-off between the two racing threads.
//
// Safety of `@unchecked Sendable`: `value` is written by the driving thread before it publishes
// the iteration number with a releasing store to `go`, and read by the worker only after an
// acquiring load of `go` shows that number; it is cleared only after `done` shows the worker
// finished with it. `condition` guards the sleeping waiters (see `publish` and `waitUntil`).
private final class Mailbox<State>: @unchecked Sendable {
  let go = ManagedAtomic<Int>(0)
  let done = ManagedAtomic<Int>(0)
  var value: State?
  /// The number of threads asleep in `waitUntil` (or about to be).
  private let sleepers = ManagedAtomic<Int>(0)
  private let condition = NSCondition()

  /// Stores `value` in `counter` and wakes a thread asleep waiting for it. The store and the
  /// sleepers' count are sequentially consistent, as the waiter's count and load are, so either the
  /// waiter sees the new value before it sleeps or this call sees the waiter and wakes it (under
  /// the condition's lock, which the waiter holds from counting itself until it sleeps).
  func publish(_ counter: ManagedAtomic<Int>, _ value: Int) {
    counter.store(value, ordering: .sequentiallyConsistent)
    if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
      condition.lock()
      condition.broadcast()
      condition.unlock()
    }
  }

  /// Returns once `counter` reaches `target`: spinning first (so both threads start together when
  /// both are running), then asleep until `publish` wakes it (never yielding: see ``race``).
  func waitUntil(_ counter: ManagedAtomic<Int>, reaches target: Int) {
    var spins = 0
    while counter.load(ordering: .acquiring) < target {
      spins += 1
      if spins > 4_000 {
        condition.lock()
        sleepers.wrappingIncrement(ordering: .sequentiallyConsistent)
        while counter.load(ordering: .sequentiallyConsistent) < target { condition.wait() }
        sleepers.wrappingDecrement(ordering: .sequentiallyConsistent)
        condition.unlock()
        return
      }
    }
  }
}

/// Counts events from any thread (for "ran exactly once" assertions).
public final class Counter: Sendable {
  private let storage = ManagedAtomic<Int>(0)

  /// A counter at zero.
  public init() {}

  /// Adds one.
  public func increment() { storage.wrappingIncrement(by: 1, ordering: .relaxed) }

  /// The count so far.
  public var value: Int { storage.load(ordering: .acquiring) }
}

/// Records values in order from any thread.
///
/// It uses the core's `CoreLock` rather than `Mutex`: on Linux `Mutex` synchronizes through raw
/// futex calls that ThreadSanitizer cannot see, so it would report false races.
public final class Recorder<Value: Sendable>: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `storage` is read and written only inside `lock.withLock`.
  private var storage: [Value] = []

  /// An empty recorder.
  public init() {
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Appends `value`.
  public func record(_ value: Value) { lock.withLock { storage.append(value) } }

  /// Everything recorded, in order.
  public var values: [Value] { lock.withLock { storage } }
}

/// A value guarded by the core's `CoreLock`, for tests (the package does not use `Mutex`, which
/// needs macOS 15 / iOS 18; see docs/platforms.md).
public final class Locked<Value>: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `value` is read and written only inside `lock.withLock`.
  private var value: Value

  /// A box holding `value`.
  public init(_ value: Value) {
    self.value = value
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Runs `body` on the value with the lock held; `body` must not take this lock again.
  public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.withLock { body(&value) }
  }
}

/// An object to capture in closures, whose deallocation a `weak` reference can observe.
public final class Tracked: Sendable {
  /// A fresh object.
  public init() {}
}

/// The calling thread's identity, comparable across threads.
public func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}
