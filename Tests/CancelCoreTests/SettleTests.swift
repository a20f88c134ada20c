import CancelCore
import Dispatch
import Foundation
import TestSupport
import Testing

@Suite("Settle-once values (the promise and future core)")
struct SettleTests {
  @Test func settlesOnceAndTheFirstValueWins() {
    let cell = SettleCell<Int>()
    #expect(cell.settle(1))
    #expect(!cell.settle(2))
    #expect(cell.value == 1)
  }

  @Test func callbacksRunOnceInRegistrationOrderOnTheSettlingThread() {
    let cell = SettleCell<Int>()
    let seen = Recorder<String>()
    for name in ["a", "b", "c", "d"] { cell.observe { seen.record("\(name)\($0)") } }
    let thread = currentThreadID()
    let threads = Recorder<UInt>()
    cell.observe { _ in threads.record(currentThreadID()) }
    cell.settle(7)
    cell.settle(8)
    #expect(seen.values == ["a7", "b7", "c7", "d7"])
    #expect(threads.values == [thread])
  }

  @Test func observingAfterDeliveryRunsAtOnce() {
    let cell = SettleCell<Int>(settled: 3)
    let seen = Recorder<Int>()
    let key = cell.observe { seen.record($0) }
    #expect(seen.values == [3])
    #expect(key == nil)
  }

  @Test func callbacksObservedDuringDeliveryQueueBehindTheRest() {
    let cell = SettleCell<Int>()
    let seen = Recorder<String>()
    cell.observe { _ in
      seen.record("first")
      cell.observe { _ in seen.record("added-during-delivery") }
    }
    cell.observe { _ in seen.record("second") }
    cell.settle(1)
    #expect(seen.values == ["first", "second", "added-during-delivery"])
  }

  @Test func removedCallbacksNeverRunAndRemovalAfterDeliveryFails() {
    let cell = SettleCell<Int>()
    let seen = Recorder<Int>()
    let removed = cell.observe { _ in seen.record(1) }!
    let kept = cell.observe { _ in seen.record(2) }!
    #expect(cell.remove(removed))
    #expect(!cell.remove(removed))
    cell.settle(0)
    #expect(!cell.remove(kept))
    #expect(seen.values == [2])
  }

  @Test func removeUnlessLastKeepsTheLastCallback() {
    let cell = SettleCell<Int>()
    let first = cell.observe { _ in }!
    let second = cell.observe { _ in }!
    guard case .removed = cell.removeUnlessLast(first) else {
      Issue.record("expected removal while another callback waits")
      return
    }
    guard case .isLast = cell.removeUnlessLast(second) else {
      Issue.record("expected the last callback to stay")
      return
    }
    guard case .notWaiting = cell.removeUnlessLast(first) else {
      Issue.record("expected a removed callback to be reported as not waiting")
      return
    }
    #expect(cell.waitingCount == 1)
  }

  @Test func aHundredThousandDeepSynchronousChainDoesNotOverflowTheStack() async {
    let depth = 100_000
    let cells = (0...depth).map { _ in SettleCell<Int>() }
    for index in 0..<depth {
      let next = cells[index + 1]
      cells[index].observe { next.settle($0 + 1) }
    }
    // Run on a thread with a small stack, where even a few thousand nested frames would crash.
    await onSmallStack(256 << 10) {
      cells[0].settle(0)
    }
    #expect(cells[depth].value == depth)
  }

  @Test func nestedSettlesRunAfterTheCurrentCallbackInOrder() {
    let outer = SettleCell<Int>()
    let inner = SettleCell<Int>()
    let seen = Recorder<String>()
    inner.observe { _ in seen.record("inner") }
    outer.observe { _ in
      inner.settle(1)
      seen.record("outer-1 after settling inner")
    }
    outer.observe { _ in seen.record("outer-2") }
    outer.settle(0)
    #expect(seen.values == ["outer-1 after settling inner", "outer-2", "inner"])
    #expect(inner.value == 1)
  }

  @Test func settleRacingObserveDeliversEveryCallbackExactlyOnce() {
    final class Probe: Sendable {
      let cell = SettleCell<Int>()
      let ran = Counter()
    }
    race(iterations: Stress.iterations(100_000)) { () -> Probe in
      let probe = Probe()
      probe.cell.observe { _ in probe.ran.increment() }
      return probe
    } _: { probe in
      probe.cell.settle(1)
    } _: { probe in
      probe.cell.observe { _ in probe.ran.increment() }
      probe.cell.observe { _ in probe.ran.increment() }
    } check: { probe in
      #expect(probe.ran.value == 3)
      #expect(probe.cell.waitingCount == 0)
    }
  }
}

