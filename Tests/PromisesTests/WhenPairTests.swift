import Promises
import TestSupport
import Testing

/// `when(fulfilled:_:)` of two thenables is one promise holding the values as they arrive: what
/// must still hold.
@Suite("when of two")
struct WhenPairTests {
  @Test func itFulfilsWithBothValuesInInputOrderWhicheverArrivesFirst() {
    for secondFirst in [false, true] {
      let (number, fulfilNumber) = Promise<Int>.pending()
      let (text, fulfilText) = Promise<String>.pending()
      let both = when(fulfilled: number, text)
      if secondFirst {
        fulfilText.fulfill("b")
        #expect(both.result == nil)
        fulfilNumber.fulfill(1)
      } else {
        fulfilNumber.fulfill(1)
        #expect(both.result == nil)
        fulfilText.fulfill("b")
      }
      #expect(both.value?.0 == 1)
      #expect(both.value?.1 == "b")
    }
  }

  @Test func theFirstRejectionWinsAndLaterResultsAreIgnored() {
    let (number, numberResolver) = Promise<Int>.pending()
    let (text, textResolver) = Promise<String>.pending()
    let both = when(fulfilled: number, text)
    textResolver.reject(TestError(id: 2))
    numberResolver.reject(TestError(id: 1))
    #expect((both.error as? TestError)?.id == 2)
  }

  @Test func settledInputsAndGuaranteesWork() {
    #expect(when(fulfilled: Promise.value(1), Promise.value("a")).value.map { "\($0.0)\($0.1)" } == "1a")
    let (guarantee, resolve) = Guarantee<Double>.pending()
    let mixed = when(fulfilled: Promise.value(true), guarantee)
    resolve(2.5)
    #expect(mixed.value?.0 == true)
    #expect(mixed.value?.1 == 2.5)
    #expect(when(fulfilled: Promise<Int>(error: TestError(id: 4)), guarantee).error as? TestError == TestError(id: 4))
  }

  @Test func itsHandlersRunAfterTheLastInputsOwnHandlers() {
    let order = Recorder<String>()
    let (number, resolver) = Promise<Int>.pending()
    _ = when(fulfilled: number, Promise.value("a")).done(on: nil) { _ in order.record("when") }
    _ = number.done(on: nil) { _ in order.record("input") }
    resolver.fulfill(1)
    #expect(order.values == ["input", "when"])
  }

  @Test func pendingInputsDroppedWithTheResultAreFreed() {
    weak var first: Promise<Int>?
    weak var second: Promise<String>?
    weak var result: Promise<(Int, String)>?
    do {
      let (number, _) = Promise<Int>.pending()
      let (text, _) = Promise<String>.pending()
      first = number
      second = text
      result = when(fulfilled: number, text)
    }
    #expect(first == nil)
    #expect(second == nil)
    #expect(result == nil)
  }

  @Test func inputsFulfilledOnTwoThreadsAtOnceFulfilItOnce() {
    let iterations = Stress.iterations(20_000)
    let delivered = Counter()
    race(
      iterations: iterations,
      setup: { () -> (Resolver<Int>, Resolver<String>, Promise<(Int, String)>) in
        let (number, numberResolver) = Promise<Int>.pending()
        let (text, textResolver) = Promise<String>.pending()
        let both = when(fulfilled: number, text)
        _ = both.done(on: nil) { _ in delivered.increment() }
        return (numberResolver, textResolver, both)
      },
      { state in state.0.fulfill(7) },
      { state in state.1.fulfill("x") },
      check: { state in
        #expect(state.2.value?.0 == 7)
        #expect(state.2.value?.1 == "x")
      })
    #expect(delivered.value == iterations)
  }
}
