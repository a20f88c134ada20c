import Foundation
import TestSupport
import Testing
import Tokens

/// Requests whose handlers cancel other requests: `register(cancelable:)` of the next request, or
/// `onCancel { next.cancel() }`. Each returns whether every request ended cancelled and every
/// handler ran exactly once.
///
/// Before a cancel made inside a handler was queued, each link recursed (`cancel` → handler →
/// `cancel` …): 10,000 links overflowed an 8 MiB stack. So the deep ones run in a child process
/// (an exit test), on a 256 KiB stack: a regression fails that test, not the whole suite.
enum HandlerChainShapes {
  /// `count` requests, each registered with `register(cancelable:)` on the one before.
  static func registeredChain(_ count: Int) -> Bool {
    let requests = (0..<count).map { _ in CancellationRequest() }
    for index in 0..<(count - 1) { requests[index].token.register(cancelable: requests[index + 1]) }
    requests[0].cancel()
    return requests.allSatisfy(\.isCancellationRequested)
  }

  /// `count` requests, each with a handler that cancels the next one (the first, if `ring`).
  static func handlerChain(_ count: Int, ring: Bool = false) -> Bool {
    let requests = (0..<count).map { _ in CancellationRequest() }
    let runs = (0..<count).map { _ in Counter() }
    for index in 0..<count {
      let next: CancellationRequest? = index + 1 < count ? requests[index + 1] : (ring ? requests[0] : nil)
      requests[index].token.onCancel { [runs] in
        runs[index].increment()
        next?.cancel()
      }
    }
    requests[0].cancel()
    return requests.allSatisfy(\.isCancellationRequested) && runs.allSatisfy { $0.value == 1 }
  }
}

@Suite("Tokens: handlers that cancel other requests")
struct HandlerChainTests {
  @Test func shortChainsOfEachKindEnd() {
    #expect(HandlerChainShapes.registeredChain(100))
    #expect(HandlerChainShapes.handlerChain(100))
    #expect(HandlerChainShapes.handlerChain(100, ring: true))
  }

  @Test func aCancelMadeInAHandlerTakesEffectAtOnceAndItsHandlersRunWhenTheHandlerReturns() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let seen = Recorder<String>()
    outer.token.onCancel { seen.record("outer's older handler") }
    inner.token.onCancel { seen.record("inner's handler") }
    outer.token.onCancel {
      let didCancel = inner.cancel(reason: LeftReason())
      seen.record("inner.cancel returned \(didCancel), cancelled \(inner.isCancellationRequested)")
      seen.record("reason is LeftReason: \(inner.token.reason is LeftReason)")
      seen.record("end of outer's newer handler")
    }
    outer.cancel()
    #expect(
      seen.values == [
        "inner.cancel returned true, cancelled true", "reason is LeftReason: true",
        "end of outer's newer handler", "inner's handler", "outer's older handler",
      ],
      "inner's handlers run when the handler that cancelled it returns, before outer's next handler")
  }

  @Test func cancelsMadeInOneHandlerRunInTheOrderMade() {
    let outer = CancellationRequest()
    let inner = (0..<3).map { _ in CancellationRequest() }
    let seen = Recorder<Int>()
    for index in 0..<3 { inner[index].token.onCancel { seen.record(index) } }
    outer.token.onCancel {
      for request in inner.reversed() { request.cancel() }
      seen.record(-1)
    }
    outer.cancel()
    #expect(seen.values == [-1, 2, 1, 0])
  }

  @Test func aCancelOutsideAnyHandlerRunsItsHandlersBeforeItReturns() {
    let request = CancellationRequest()
    let ran = Counter()
    request.token.onCancel { ran.increment() }
    request.cancel()
    #expect(ran.value == 1)
  }

  // Exit tests (a child process) exist where Swift Testing can spawn one.
  #if os(macOS) || os(Linux) || os(Windows)
    @Test func requestsRegisteredOnEachOther100000DeepOnA256KiBStack() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { HandlerChainShapes.registeredChain(100_000) }
        precondition(ok, "a request of the chain was not cancelled")
      }
    }

    @Test func handlersCancellingTheNextRequest100000DeepOnA256KiBStack() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { HandlerChainShapes.handlerChain(100_000) }
        precondition(ok, "a request was not cancelled, or a handler ran other than once")
      }
    }

    @Test func aRingOfHandlersCancellingTheNextRequest100000DeepOnA256KiBStack() async {
      await #expect(processExitsWith: .success) {
        let ok = await onSmallStack(256 << 10) { HandlerChainShapes.handlerChain(100_000, ring: true) }
        precondition(ok, "a request was not cancelled, or a handler ran other than once")
      }
    }
  #endif
}
