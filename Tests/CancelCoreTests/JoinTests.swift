import CancelCore
import Foundation
import TestSupport
import Testing

@Suite("Join: state machine")
struct JoinStateMachineTests {
  typealias Machine = CancelJoinStateMachine

  @Test func anyCancelledIsDecidedByTheFirstCancellation() {
    var machine = Machine(rule: .anyCancelled, operandCount: 3)
    #expect(machine.operandCompleted(0, cancelled: false) == nil)
    let leftovers = machine.operandCompleted(2, cancelled: true)
    #expect(leftovers != nil)
    #expect(machine.takeDecision() == Machine.Decision(cancelled: true, operand: 2))
    #expect(machine.takeDecision() == nil, "taken once")
    #expect(machine.operandCompleted(1, cancelled: true) == nil, "decided once")
  }

  @Test func anyCancelledClosesWhenTheLastOperandCompletesWithoutCancellation() {
    var machine = Machine(rule: .anyCancelled, operandCount: 2)
    #expect(machine.operandCompleted(1, cancelled: false) == nil)
    #expect(machine.operandCompleted(0, cancelled: false) != nil)
    #expect(machine.takeDecision() == Machine.Decision(cancelled: false, operand: 0))
  }

  @Test func allCancelledIsCancelledByTheLastCancellationAndClosedByAnyCompletion() {
    var cancelled = Machine(rule: .allCancelled, operandCount: 2)
    #expect(cancelled.operandCompleted(0, cancelled: true) == nil)
    #expect(cancelled.operandCompleted(1, cancelled: true) != nil)
    #expect(cancelled.takeDecision() == Machine.Decision(cancelled: true, operand: 1))

    var closed = Machine(rule: .allCancelled, operandCount: 2)
    #expect(closed.operandCompleted(1, cancelled: false) != nil)
    #expect(closed.takeDecision() == Machine.Decision(cancelled: false, operand: 1))
  }

  @Test func theDecisionHandsBackTheWatchesStillWaiting() {
    let sources = (0..<3).map { _ in CancelSource() }
    var machine = Machine(rule: .anyCancelled, operandCount: 3)
    for (index, source) in sources.enumerated() {
      #expect(machine.adopt(source.signal.onComplete { _ in }, operand: index) == nil)
    }
    let leftovers = machine.operandCompleted(1, cancelled: true)
    #expect(leftovers?.count == 2, "operand 1's watch ran; 0 and 2 still wait")
    leftovers?.unregisterAll()
    #expect(sources[0].signal.storage.registrationCount == 0)
    #expect(sources[2].signal.storage.registrationCount == 0)
    #expect(sources[1].signal.storage.registrationCount == 1, "its handler is the one running")
    // The sources must outlive the checks: in a release build the array may otherwise be freed as
    // soon as the last check took its signal, and a freed `CancelSource` closes its source.
    withExtendedLifetime(sources) {}
  }

  @Test func aHandleAdoptedAfterTheDecisionIsHandedBackAndOneThatRanIsIgnored() {
    let source = CancelSource()
    var machine = Machine(rule: .anyCancelled, operandCount: 2)
    #expect(machine.operandCompleted(0, cancelled: true) != nil)
    let late = source.signal.onComplete { _ in }
    #expect(machine.adopt(late, operand: 1) != nil, "decided: remove it")
    var ran = Machine(rule: .anyCancelled, operandCount: 2)
    #expect(ran.operandCompleted(0, cancelled: false) == nil)
    #expect(ran.adopt(late, operand: 0) == nil, "its handler already ran: nothing to remove")
  }
}

@Suite("Join: sources")
struct JoinTests {
  /// The join of `rule` over fresh sources, each ended as `outcomes` says after joining
  /// (`nil` = left active). Returns whether the result is cancelled, `nil` if still active.
  static func joined(_ rule: CancelJoinStateMachine.Rule, _ outcomes: [Bool?]) -> Bool?? {
    let sources = outcomes.map { _ in CancelSource() }
    let result = CancelJoin.join(rule, sources.map(\.signal.storage))
    for (source, outcome) in zip(sources, outcomes) {
      switch outcome {
      case true?: source.cancel()
      case false?: source.close()
      case nil: break
      }
    }
    defer { withExtendedLifetime(sources) {} }
    return result.isCompleted ? .some(result.isCancelled) : .none
  }

  @Test func anyCancelledFollowsItsRuleForThreeOperands() {
    #expect(Self.joined(.anyCancelled, [nil, true, nil]) == .some(true))
    #expect(Self.joined(.anyCancelled, [false, false, nil]) == .none)
    #expect(Self.joined(.anyCancelled, [false, false, false]) == .some(false))
    #expect(Self.joined(.anyCancelled, [false, true, false]) == .some(true))
  }

