import Dispatch
import TestSupport
import Testing
import Tokens

/// Real threads racing the facade's operations; each iteration checks that exactly one legal
/// outcome happened. Run with `STRESS_DIVISOR` under the thread sanitizer to shorten them.
@Suite("Stress: threads racing on tokens")
struct StressTests {
  // MARK: many threads on one token

  @Test func manyThreadsRegisteringUnregisteringAndCancellingRunEachHandlerAtMostOnce() {
    let threads = 8
    let perThread = 64
    let rounds = Stress.iterations(2_000, minimum: 50)
    for _ in 0..<rounds {
      let request = CancellationRequest()
      let token = request.token
      let ran = (0..<threads * perThread).map { _ in Counter() }
      let removed = (0..<threads * perThread).map { _ in Counter() }
      DispatchQueue.concurrentPerform(iterations: threads) { thread in
        for index in 0..<perThread {
          let slot = thread * perThread + index
          let registration: CancellationRegistration
          switch index % 3 {
          case 0: registration = token.onCancel { ran[slot].increment() }
          case 1: registration = token.onComplete { if $0 { ran[slot].increment() } }
          default: registration = token.register(cancelable: ValueCancelable(count: ran[slot]))
          }
          if index % 2 == 0, registration.unregister() { removed[slot].increment() }
          if thread == threads / 2 && index == perThread / 2 { request.cancel() }
        }
      }
      for slot in 0..<threads * perThread {
        #expect(ran[slot].value + removed[slot].value == 1, "each handler either ran once or was removed")
      }
      #expect(token.signal.storage.registrationCount == 0)
    }
  }

  // MARK: two operands completing on two threads

  struct Pair: Sendable {
    let left = CancellationRequest()
    let right = CancellationRequest()
    let derived: CancellationToken
    let reported = Recorder<Bool>()

    init(_ combine: (CancellationToken, CancellationToken) -> CancellationToken) {
      derived = combine(left.token, right.token)
      let reported = reported
      derived.onComplete { reported.record($0) }
    }
  }

  static let completions: [(Outcome, Outcome)] = [
    (.cancelled, .cancelled), (.cancelled, .notCancelled), (.notCancelled, .cancelled), (.notCancelled, .notCancelled),
  ]

  static func raceOperands(
    _ combine: @escaping (CancellationToken, CancellationToken) -> CancellationToken,
    expected: (Outcome, Outcome) -> Outcome
  ) {
    for (lhs, rhs) in completions {
      let outcome = expected(lhs, rhs)
      race(iterations: Stress.iterations(25_000)) {
        Pair(combine)
      } _: { pair in
        lhs.apply(to: pair.left)
      } _: { pair in
        rhs.apply(to: pair.right)
      } check: { pair in
        #expect(Outcome(of: pair.derived) == outcome, "\(lhs) vs \(rhs)")
        #expect(Outcome(reported: pair.reported.values) == outcome)
        #expect(pair.reported.values.count == 1, "the derived token completed exactly once")
      }
    }
  }

  @Test func orCompletesCorrectlyWhenItsOperandsCompleteOnTwoThreads() {
    Self.raceOperands(||, expected: Outcome.or)
  }

  @Test func andCompletesCorrectlyWhenItsOperandsCompleteOnTwoThreads() {
    Self.raceOperands(&&, expected: Outcome.and)
  }

  @Test func flatMapCompletesCorrectlyWhenSourceAndInnerCompleteOnTwoThreads() {
    for inner in [Outcome.cancelled, .notCancelled] {
      race(iterations: Stress.iterations(25_000)) {
        Pair { source, inner in source.flatMap { inner } }
      } _: { pair in
        pair.left.cancel()
      } _: { pair in
        inner.apply(to: pair.right)
      } check: { pair in
        #expect(Outcome(of: pair.derived) == inner)
        #expect(pair.reported.values.count == 1)
      }
    }
  }

  // MARK: building a derived token while an operand completes

  final class Building: Sendable {
    let left = CancellationRequest()
    let right = CancellationRequest()
    let built = Recorder<CancellationToken>()
    let reported = Recorder<Bool>()
  }

  @Test(arguments: ["||", "&&", "map"])
  func buildingRacesCompletionAndStillCompletesOnce(operator name: String) {
    race(iterations: Stress.iterations(50_000)) {
      let building = Building()
      building.right.cancel()
      return building
    } _: { building in
      let derived: CancellationToken
      switch name {
      case "||": derived = building.left.token || building.right.token
      case "&&": derived = building.left.token && building.right.token
      default: derived = building.left.token.map { true }
      }
      derived.onComplete { building.reported.record($0) }
      building.built.record(derived)
    } _: { building in
      building.left.cancel()
    } check: { building in
      // Both operands are cancelled, so every one of these is cancelled.
      #expect(building.built.values.first?.isCancelled == true)
      #expect(building.reported.values == [true])
    }
  }

  // MARK: registering on a derived token while it completes

  @Test func registeringOnADerivedTokenWhileItCompletesRunsTheHandlerOnce() {
    race(iterations: Stress.iterations(50_000)) {
      Pair { lhs, rhs in lhs || rhs }
    } _: { pair in
      pair.left.cancel()
    } _: { pair in
      pair.derived.onCancel { pair.reported.record(true) }
    } check: { pair in
      // One from the pair's own completion handler, one from the raced cancel handler.
      #expect(pair.reported.values == [true, true])
    }
  }
}
