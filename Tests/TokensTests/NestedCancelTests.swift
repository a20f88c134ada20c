import TestSupport
import Testing
import Tokens

/// A cancel made inside a callback the package is delivering (a derived token's transform, here)
/// takes effect on its request at once; the tokens derived from that request complete when the
/// callback returns, before the outermost call returns (constant stack). So do they when the
/// cancel is made in a plain token handler: its handlers run when that handler returns.
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

  @Test func aDerivedTokenOfARequestCancelledInAPlainHandlerCompletesWhenTheHandlerReturns() {
    // Until issue 26 a plain handler was no delivery and the derived token completed at once; a
    // cancel made in a handler now runs the handlers of what it cancelled (the derived token's
    // among them) when the handler returns, so handlers that cancel each other never recurse.
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let mapped = inner.token.map { true }
    let seen = Recorder<Bool>()
    outer.token.onCancel {
      inner.cancel()
      seen.record(inner.isCancellationRequested)
      seen.record(mapped.isCancelled)
    }
    outer.cancel()
    #expect(seen.values == [true, false], "the request at once; its derived token when the handler returned")
    #expect(mapped.isCancelled, "before the outermost cancel returned")
  }
}