  @Test func allCancelledFollowsItsRuleForThreeOperands() {
    #expect(Self.joined(.allCancelled, [true, true, nil]) == .none)
    #expect(Self.joined(.allCancelled, [true, true, true]) == .some(true))
    #expect(Self.joined(.allCancelled, [nil, false, nil]) == .some(false))
    #expect(Self.joined(.allCancelled, [true, false, true]) == .some(false))
  }

  @Test func theResultCarriesTheDecidingOperandsReason() {
    struct First: Error {}
    struct Second: Error {}
    let a = CancelSource()
    let b = CancelSource()
    let any = CancelJoin.join(.anyCancelled, a.signal.storage, b.signal.storage)
    let all = CancelJoin.join(.allCancelled, a.signal.storage, b.signal.storage)
    b.cancel(reason: Second())
    a.cancel(reason: First())
    #expect(any.reason is Second, "anyCancelled: the first cancellation")
    #expect(all.reason is First, "allCancelled: the last cancellation")
  }

  @Test func aDecidedJoinLeavesNoHandlerInAnyOperand() {
    let longLived = CancelSource()
    for _ in 0..<1_000 {
      let shortLived = CancelSource()
      let result = CancelJoin.join(.anyCancelled, longLived.signal.storage, shortLived.signal.storage)
      shortLived.cancel()
      #expect(result.isCancelled)
    }
    #expect(longLived.signal.storage.registrationCount == 0)
  }

  @Test func aResultDroppedWhilePendingIsFreedOnceDecided() {
    var a: CancelSource? = CancelSource()
    var b: CancelSource? = CancelSource()
    weak var weakResult: CancelStorage?
    let completions = Recorder<Bool>()
    do {
      let result = CancelJoin.join(.allCancelled, a!.signal.storage, b!.signal.storage)
      weakResult = result
      _ = result.register(.onComplete { completions.record($0) })
    }
    #expect(weakResult != nil)
    a = nil
    #expect(completions.values == [false])
    #expect(weakResult == nil)
    b = nil
    withExtendedLifetime((a, b)) {}
  }

  @Test func joiningEndedSourcesDecidesAtOnce() {
    let cancelled = CancelSource()
    cancelled.cancel()
    let closed = CancelSource()
    closed.close()
    #expect(CancelJoin.join(.anyCancelled, closed.signal.storage, cancelled.signal.storage).isCancelled)
    let both = CancelJoin.join(.allCancelled, cancelled.signal.storage, closed.signal.storage)
    #expect(both.isCompleted && !both.isCancelled)
  }

  @Test func anOperandThatDecidesWhileJoiningLeavesNothingInTheOthers() {
    let cancelled = CancelSource()
    cancelled.cancel()
    let pending = CancelSource()
    let result = CancelJoin.join(.anyCancelled, cancelled.signal.storage, pending.signal.storage)
    #expect(result.isCancelled)
    #expect(pending.signal.storage.registrationCount == 0, "registered after the decision, then removed")
    let many = CancelJoin.join(.anyCancelled, [cancelled, pending, CancelSource()].map(\.signal.storage))
    #expect(many.isCancelled)
    #expect(pending.signal.storage.registrationCount == 0)
  }

  @Test func nestedJoinsCompleteInConstantStack() async {
    let sources = (0..<100_000).map { _ in CancelSource() }
    let last = sources.dropFirst().reduce(sources[0].signal.storage) {
      CancelJoin.join(.anyCancelled, $0, $1.signal.storage)
    }
    await onSmallStack {
      sources[0].cancel()
    }
    #expect(last.isCancelled)
  }

  final class Pair: Sendable {
    let a = CancelSource()
    let b = CancelSource()
    let result: CancelStorage
    let outcomes = Recorder<Bool>()
    init(_ rule: CancelJoinStateMachine.Rule) {
      result = CancelJoin.join(rule, a.signal.storage, b.signal.storage)
      let outcomes = outcomes
      _ = result.register(.onComplete { outcomes.record($0) })
    }
  }

  @Test(arguments: [CancelJoinStateMachine.Rule.anyCancelled, .allCancelled])
  func operandsEndingOnTwoThreadsDecideExactlyOnce(rule: CancelJoinStateMachine.Rule) {
    // The outcome that needs both operands is the one a pair of unsynchronized checks could miss.
    let countedOutcomeCancels = rule == .allCancelled
    race(iterations: Stress.iterations(100_000)) {
      Pair(rule)
    } _: { pair in
      if countedOutcomeCancels { pair.a.cancel() } else { pair.a.close() }
    } _: { pair in
      if countedOutcomeCancels { pair.b.cancel() } else { pair.b.close() }
    } check: { pair in
      #expect(pair.outcomes.values == [countedOutcomeCancels])
      #expect(pair.a.signal.storage.registrationCount == 0 && pair.b.signal.storage.registrationCount == 0)
    }
  }
}
