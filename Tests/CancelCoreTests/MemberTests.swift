import CancelCore
import TestSupport
import Testing

/// A member that records what its source did to it.
private final class TestMember: _CancelMember, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the only own state is immutable (`owner`, `log`, `name`);
  // the inherited links are the core's.

  /// Keeps the source alive, as `_CancelMember` requires of its subclasses.
  let owner: CancelStorage
  let log: Recorder<String>
  let name: String
  let cancels = Counter()

  init(_ name: String, of storage: CancelStorage, log: Recorder<String>) {
    owner = storage
    self.log = log
    self.name = name
    super.init(source: Unmanaged.passUnretained(storage)) { member, reason in
      let member = member as! TestMember
      member.cancels.increment()
      member.log.record("\(member.name) cancelled: \(reason)")
    }
  }
}

private struct Reason: Error, CustomStringConvertible {
  var description: String { "reason" }
}

@Suite("Members of a source")
struct MemberTests {
  @Test func membersAreCancelledAfterTheHandlersOldestFirst() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    let first = TestMember("first", of: storage, log: log)
    let second = TestMember("second", of: storage, log: log)
    #expect(storage.addMember(first))
    _ = storage.register(.onCancel { log.record("handler") })
    #expect(storage.addMember(second))
    #expect(storage.memberCount == 2)
    #expect(storage.cancel(reason: Reason()))
    #expect(log.values == ["handler", "first cancelled: reason", "second cancelled: reason"])
    #expect(storage.memberCount == 0)
    #expect(!storage.cancel(reason: Reason()), "a second cancel changes nothing")
    #expect(first.cancels.value == 1 && second.cancels.value == 1)
  }

  @Test func aMemberThatLeftIsNeitherCancelledNorKept() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    let members = (0..<4).map { TestMember("m\($0)", of: storage, log: log) }
    for member in members { storage.addMember(member) }
    // Leaving from the middle, the newest end and the oldest end keeps the list intact.
    storage.removeMember(members[1])
    storage.removeMember(members[3])
    storage.removeMember(members[0])
    storage.removeMember(members[0])  // leaving twice is harmless
    #expect(storage.memberCount == 1)
    _ = storage.cancel(reason: Reason())
    #expect(log.values == ["m2 cancelled: reason"])
  }

  @Test func aMemberAddedToACancelledSourceIsCancelledAtOnce() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    _ = storage.cancel(reason: Reason())
    let member = TestMember("late", of: storage, log: log)
    #expect(!storage.addMember(member), "it does not wait")
    #expect(log.values == ["late cancelled: reason"])
    #expect(storage.memberCount == 0)
  }

  @Test func closingReleasesTheMembersWithoutCancellingThem() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    weak var weakMember: TestMember?
    do {
      let member = TestMember("member", of: storage, log: log)
      weakMember = member
      storage.addMember(member)
    }
    #expect(weakMember != nil, "a waiting member is kept by its source")
    #expect(storage.close())
    #expect(weakMember == nil)
    #expect(log.values.isEmpty)
    let late = TestMember("late", of: storage, log: log)
    #expect(!storage.addMember(late), "a closed source takes no member")
    #expect(late.cancels.value == 0)
  }

  @Test func aLinkedChildsMembersAreCancelledWithTheParent() {
    let parent = CancelStorage()
    let child = CancelStorage()
    let log = Recorder<String>()
    #expect(child.link(to: parent))
    let parentMember = TestMember("parent's", of: parent, log: log)
    let childMember = TestMember("child's", of: child, log: log)
    parent.addMember(parentMember)
    child.addMember(childMember)
    _ = parent.cancel(reason: Reason())
    #expect(log.values == ["child's cancelled: reason", "parent's cancelled: reason"])
  }

  @Test func aLongListIsCancelledAndFreedWithoutRecursion() async {
    let storage = CancelStorage()
    let log = Recorder<String>()
    let count = 200_000
    weak var weakFirst: TestMember?
    let cancels = Counter()
    do {
      for index in 0..<count {
        let member = TestMember("m\(index)", of: storage, log: log)
        if index == 0 { weakFirst = member }
        storage.addMember(member)
      }
    }
    _ = storage.register(.onCancel { cancels.increment() })
    await onSmallStack {
      _ = storage.cancel(reason: CancellationError())
    }
    #expect(weakFirst == nil, "every member was released")
    #expect(log.values.count == count)
    #expect(cancels.value == 1)
  }

  @Test func joiningAndLeavingRaceACancel() {
    // Thread one adds two members and removes the first; thread two cancels. Whatever the
    // interleaving, no member is cancelled twice, the member that stayed is cancelled exactly
    // once, and the one that left is cancelled at most once (only if the cancel took it first).
    race(
      iterations: Stress.iterations(100_000),
      setup: { () -> (CancelStorage, TestMember, TestMember) in
        let storage = CancelStorage()
        let log = Recorder<String>()
        return (storage, TestMember("leaves", of: storage, log: log), TestMember("stays", of: storage, log: log))
      },
      { state in
        let (storage, leaves, stays) = state
        storage.addMember(leaves)
        storage.addMember(stays)
        storage.removeMember(leaves)
      },
      { state in _ = state.0.cancel(reason: Reason()) },
      check: { state in
        let (storage, leaves, stays) = state
        #expect(stays.cancels.value == 1)
        #expect(leaves.cancels.value <= 1)
        #expect(storage.memberCount == 0)
      }
    )
  }
}