@Suite("Registration table")
struct RegistrationTableTests {
  @Test func drainsOldestFirstOrNewestFirstDespiteSlotReuse() {
    var table = RegistrationTable<Int>()
    var keys: [RegistrationKey] = []
    for value in 0..<10 { keys.append(table.insert(value)) }
    for index in [0, 3, 5] { #expect(table.remove(keys[index]) == index) }
    _ = table.insert(10)
    _ = table.insert(11)
    #expect(table.count == 9)
    var oldestFirst = table.drain()
    var order: [Int] = []
    while let value = oldestFirst.popOldest() { order.append(value) }
    #expect(order == [1, 2, 4, 6, 7, 8, 9, 10, 11])
    #expect(table.count == 0)
  }

  @Test func staleKeysRemoveNothing() {
    var table = RegistrationTable<String>()
    let first = table.insert("a")
    _ = table.insert("b")
    let middle = table.insert("c")
    _ = table.insert("d")
    #expect(table.remove(middle) == "c")
    _ = table.insert("e")  // reuses the middle slot
    #expect(table.remove(middle) == nil)
    #expect(table.remove(first) == "a")
    #expect(table.remove(first) == nil)
    var drained = table.drain()
    var newestFirst: [String] = []
    while let value = drained.popNewest() { newestFirst.append(value) }
    #expect(newestFirst == ["e", "d", "b"])
  }
}

@Suite("Settle state machine")
struct SettleStateMachineTests {
  private typealias Machine = SettleStateMachine<Int, String>

  private static func key(_ action: SettleStateMachine<Int, String>.ObserveAction) -> RegistrationKey? {
    guard case .queued(let key) = action else {
      Issue.record("expected the callback to wait")
      return nil
    }
    return key
  }

  private static func delivered<Value>(_ machine: inout SettleStateMachine<Value, String>) -> [String] {
    var seen: [String] = []
    while let callbacks = machine.takeNextCallbacks() {
      switch callbacks {
      case .one(let callback): seen.append(callback)
      case .many(var batch):
        while let callback = batch.popOldest() { seen.append(callback) }
      }
    }
    return seen
  }

  @Test func deliversInRegistrationOrderAfterRemovalsAndReuse() {
    var machine = Machine()
    guard let a = Self.key(machine.observe("a")), let b = Self.key(machine.observe("b")) else { return }
    _ = machine.observe("c")
    #expect(machine.remove(a) == "a")
    #expect(machine.remove(b) == "b")
    _ = machine.observe("d")  // the inline slot stays free while others wait
    #expect(machine.waitingCount == 2)
    guard case .deliver = machine.settle(1) else {
      Issue.record("expected a delivery")
      return
    }
    #expect(Self.delivered(&machine) == ["c", "d"])
    #expect(machine.isSettled && machine.value == 1 && machine.waitingCount == 0)
    guard case .runNow("e", 1) = machine.observe("e") else {
      Issue.record("expected the callback to run now")
      return
    }
  }

  @Test func staleKeysRemoveNothing() {
    var machine = Machine()
    guard let first = Self.key(machine.observe("a")) else { return }
    #expect(machine.remove(first) == "a")
    // The inline slot again, with a new tag.
    guard let second = Self.key(machine.observe("b")) else { return }
    #expect(machine.remove(first) == nil)
    #expect(machine.contains(second))
    guard let overflow = Self.key(machine.observe("c")) else { return }
    #expect(machine.remove(overflow) == "c")
    #expect(machine.remove(overflow) == nil)
    #expect(machine.waitingCount == 1)
  }

  @Test func removeUnlessLastKeepsTheOnlyCallback() {
    var machine = Machine()
    guard let a = Self.key(machine.observe("a")), let b = Self.key(machine.observe("b")) else { return }
    guard case .removed("b") = machine.removeUnlessLast(b) else {
      Issue.record("expected removal")
      return
    }
    guard case .isLast = machine.removeUnlessLast(a) else {
      Issue.record("expected the last callback to stay")
      return
    }
    guard case .notWaiting = machine.removeUnlessLast(b) else {
      Issue.record("expected a stale key")
      return
    }
  }

  /// A host that stores its value itself (a promise) runs the same rules with a `Void` value.
  @Test func aHostKeepingItsOwnValueSettlesOnceAndDeliversInOrder() {
    var machine = SettleStateMachine<Void, String>()
    _ = machine.observe("a")
    guard let removable = Self.voidKey(machine.observe("b")) else { return }
    _ = machine.observe("c")
    #expect(machine.remove(removable) == "b")
    guard case .deliver = machine.settle(()), case .alreadySettled = machine.settle(()) else {
      Issue.record("expected one settle, then none")
      return
    }
    #expect(Self.delivered(&machine) == ["a", "c"])
    guard case .runNow("d", _) = machine.observe("d") else {
      Issue.record("expected the callback to run now")
      return
    }
  }

  private static func voidKey(_ action: SettleStateMachine<Void, String>.ObserveAction) -> RegistrationKey? {
    guard case .queued(let key) = action else { return nil }
    return key
  }

  @Test func callbacksOfferedDuringDeliveryQueueBehind() {
    var machine = Machine()
    _ = machine.observe("a")
    _ = machine.settle(1)
    guard case .one("a") = machine.takeNextCallbacks() else {
      Issue.record("expected the first callback")
      return
    }
    _ = Self.key(machine.observe("b"))
    _ = Self.key(machine.observe("c"))
    #expect(Self.delivered(&machine) == ["b", "c"])
  }
}
