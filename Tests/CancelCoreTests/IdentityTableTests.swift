import CancelCore
import TestSupport
import Testing

@Suite("IdentityTable: one shared object per live key")
struct IdentityTableTests {
  final class Shared: Sendable {}

  @Test func theFirstCallMakesTheSharedObjectAndLaterCallsJoinIt() {
    let table = IdentityTable<Shared>()
    let key = Tracked()
    let first = table.shared(for: key) { Shared() }
    let second = table.shared(for: key) { Shared() }
    #expect(first.isNew && !second.isNew)
    #expect(first.shared === second.shared)
    #expect(table.existing(for: key) === first.shared)
    #expect(table.existing(for: Tracked()) == nil)
  }

  @Test func removingTakesOnlyTheEntryThatStillHoldsTheGivenObject() {
    let table = IdentityTable<Shared>()
    let key = Tracked()
    let first = table.shared(for: key) { Shared() }.shared
    table.remove(ObjectIdentifier(key), ifShared: Shared())  // another object: nothing happens
    #expect(table.existing(for: key) === first)
    table.remove(ObjectIdentifier(key), ifShared: first)
    #expect(table.existing(for: key) == nil)
    let next = table.shared(for: key) { Shared() }
    #expect(next.isNew && next.shared !== first)
    table.remove(ObjectIdentifier(key), ifShared: first)  // a late remove of the old one
    #expect(table.existing(for: key) === next.shared)
  }

  @Test func entriesOfFreedKeysAreDroppedAsTheTableGrowsAndTheirObjectsReleased() {
    let table = IdentityTable<Shared>()
    var released: [WeakBox<Shared>] = []
    for _ in 0..<1_000 {
      let key = Tracked()  // freed at the end of each turn, never removed
      let shared = table.shared(for: key) { Shared() }.shared
      released.append(WeakBox(shared))
    }
    // Only the table keeps the objects, so the live ones are those of the entries left: fewer than
    // 128 of 1,000. Which turns they are depends on the allocator: a new key often gets the
    // address of the key freed just before and so takes over its entry at once, but an entry whose
    // address is not reused stays until the table grows to its next prune, which a small table
    // may never reach.
    #expect(table.count < 128)
    let alive = released.enumerated().filter { $0.element.value != nil }.map(\.offset)
    #expect(alive.count <= table.count, "still alive: turns \(alive), table \(table.count)")
  }
}
