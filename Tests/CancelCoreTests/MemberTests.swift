import CancelCore
import Foundation
import TestSupport
import Testing

/// A member's target that records what its source did to its member.
private final class Recorded: Sendable {
  let log: Recorder<String>
  let name: String
  let cancels = Counter()
  let closes = Counter()

  init(_ name: String, log: Recorder<String>) {
    self.name = name
    self.log = log
  }
}

/// A member of `storage` whose target records its events.
private func makeMember(_ name: String, of storage: CancelStorage, log: Recorder<String>) -> CancelMember {
  CancelMember(source: storage, target: Recorded(name, log: log)) { member, event in
    let target = member.target as! Recorded
    switch event {
    case .cancelled(let reason):
      target.cancels.increment()
      target.log.record("\(target.name) cancelled: \(reason)")
    case .closed:
      target.closes.increment()
    }
  }
}

extension CancelMember {
  fileprivate var cancels: Counter { (target as! Recorded).cancels }
}

private struct Reason: Error, CustomStringConvertible {
  var description: String { "reason" }
}

@Suite("Members of a source")
struct MemberTests {
  @Test func membersAreCancelledAfterTheHandlersOldestFirst() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    let first = makeMember("first", of: storage, log: log)
    let second = makeMember("second", of: storage, log: log)
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
    let members = (0..<4).map { makeMember("m\($0)", of: storage, log: log) }
    for member in members { storage.addMember(member) }
    // Leaving from the middle, the newest end and the oldest end keeps the list intact.
    members[1].leaveSource()
    members[3].leaveSource()
    members[0].leaveSource()
    members[0].leaveSource()  // leaving twice is harmless
    #expect(storage.memberCount == 1)
    _ = storage.cancel(reason: Reason())
    #expect(log.values == ["m2 cancelled: reason"])
  }

  @Test func aMemberAddedToACancelledSourceIsCancelledAtOnce() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    _ = storage.cancel(reason: Reason())
    let member = makeMember("late", of: storage, log: log)
    #expect(!storage.addMember(member), "it does not wait")
    #expect(log.values == ["late cancelled: reason"])
    #expect(storage.memberCount == 0)
  }

  @Test func closingReleasesTheMembersWithoutCancellingThem() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    weak var weakMember: CancelMember?
    do {
      let member = makeMember("member", of: storage, log: log)
      weakMember = member
      storage.addMember(member)
    }
    #expect(weakMember != nil, "a waiting member is kept by its source")
    #expect(storage.close())
    #expect(weakMember == nil)
    #expect(log.values.isEmpty)
    let late = makeMember("late", of: storage, log: log)
    #expect(!storage.addMember(late), "a closed source takes no member")
    #expect(late.cancels.value == 0)
  }

  @Test func aLinkedChildsMembersAreCancelledWithTheParent() {
    let parent = CancelStorage()
    let child = CancelStorage()
    let log = Recorder<String>()
    #expect(child.link(to: parent))
    let parentMember = makeMember("parent's", of: parent, log: log)
    let childMember = makeMember("child's", of: child, log: log)
    parent.addMember(parentMember)
    child.addMember(childMember)
    _ = parent.cancel(reason: Reason())
    #expect(log.values == ["child's cancelled: reason", "parent's cancelled: reason"])
  }

  @Test func aLongListIsCancelledAndFreedWithoutRecursion() async {
    let storage = CancelStorage()
    let log = Recorder<String>()
    let count = 200_000
    weak var weakFirst: CancelMember?
    let cancels = Counter()
    do {
      for index in 0..<count {
        let member = makeMember("m\(index)", of: storage, log: log)
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
      setup: { () -> (CancelStorage, CancelMember, CancelMember) in
        let storage = CancelStorage()
        let log = Recorder<String>()
        return (storage, makeMember("leaves", of: storage, log: log), makeMember("stays", of: storage, log: log))
      },
      { state in
        let (storage, leaves, stays) = state
        storage.addMember(leaves)
        storage.addMember(stays)
        leaves.leaveSource()
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

  @Test func aCloseTellsOnlyTheMembersStillWaitingOnceEach() {
    let storage = CancelStorage()
    let log = Recorder<String>()
    let members = (0..<3).map { makeMember("m\($0)", of: storage, log: log) }
    for member in members { storage.addMember(member) }
    members[0].leaveSource()
    #expect(storage.close())
    #expect(!storage.close(), "a second close changes nothing")
    #expect(members.map { ($0.target as! Recorded).closes.value } == [0, 1, 1], "the member that left is not told")
    let cancelled = CancelStorage()
    let member = makeMember("c", of: cancelled, log: log)
    cancelled.addMember(member)
    _ = cancelled.cancel(reason: Reason())
    _ = cancelled.close()
    #expect((member.target as! Recorded).closes.value == 0, "a cancelled member is not told a close")
  }

  @Test func theGroupRecordsThatTheCancelRejectedAMemberOnce() {
    let storage = CancelStorage()
    #expect(!storage.hasCancelledMember)
    #expect(storage.recordCancelledMember(), "the first record reports it")
    #expect(!storage.recordCancelledMember(), "a second one does not")
    #expect(storage.hasCancelledMember)
    #expect(!storage.isCancelled, "the fact is not a cancel")
    _ = storage.close()
    #expect(storage.hasCancelledMember, "ending the source keeps it")
  }

  @Test func aTargetSettlingOnItsOwnClaimsTheCancelOnlyOnceTheSourceIsCancelled() {
    let storage = CancelStorage()
    #expect(storage.claimCancelReason() == nil, "nothing to claim before a cancel")
    #expect(!storage.hasCancelledMember)
    _ = storage.cancel(reason: Reason())
    #expect(storage.claimCancelReason() is Reason, "the cancel's reason wins")
    #expect(storage.hasCancelledMember, "and the group records that the cancel rejected a member")
  }

  @Test func exactlyOneOfTwoRacingRecordsReportsIt() {
    let winners = Counter()
    race(
      iterations: Stress.iterations(100_000),
      setup: { CancelStorage() },
      { storage in if storage.recordCancelledMember() { winners.increment() } },
      { storage in if storage.recordCancelledMember() { winners.increment() } },
      check: { storage in #expect(storage.hasCancelledMember) }
    )
    #expect(winners.value == Stress.iterations(100_000))
  }

  @Test func aMemberIsOneSmallObject() {
    // Header, source, target, action (two words), the two links and two flags: one allocation
    // per pending promise of a cancellable chain, in the allocator's 80-byte class.
    #expect(instanceSize(of: CancelMember.self) <= 72)
  }

  /// A member whose target refers to it without retaining it must be able to keep, or retain, it
  /// while its source tells it about the close: the closing thread holds it until the action
  /// returned (a member told from its `deinit` instead would be retained while being freed:
  /// "deallocated with non-zero retain count").
  @Test func aCloseTellsAMemberWhileItStillHoldsIt() {
    let storage = CancelStorage()
    let kept = Locked<CancelMember?>(nil)
    do {
      let member = CancelMember(source: storage, target: Recorded("m", log: Recorder<String>())) { member, event in
        guard case .closed = event else { return }
        kept.withLock { $0 = member }  // a retain: safe only while the closing thread holds it
      }
      storage.addMember(member)
    }
    #expect(storage.memberCount == 1)
    #expect(storage.close())
    #expect(kept.withLock { $0 } != nil, "the member was alive when told, and is still")
    #expect(storage.memberCount == 0)
  }
}
