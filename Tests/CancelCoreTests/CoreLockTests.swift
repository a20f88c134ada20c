import CancelCore
import Foundation
import TestSupport
import Testing

/// A host laid out as every host must be: the lock's storage first.
private final class WellLaidOutHost: CoreLockHost, @unchecked Sendable {
  @exclusivity(unchecked) var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `count` is read and written only inside `lock.withLock`.
  var count = 0
}

/// A host that breaks the rule: another field comes first.
private final class MisplacedLockHost: CoreLockHost, @unchecked Sendable {
  var first = 0
  @exclusivity(unchecked) var lockStorage = CoreLockStorage()
}

/// Holds the atomics the core uses, for the tests of their operations.
private final class AtomicsHost: @unchecked Sendable {
  var storage = CoreAtomicStorage<UInt>(7)
  var value: CoreAtomic<UInt> { CoreAtomic(firstStoredProperty(of: self, as: CoreAtomicStorage<UInt>.self)) }
}

@Suite("CoreLock and the core's atomics (no Synchronization module)")
struct CoreLockTests {
  @Test func aHostChecksWhereItsLockIs() {
    let good = WellLaidOutHost()
    #expect(good.hostsLock(at: &good.lockStorage))
    let bad = MisplacedLockHost()
    #expect(!bad.hostsLock(at: &bad.lockStorage))
  }

  @Test func theLockExcludesAcrossThreads() async {
    let host = WellLaidOutHost()
    let perThread = Stress.iterations(200_000, minimum: 10_000)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask { for _ in 0..<perThread { host.lock.withLock { host.count += 1 } } }
      }
    }
    #expect(host.lock.withLock { host.count } == 2 * perThread)
  }

  @Test func theLockPassesThrownErrorsThrough() {
    struct Failure: Error {}
    let host = WellLaidOutHost()
    #expect(throws: Failure.self) { try host.lock.withLock { () throws(Failure) -> Void in throw Failure() } }
    // Unlocked again: this would spin forever otherwise.
    #expect(host.lock.withLock { 1 } == 1)
  }

  @Test func atomicOperationsReturnWhatTheStandardLibrarysAtomicWould() {
    let host = AtomicsHost()
    #expect(host.value.load(ordering: .relaxed) == 7)
    host.value.store(8, ordering: .releasing)
    #expect(host.value.load(ordering: .acquiring) == 8)
    #expect(host.value.exchange(9, ordering: .acquiringAndReleasing) == 8)
    let failed = host.value.compareExchange(expected: 1, desired: 2, ordering: .acquiring)
    #expect(!failed.exchanged && failed.original == 9)
    let succeeded = host.value.compareExchange(expected: 9, desired: 10, ordering: .relaxed)
    #expect(succeeded.exchanged && succeeded.original == 9)
    #expect(host.value.load(ordering: .relaxed) == 10)
  }
}
