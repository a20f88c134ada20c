import Promises
import TestSupport
import Testing

@Suite("Promises: a dropped chain whose work settles later")
struct DroppedChainSettlesLaterTests {
  @Test(arguments: 1...50)
  func theWorkSettlingAfterTheChainWasFreedTouchesNothingFreed(round: Int) {
    let (guarantee, resolve) = Guarantee<Int>.pending()
    weak var context: CancelContext?
    do {
      let chain = CancellablePromise(guarantee)
      context = chain.cancelContext
      _ = chain.map(on: nil) { $0 + round }
      // Some allocations of the same size, so that freed memory is reused before the settle.
      _ = (0..<8).map { _ in CancelSource() }
    }
    // Nobody can cancel the chain any more: its context went away while the guarantee, which
    // still holds the wrapper's promise through its callback, is pending.
    #expect(context == nil)
    let churn = (0..<8).map { _ in CancelSource() }
    resolve(round)  // settles the wrapper's promise: it must not leave through a freed member
    #expect(churn.count == 8)
  }
}
