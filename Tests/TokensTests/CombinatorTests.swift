import Foundation
import TestSupport
import Testing
import Tokens

/// One cell of `map`'s table: the source's outcome, what `transform` returns, and whether the
/// source completed before `map` was called.
struct MapCase: Sendable, CustomTestStringConvertible {
  let source: Outcome
  let transformResult: Bool
  let completesBeforeMapping: Bool

  var testDescription: String { "\(source.rawValue) → \(transformResult), before: \(completesBeforeMapping)" }

  static let all: [MapCase] = Outcome.allCases.flatMap { source in
    [true, false].flatMap { result in
      [true, false].map { MapCase(source: source, transformResult: result, completesBeforeMapping: $0) }
    }
  }
}

/// One cell of `flatMap`'s table: the source's and the inner token's outcomes, and when they
/// complete.
struct FlatMapCase: Sendable, CustomTestStringConvertible {
  let source: Outcome
  let inner: Outcome
  let timing: Timing

  var testDescription: String { "\(source.rawValue) then \(inner.rawValue), \(timing.rawValue)" }

  static let all: [FlatMapCase] = Outcome.allCases.flatMap { source in
    Outcome.allCases.flatMap { inner in Timing.allCases.map { FlatMapCase(source: source, inner: inner, timing: $0) } }
  }
}

@Suite("map and flatMap: truth tables")
struct CombinatorTests {
  @Test(arguments: MapCase.all)
  func mapFollowsItsTruthTable(cell: MapCase) {
    let request = CancellationRequest()
    let calls = Counter()
    let reported = Recorder<Bool>()
    let transform: @Sendable () -> Bool = {
      calls.increment()
      return cell.transformResult
    }
    let mapped: CancellationToken
    if cell.completesBeforeMapping {
      cell.source.apply(to: request, reason: TestReason())
      mapped = request.token.map(transform)
    } else {
      mapped = request.token.map(transform)
      #expect(!mapped.isCompleted)
      cell.source.apply(to: request, reason: TestReason())
    }
    mapped.onComplete { reported.record($0) }

    let expected: Outcome
    switch cell.source {
    case .cancelled: expected = cell.transformResult ? .cancelled : .notCancelled
    case .notCancelled: expected = .notCancelled
    case .pending: expected = .pending
    }
    #expect(Outcome(of: mapped) == expected)
    #expect(Outcome(reported: reported.values) == expected)
    #expect(calls.value == (cell.source == .cancelled ? 1 : 0), "transform runs once, only on cancellation")
    if expected == .cancelled { #expect(mapped.reason is TestReason) }
  }

  @Test(arguments: FlatMapCase.all)
  func flatMapFollowsItsTruthTable(cell: FlatMapCase) {
    let request = CancellationRequest()
    let inner = CancellationRequest()
    let calls = Counter()
    let reported = Recorder<Bool>()
    let transform: @Sendable () -> CancellationToken = {
      calls.increment()
      return inner.token
    }
    let flatMapped: CancellationToken
    switch cell.timing {
    case .beforeCombining:
      cell.source.apply(to: request, reason: LeftReason())
      cell.inner.apply(to: inner, reason: RightReason())
      flatMapped = request.token.flatMap(transform)
    case .lhsFirst:
      flatMapped = request.token.flatMap(transform)
      cell.source.apply(to: request, reason: LeftReason())
      cell.inner.apply(to: inner, reason: RightReason())
    case .rhsFirst:
      flatMapped = request.token.flatMap(transform)
      cell.inner.apply(to: inner, reason: RightReason())
      cell.source.apply(to: request, reason: LeftReason())
    }
    flatMapped.onComplete { reported.record($0) }

    let expected: Outcome = cell.source == .cancelled ? cell.inner : cell.source
    #expect(Outcome(of: flatMapped) == expected)
    #expect(Outcome(reported: reported.values) == expected)
    #expect(calls.value == (cell.source == .cancelled ? 1 : 0))
    if expected == .cancelled { #expect(flatMapped.reason is RightReason) }
    withExtendedLifetime(inner) {}
  }

  @Test func thePeersAndBuiltFromFlatMapAndMapNowAlwaysCompletes() {
    // couchdeveloper/Cancellation's `&&`: `a.flatMap { b.map { true } }`.
    let a = CancellationRequest()
    let b = CancellationRequest()
    let both = a.token.flatMap { b.token.map { true } }
    a.cancel()
    #expect(!both.isCompleted)
    b.close()
    #expect(both.isCompleted && !both.isCancelled)
  }

  @Test func mapRunsTransformOnTheCancellingThread() async {
    let request = CancellationRequest()
    let threads = Recorder<UInt>()
    let mapped = request.token.map {
      threads.record(currentThreadID())
      return true
    }
    let thread: UInt = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        request.cancel()
        continuation.resume(returning: currentThreadID())
      }
    }
    #expect(threads.values == [thread])
    #expect(mapped.isCancelled)
  }

  @Test func mapAndFlatMapOfNoneAreCompletedAndNeverRunTheTransform() {
    let calls = Counter()
    let mapped = CancellationToken.none.map {
      calls.increment()
      return true
    }
    let flatMapped = CancellationToken.none.flatMap {
      calls.increment()
      return CancellationToken.none
    }
    #expect(mapped.isCompleted && !mapped.isCancelled)
    #expect(flatMapped.isCompleted && !flatMapped.isCancelled)
    #expect(calls.value == 0)
  }
}
