import TestSupport
import Testing
import Tokens

/// When the operands complete relative to building the derived token.
enum Timing: String, CaseIterable, Sendable {
  /// Both operands reach their outcome before the operator runs.
  case beforeCombining
  /// The derived token exists first; then `lhs`, then `rhs` complete.
  case lhsFirst
  /// The derived token exists first; then `rhs`, then `lhs` complete.
  case rhsFirst
}

/// One cell of a two-operand truth table, at one timing.
struct OperatorCase: Sendable, CustomTestStringConvertible {
  let lhs: Outcome
  let rhs: Outcome
  let timing: Timing

  var testDescription: String { "\(lhs.rawValue) ∘ \(rhs.rawValue), \(timing.rawValue)" }

  static let all: [OperatorCase] = Outcome.allCases.flatMap { lhs in
    Outcome.allCases.flatMap { rhs in Timing.allCases.map { OperatorCase(lhs: lhs, rhs: rhs, timing: $0) } }
  }
}

/// What a derived token did in one truth-table run.
struct Observed {
  let outcome: Outcome
  let reported: [Bool]
  let reason: (any Error)?
}

/// Builds `combine(lhs, rhs)` with the operands completing as `cell` says, and observes it.
func run(_ cell: OperatorCase, _ combine: (CancellationToken, CancellationToken) -> CancellationToken) -> Observed {
  let left = CancellationRequest()
  let right = CancellationRequest()
  let reported = Recorder<Bool>()
  let derived: CancellationToken
  switch cell.timing {
  case .beforeCombining:
    cell.lhs.apply(to: left, reason: LeftReason())
    cell.rhs.apply(to: right, reason: RightReason())
    derived = combine(left.token, right.token)
    derived.onComplete { reported.record($0) }
  case .lhsFirst, .rhsFirst:
    derived = combine(left.token, right.token)
    derived.onComplete { reported.record($0) }
    #expect(!derived.isCompleted, "nothing has completed yet")
    if cell.timing == .lhsFirst {
      cell.lhs.apply(to: left, reason: LeftReason())
      cell.rhs.apply(to: right, reason: RightReason())
    } else {
      cell.rhs.apply(to: right, reason: RightReason())
      cell.lhs.apply(to: left, reason: LeftReason())
    }
  }
  // Read before the requests go away (which would complete pending operands).
  let observed = Observed(outcome: Outcome(of: derived), reported: reported.values, reason: derived.reason)
  withExtendedLifetime((left, right)) {}
  return observed
}

@Suite("&& and ||: truth tables")
struct OperatorTests {
  @Test(arguments: OperatorCase.all)
  func orFollowsItsTruthTable(cell: OperatorCase) {
    let observed = run(cell, ||)
    let expected = Outcome.or(cell.lhs, cell.rhs)
    #expect(observed.outcome == expected)
    #expect(Outcome(reported: observed.reported) == expected)
    #expect(observed.reported.count <= 1)
    if expected == .cancelled {
      // The operand cancelled first gives the reason (`lhs` when both were before combining).
      let lhsWasFirst = cell.lhs == .cancelled && (cell.timing != .rhsFirst || cell.rhs != .cancelled)
      if lhsWasFirst {
        #expect(observed.reason is LeftReason)
      } else {
        #expect(observed.reason is RightReason)
      }
    }
  }

  @Test(arguments: OperatorCase.all)
  func andFollowsItsTruthTable(cell: OperatorCase) {
    let observed = run(cell, &&)
    let expected = Outcome.and(cell.lhs, cell.rhs)
    #expect(observed.outcome == expected)
    #expect(Outcome(reported: observed.reported) == expected)
    #expect(observed.reported.count <= 1)
    if expected == .cancelled {
      // The operand cancelled last gives the reason (`rhs` when both were before combining).
      if cell.timing == .rhsFirst {
        #expect(observed.reason is LeftReason)
      } else {
        #expect(observed.reason is RightReason)
      }
    }
  }

  @Test func orWithNoneIsTheOtherOperandAndAndWithNoneIsNone() {
    let request = CancellationRequest()
    #expect((request.token || .none) == request.token)
    #expect((CancellationToken.none || request.token) == request.token)
    #expect((request.token && .none).isCompleted)
    #expect(!(request.token && .none).isCancelled)
  }

  @Test func operatorsChainAcrossThreeOperands() {
    let a = CancellationRequest()
    let b = CancellationRequest()
    let c = CancellationRequest()
    let any = a.token || b.token || c.token
    let all = a.token && b.token && c.token
    b.cancel(reason: TestReason())
    #expect(any.isCancelled && any.reason is TestReason)
    #expect(!all.isCompleted)
    c.cancel()
    #expect(!all.isCompleted)
    a.cancel()
    #expect(all.isCancelled)
  }

  @Test func aDerivedTokenCompletesBeforeTheCompletingCallReturns() {
    let a = CancellationRequest()
    let b = CancellationRequest()
    let either = a.token || b.token
    let both = a.token && b.token
    a.close()
    #expect(!either.isCompleted)
    #expect(both.isCompleted && !both.isCancelled)
    b.close()
    #expect(either.isCompleted && !either.isCancelled)
  }

  @Test func linkedRequestsFollowADerivedToken() {
    let a = CancellationRequest()
    let b = CancellationRequest()
    let child = CancellationRequest(linkedTo: a.token && b.token)
    a.cancel()
    #expect(!child.isCancellationRequested)
    b.cancel(reason: TestReason())
    #expect(child.isCancellationRequested)
    #expect(child.token.reason is TestReason)
  }

  @Test(arguments: [0, 1, 2, 5])
  func anyCancelledAndAllCancelledFoldTheSequence(count: Int) {
    let requests = (0..<count).map { _ in CancellationRequest() }
    let any = requests.map(\.token).anyCancelled()
    let all = requests.map(\.token).allCancelled()
    if count == 0 {
      #expect(any == .none && all == .none)
      return
    }
    for (index, request) in requests.enumerated() {
      request.cancel(reason: index == 0 ? LeftReason() as any Error : RightReason())
      #expect(any.isCancelled && any.reason is LeftReason)
      #expect(all.isCancelled == (index == count - 1))
    }
    #expect(all.reason is RightReason || count == 1)
  }

  @Test func anyCancelledCompletesNotCancelledOnceEveryTokenHas() {
    let requests = (0..<4).map { _ in CancellationRequest() }
    let any = requests.map(\.token).anyCancelled()
    let all = requests.map(\.token).allCancelled()
    for request in requests.dropLast() { request.close() }
    #expect(!any.isCompleted)
    #expect(all.isCompleted && !all.isCancelled)
    requests.last!.close()
    #expect(any.isCompleted && !any.isCancelled)
  }
}
