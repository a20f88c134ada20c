import Promises
import Testing

@Suite("Promises: a cancelled combination gives its inputs its one cancel error")
struct CombinationReasonTests {
  struct Reason: Error {}

  @Test(arguments: ["race", "race(autoCancel: true)", "when(autoCancel: true)"])
  func everyPendingInputGetsTheResultsCancelError(form: String) {
    let inputs = (0..<3).map { _ in CancellablePromise<Int>.pending().promise }
    let combined: CancellablePromise<Void> =
      switch form {
      case "race": race(inputs).asVoid()
      case "race(autoCancel: true)": race(inputs, autoCancel: true).asVoid()
      default: when(fulfilled: inputs, autoCancel: true).asVoid()
      }
    combined.cancel(error: Reason())
    #expect(combined.error is Reason)
    for input in inputs {
      #expect(input.error is Reason, "an input of \(form) was rejected with \(String(describing: input.error))")
    }
  }

  @Test func aRejectingRaceInputStillCancelsTheOthersWithTheDefaultError() {
    let inputs = (0..<3).map { _ in CancellablePromise<Int>.pending() }
    let combined = race(inputs.map(\.promise))
    inputs[1].resolver.reject(Reason())
    #expect(combined.error is Reason)
    #expect(inputs[0].promise.error?.isCancellation == true && !(inputs[0].promise.error is Reason))
    #expect(inputs[2].promise.error?.isCancellation == true && !(inputs[2].promise.error is Reason))
  }
}
