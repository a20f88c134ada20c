import TestSupport
import Testing
import Tokens

/// A cancel made inside a callback the package is delivering (a derived token's transform, here)
/// takes effect on its request at once; the tokens derived from that request complete when the
/// callback returns, before the outermost call returns (constant stack). A plain token handler is
/// no such callback: there the derived tokens complete at once.
@Suite("Tokens: cancelling inside a handler")
struct NestedCancelTests {
  @Test func aDerivedTokenOfARequestCancelledInsideATransformCompletesWhenTheTransformReturns() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let mapped = inner.token.map { true }
    let seen = Recorder<String>()
    mapped.onCancel { seen.record("mapped handler") }
    let outerMapped = outer.token.map {
      inner.cancel()
      seen.record("inner \(inner.token.isCancelled)")
      seen.record("mapped \(mapped.isCancelled)")
      return true
    }
    outer.cancel()
    #expect(
      seen.values == ["inner true", "mapped false", "mapped handler"],
      "the request is cancelled at once; its derived token when the transform returned")
    #expect(mapped.isCancelled && outerMapped.isCancelled, "before the outermost cancel returned")
  }

  @Test func aDerivedTokenOfARequestCancelledInAPlainHandlerCompletesAtOnce() {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let mapped = inner.token.map { true }
    let seen = Recorder<Bool>()
    outer.token.onCancel {
      inner.cancel()
      seen.record(mapped.isCancelled)
    }
    outer.cancel()
    #expect(seen.values == [true])
  }
}
