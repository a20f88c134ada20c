import CancelCore
import Dispatch
import Foundation
import Promises
import TestSupport
import Testing

/// PromiseKit 6/8 spellings that code written for PromiseKit compiles against unchanged.
@Suite("PromiseKit 6/8 compatibility")
struct PromiseKit8CompatibilityTests {
  @Test func asyncPromiseOnAQueueRunsTheBodyThereAndResolvesWithIt() async throws {
    let queue = DispatchQueue(label: "work")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let group = DispatchGroup()
    let promise = queue.async(.promise, group: group, qos: .utility, flags: []) { () throws -> Int? in
      DispatchQueue.getSpecific(key: key)
    }
    #expect(try await promise.async() == 7)
    let failing: Promise<Int> = queue.async(.promise) { throw TestError(id: 3) }
    await #expect(throws: TestError(id: 3)) { try await failing.async() }
    let guarantee: Guarantee<Int?> = queue.async(.promise) { DispatchQueue.getSpecific(key: key) }
    #expect(await guarantee.async() == 7)
    #expect(group.wait(timeout: .now()) == .success, "the work item joined the group and left it")
  }

  @Test func whenFulfilledConcurrentlyKeepsAtMostTheLimitInFlightAndPullOrder() {
    let pending = (0..<5).map { _ in Promise<Int>.pending() }
    let pulled = Counter()
    var iterator = pending.makeIterator()
    let all = when(
      fulfilled: AnyIterator { () -> Promise<Int>? in
        guard let next = iterator.next() else { return nil }
        pulled.increment()
        return next.promise
      }, concurrently: 2)
    #expect(pulled.value == 2)
    pending[1].resolver.fulfill(1)
    #expect(pulled.value == 3)
    pending[0].resolver.fulfill(0)
    pending[2].resolver.fulfill(2)
    #expect(pulled.value == 5)
    pending[4].resolver.fulfill(4)
    #expect(all.isPending)
    pending[3].resolver.fulfill(3)
    #expect(all.value == [0, 1, 2, 3, 4])
    let guarantees = when(fulfilled: [Guarantee.value(1), Guarantee.value(2)].makeIterator(), concurrently: 1)
    #expect(guarantees.value == [1, 2])
    #expect(when(fulfilled: [Promise<Int>]().makeIterator(), concurrently: 3).value == [])
  }

  @Test func whenFulfilledConcurrentlyRejectsAtOnceAndPullsNoMore() {
    let (slow, _) = Promise<Int>.pending()
    let (failing, reject) = Promise<Int>.pending()
    let pulled = Counter()
    var inputs = [slow, failing, Promise.value(3)].makeIterator()
    let all = when(
      fulfilled: AnyIterator { () -> Promise<Int>? in
        guard let next = inputs.next() else { return nil }
        pulled.increment()
        return next
      }, concurrently: 2)
    reject.reject(TestError(id: 9))
    #expect(all.error as? TestError == TestError(id: 9), "rejects without waiting for the slow input")
    #expect(pulled.value == 2)
  }

  @Test func concurrentlyBelowOneIsBadInputNotATrap() {
    #expect((failure(when(fulfilled: [Promise.value(1)].makeIterator(), concurrently: 0).result)).isBadInput)
    #expect((failure(when(fulfilled: [Promise.value(1)].makeIterator(), concurrently: -1).result)).isBadInput)
    let cancellable = when(fulfilled: [Promise.value(1).cancellize()].makeIterator(), concurrently: 0)
    #expect((failure(cancellable.result)).isBadInput)
    #expect(when(resolved: [Promise.value(1)].makeIterator(), concurrently: 0).value?.isEmpty == true)
  }

  @Test func whenResolvedConcurrentlyHandsOutEveryResultInPullOrder() {
    let inputs = [Promise.value(1), Promise(error: TestError(id: 2)), Promise.value(3)]
    let results = when(resolved: inputs.makeIterator(), concurrently: 1).value ?? []
    #expect(results.count == 3)
    if case .fulfilled(1) = results[0] {} else { Issue.record("first not fulfilled") }
    #expect(failure(results[1]) as? TestError == TestError(id: 2))
    #expect(results[2].isFulfilled)
  }

