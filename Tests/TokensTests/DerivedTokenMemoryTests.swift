import Foundation
import TestSupport
import Testing
import Tokens

/// How a test ends the operands of a derived token that was dropped.
enum Ending: String, CaseIterable, Sendable {
  case cancel
  case close
  case deallocate
}

/// A derived token kind, built from two requests.
enum DerivedKind: String, CaseIterable, Sendable {
  case or
  case and
  case map
  case flatMap

  func make(_ a: CancellationRequest, _ b: CancellationRequest) -> CancellationToken {
    switch self {
    case .or: return a.token || b.token
    case .and: return a.token && b.token
    case .map: return a.token.map { true }
    case .flatMap:
      let inner = b.token
      return a.token.flatMap { inner }
    }
  }
}

@Suite("Derived tokens: memory and depth")
struct DerivedTokenMemoryTests {
  @Test(arguments: DerivedKind.allCases, Ending.allCases)
  func aDerivedTokenDroppedWhilePendingIsFreedOnceItsOperandsEnd(kind: DerivedKind, ending: Ending) {
    var a: CancellationRequest? = CancellationRequest()
    var b: CancellationRequest? = CancellationRequest()
    weak var weakDerivedState: CancelStorage?
    weak var weakCapture: Tracked?
    let reported = Recorder<Bool>()
    do {
      let derived = kind.make(a!, b!)
      weakDerivedState = derived.signal.storage
      let capture = Tracked()
      weakCapture = capture
      derived.onComplete { cancelled in
        _ = capture
        reported.record(cancelled)
      }
    }
    #expect(weakDerivedState != nil, "pending operands keep the derived state, so its handlers can still run")
    switch ending {
    case .cancel:
      a!.cancel()
      b!.cancel()
    case .close:
      a!.close()
      b!.close()
    case .deallocate:
      a = nil
      b = nil
    }
    #expect(reported.values == [ending == .cancel], "the dropped token still completed, exactly once")
    #expect(weakCapture == nil)
    #expect(weakDerivedState == nil)
    withExtendedLifetime((a, b)) {}
  }

  @Test(arguments: DerivedKind.allCases)
  func operandsLeaveNoRegistrationBehindOnceTheyEnd(kind: DerivedKind) {
    let a = CancellationRequest()
    let b = CancellationRequest()
    let derived = kind.make(a, b)
    a.cancel()
    b.cancel()
    #expect(derived.isCompleted)
    #expect(a.token.signal.storage.registrationCount == 0)
    #expect(b.token.signal.storage.registrationCount == 0)
    #expect(derived.signal.storage.registrationCount == 0)
  }

  /// A long-lived operand combined with a short-lived one that decides the result.
  struct EarlyEnd: Sendable, CustomTestStringConvertible {
    let name: String
    let combine: @Sendable (_ long: CancellationToken, _ short: CancellationToken) -> CancellationToken
    let end: Outcome
    var testDescription: String { name }

    static let all: [EarlyEnd] = [
      EarlyEnd(name: "long || short, short cancelled", combine: { $0 || $1 }, end: .cancelled),
      EarlyEnd(name: "short || long, short cancelled", combine: { $1 || $0 }, end: .cancelled),
      EarlyEnd(name: "long && short, short not cancelled", combine: { $0 && $1 }, end: .notCancelled),
      EarlyEnd(name: "short && long, short not cancelled", combine: { $1 && $0 }, end: .notCancelled),
    ]
  }

  @Test(arguments: EarlyEnd.all)
  func aResultDecidedByTheShortLivedOperandLeavesNothingInTheLongLivedOne(cell: EarlyEnd) {
    // The per-operation pattern: one app-wide token combined with one token per operation.
    let appWide = CancellationRequest()
    weak var weakLastResult: CancelStorage?
    for _ in 0..<1_000 {
      let operation = CancellationRequest()
      let result = cell.combine(appWide.token, operation.token)
      weakLastResult = result.signal.storage
      cell.end.apply(to: operation)
      #expect(Outcome(of: result) == cell.end)
    }
    #expect(appWide.token.signal.storage.registrationCount == 0, "no dead entry stays in the long-lived operand")
    #expect(weakLastResult == nil)
  }

  @Test func aPendingResultStaysRegisteredBecauseItCanStillBeCancelled() {
    // `appWide || operation` after `operation` completed without cancellation is still pending:
    // `appWide` can cancel it, so it must stay registered there (and its handlers with it).
    let appWide = CancellationRequest()
    let cancels = Counter()
    do {
      let operation = CancellationRequest()
      let result = appWide.token || operation.token
      result.onCancel { cancels.increment() }
      operation.close()
      #expect(!result.isCompleted)
    }
    #expect(appWide.token.signal.storage.registrationCount == 1)
    appWide.cancel()
    #expect(cancels.value == 1)
    #expect(appWide.token.signal.storage.registrationCount == 0)
  }

  // MARK: depth

  static let depth = 100_000

  /// `((t0 || t1) || t2) || …`: every level is an operand of the next.
  static func chain(
    _ requests: [CancellationRequest], _ combine: (CancellationToken, CancellationToken) -> CancellationToken
  ) -> CancellationToken {
    requests.dropFirst().reduce(requests[0].token) { combine($0, $1.token) }
  }

  @Test func aLongOrChainCancelsInConstantStack() async {
    let requests = (0..<Self.depth).map { _ in CancellationRequest() }
    let any = Self.chain(requests, ||)
    await onSmallStack { requests[0].cancel(reason: TestReason()) }
    #expect(any.isCancelled && any.reason is TestReason)
  }

  @Test func aLongOrChainCompletesNotCancelledInConstantStack() async {
    let requests = (0..<Self.depth).map { _ in CancellationRequest() }
    let any = Self.chain(requests, ||)
    for request in requests.dropFirst() { request.close() }
    #expect(!any.isCompleted)
    await onSmallStack { requests[0].close() }
    #expect(any.isCompleted && !any.isCancelled)
  }

  @Test func aLongAndChainCancelsInConstantStack() async {
    let requests = (0..<Self.depth).map { _ in CancellationRequest() }
    let all = Self.chain(requests, &&)
    // Newest first, so the first request's cancellation completes every level at once.
    for request in requests.dropFirst().reversed() { request.cancel() }
    #expect(!all.isCompleted)
    await onSmallStack { requests[0].cancel() }
    #expect(all.isCancelled)
  }

  @Test func aJoinOfManyTokensDecidesOnceAndLeavesNothingBehind() {
    let requests = (0..<10_000).map { _ in CancellationRequest() }
    let any = requests.map(\.token).anyCancelled()
    let all = requests.map(\.token).allCancelled()
    requests[5_000].cancel(reason: TestReason())
    #expect(any.isCancelled && any.reason is TestReason)
    requests[6_000].close()
    #expect(all.isCompleted && !all.isCancelled)
    // Both results are decided: neither left a handler in any operand.
    #expect(requests.allSatisfy { $0.token.signal.storage.registrationCount == 0 })
  }

  @Test func aLongMapChainCancelsInConstantStack() async {
    let request = CancellationRequest()
    var token = request.token
    for _ in 0..<Self.depth { token = token.map { true } }
    let last = token
    await onSmallStack { request.cancel() }
    #expect(last.isCancelled)
  }

  @Test func aLongFlatMapChainCompletesInConstantStack() async {
    let request = CancellationRequest()
    var token = request.token
    for _ in 0..<Self.depth {
      let previous = token
      token = previous.flatMap { .none }
    }
    let last = token
    await onSmallStack { request.cancel() }
    #expect(last.isCompleted && !last.isCancelled)
  }
}
