import CancelCore
import TestSupport
import Testing

@Suite("Awaiting cancellation")
struct AsyncWaitTests {
  @Test func returnsTrueWhenTheSourceIsCancelled() async {
    let source = CancelSource()
    async let waited = source.signal.cancelled()
    source.cancel()
    #expect(await waited)
  }

  @Test func returnsAtOnceOnAnAlreadyEndedSource() async {
    let cancelled = CancelSource()
    cancelled.cancel()
    #expect(await cancelled.signal.cancelled())
    let closed = CancelSource()
    closed.close()
    #expect(await !closed.signal.cancelled())
  }

  @Test func returnsFalseWhenTheSourceCloses() async {
    let source = CancelSource()
    let signal = source.signal
    let waiter = Task { await signal.cancelled() }
    source.close()
    #expect(await !waiter.value)
  }

  @Test func returnsWhenTheAwaitingTaskIsCancelledAndLeavesNoHandler() async {
    let source = CancelSource()
    let signal = source.signal
    let waiter = Task { await signal.cancelled() }
    waiter.cancel()
    #expect(await !waiter.value)
    #expect(signal.storage.registrationCount == 0)
    #expect(!source.isCancelled)
  }

  @Test func eachWaitReturnsExactlyOnceWhileTaskAndSourceCancelRace() async {
    let rounds = Stress.iterations(2_000, minimum: 200)
    for _ in 0..<rounds {
      let source = CancelSource()
      let signal = source.signal
      let waiter = Task { await signal.cancelled() }
      async let a: Void = waiter.cancel()
      async let b: Void = source.cancel()
      _ = await (a, b)
      _ = await waiter.value
      #expect(signal.storage.registrationCount == 0)
    }
  }
}