  @Test func whenOverGuaranteesOfDifferentTypesGivesATuple() {
    let pair = when(guarantees: Guarantee.value(1), Guarantee.value("a"))
    #expect(pair.value.map { $0.0 == 1 && $0.1 == "a" } == true)
    let (late, resolve) = Guarantee<Double>.pending()
    let five = when(
      guarantees: Guarantee.value(1), Guarantee.value("b"), late, Guarantee.value(true), Guarantee.value(Character("c"))
    )
    #expect(five.value == nil)
    resolve(2.5)
    #expect(five.value.map { $0.0 == 1 && $0.1 == "b" && $0.2 == 2.5 && $0.3 && $0.4 == "c" } == true)
    #expect(when(guarantees: Guarantee.value(1), Guarantee.value(2), Guarantee.value(3)).value.map { $0.2 } == 3)
    #expect(
      when(guarantees: Guarantee.value(1), Guarantee.value(2), Guarantee.value(3), Guarantee.value(4)).value?.3 == 4)
  }

  @Test func whenOverGuaranteesWithoutALabel() {
    #expect(when(Guarantee.value(1), Guarantee.value(2)).value == [1, 2])
    let (pending, resolve) = Guarantee<Void>.pending()
    let voids: Guarantee<Void> = when(Guarantee<Void>.value, pending)
    #expect(voids.value == nil)
    resolve(())
    #expect(voids.value != nil)
    let array: Guarantee<Void> = when(guarantees: [Guarantee<Void>(), Guarantee<Void>.value])
    #expect(array.value != nil)
  }

  @Test func whenFulfilledOverThenablesOfDifferentTypes() {
    let values = when(fulfilled: [Promise.value(1), Guarantee.value("two")] as [any Thenable]).value
    #expect(values?.count == 2)
    #expect(values?[0] as? Int == 1)
    #expect(values?[1] as? String == "two")
    let failing = when(fulfilled: [Promise<Int>(error: TestError(id: 4)), Guarantee.value("x")] as [any Thenable])
    #expect(failing.error as? TestError == TestError(id: 4))
  }

  @Test func resolverSpellings() {
    let (void, seal) = Promise<Void>.pending()
    seal.fulfill_()
    #expect(void.isFulfilled)
    let (inverted, invertedSeal) = Promise<Int>.pending()
    invertedSeal.resolve(nil as Error?, 5)
    #expect(inverted.value == 5)
    enum OwnError: Error { case broken }
    let (typed, typedSeal) = Promise<Int>.pending()
    let handler: (Swift.Result<Int, OwnError>) -> Void = typedSeal.resolve
    handler(.failure(.broken))
    #expect(typed.error is OwnError)
    #expect(Promise<Void>.value.isFulfilled)
    #expect(Guarantee<Void>.value.value != nil)
  }

  @Test func pmkErrorDescribesItself() {
    let errors: [PMKError] = [
      .invalidCallingConvention, .returnedSelf, .badInput, .cancelled, .compactMap(1, Int.self), .emptySequence,
      .noWinner, .timedOut,
    ]
    for error in errors {
      #expect(error.errorDescription == error.debugDescription)
      #expect(!error.debugDescription.isEmpty)
      #expect(error.localizedDescription == error.debugDescription)
    }
    #expect(PMKError.cancelled.debugDescription == "The promise was cancelled")
    #expect("\(PMKError.cancelled)" == "The promise was cancelled")
  }

  @Test func raceOfNoGuaranteesNeverResolvesInsteadOfTrapping() {
    let none: Guarantee<Int> = race()
    #expect(none.value == nil)
  }

  @Test func aVoidPromisesFullRecoverHandlesEveryErrorAndGivesAGuarantee() {
    let recovered = Recorder<Bool>()
    let guarantee: Guarantee<Void> = Promise<Void>(error: PMKError.cancelled).recover(on: nil) { error in
      recovered.record(error.isCancelled)
    }
    #expect(guarantee.value != nil)
    #expect(recovered.values == [true], "cancellations are recovered too")
    let untouched: Guarantee<Void> = Promise<Void>().recover(on: nil) { _ in recovered.record(false) }
    #expect(untouched.value != nil)
    #expect(recovered.values == [true])
  }

  @Test func guaranteeSortsWithAPredicate() {
    #expect(Guarantee.value([1, 3, 2]).sortedValues(on: nil) { $0 > $1 }.value == [3, 2, 1])
  }
}

extension Optional where Wrapped == any Error {
  /// Whether this is ``PMKError/badInput``.
  fileprivate var isBadInput: Bool {
    if case PMKError.badInput? = self { return true }
    return false
  }
}

/// Real threads resolving the pulled inputs of `when(fulfilled:concurrently:)` at once.
@Suite("Stress: when(fulfilled:concurrently:) over plain promises")
struct WhenConcurrentlyStressTests {
  final class Subject: Sendable {
    let pending = (0..<4).map { _ in Promise<Int>.pending() }
    let inFlight = Gauge()
    let mostInFlight = Recorder<Int>()
    let result: Promise<[Int]>

    init() {
      let pending = pending
      let inFlight = inFlight
      let mostInFlight = mostInFlight
      var next = 0
      result = when(
        fulfilled: AnyIterator { () -> Promise<Int>? in
          guard next < pending.count else { return nil }
          defer { next += 1 }
          mostInFlight.record(inFlight.enter())
          return pending[next].promise.ensure(on: nil) { inFlight.leave() }
        }, concurrently: 2)
    }

    /// Fulfils the inputs with these indices (each with its own index).
    func fulfil(_ indices: [Int]) {
      for index in indices { pending[index].resolver.fulfill(index) }
    }
  }

  @Test func inputsResolvedOnTwoThreadsGiveEveryValueInPullOrderWithinTheLimit() {
    race(iterations: Stress.iterations(2_000, minimum: 500)) {
      Subject()
    } _: { subject in
      subject.fulfil([0, 2])
    } _: { subject in
      subject.fulfil([1, 3])
    } check: { subject in
      #expect(subject.result.value == [0, 1, 2, 3])
      #expect(subject.mostInFlight.values.allSatisfy { $0 <= 2 })
    }
  }
}
