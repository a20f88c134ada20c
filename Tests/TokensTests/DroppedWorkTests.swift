import Foundation
import TestSupport
import Testing
import Tokens

/// Pending token work nobody can reach any more is freed, every handler of it, and freeing a
/// chain of any length needs no deep stack.
@Suite("Tokens: dropped pending work")
struct TokenDroppedWorkTests {
  /// The 1,000,000 with `STRESS_FULL_SIZE=1` (CI runs it in a release build), 30,000 in
  /// the everyday debug `swift test` (a recursion per token would still overflow the small stack).
  static let depth = Stress.fullSize ? 1_000_000 : 30_000

  /// Builds `depth` derived tokens of `kind` on `request`'s token, each with a handler capturing
  /// `captured`, and returns the last.
  static func chain(on request: CancellationRequest, _ kind: DerivedKind, capturing captured: Tracked)
    -> CancellationToken
  {
    var token = request.token
    let other = CancellationRequest()
    for index in 0..<depth {
      switch kind {
      case .map: token = token.map { true }
      case .flatMap: token = token.flatMap { .none }
      case .or: token = token || other.token
      case .and: token = token && other.token
      }
      if index % 1000 == 0 { token.onComplete { _ in _ = captured } }
    }
    return token
  }

  @Test(arguments: DerivedKind.allCases)
  func droppingALongPendingChainWithItsRequestFreesItOnASmallStack(kind: DerivedKind) async {
    let freed = await onSmallStack(256 << 10) { () -> Bool in
      let captured: WeakBox<Tracked>
      do {
        let object = Tracked()
        captured = WeakBox(object)
        let request = CancellationRequest()
        _ = Self.chain(on: request, kind, capturing: object)
      }
      return captured.value == nil
    }
    #expect(freed, "every handler was released")
  }

  @Test func aDroppedRequestReleasesEveryHandlerAndKeepsNoObjectOfYours() {
    weak var weakObject: CancellationRequest?
    let captured: WeakBox<Tracked>
    do {
      let request = CancellationRequest()
      let object = CancellationRequest()
      weakObject = object
      request.token.register(cancelable: object)
      let tracked = Tracked()
      captured = WeakBox(tracked)
      request.token.onCancel { _ = tracked }
      request.token.register(cancelable: ClosureCancelable { _ = tracked })
    }
    #expect(weakObject == nil)
    #expect(captured.value == nil, "a dropped request released every handler and value it held")
  }
}
