import Foundation
import TestSupport
import Testing

@testable import Promises

/// Pending work nobody can reach any more is freed, every closure and object of it, and freeing
/// a chain of any length needs no deep stack.
@Suite("Promises: dropped pending work")
struct DroppedWorkTests {
  /// The length of the long chains: the 1,000,000 with `STRESS_FULL_SIZE=1` (CI runs it in
  /// a release build), a tenth of it in the everyday debug `swift test`.
  static let depth = Stress.fullSize ? 1_000_000 : 100_000

  /// A small stack: freeing one stage per frame would overflow it within a few thousand stages.
  static let stack = 256 << 10

  // MARK: Depth

  @Test func droppingALongPendingMapChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let root: WeakBox<Promise<Int>>
      let tail: WeakBox<Promise<Int>>
      do {
        let (promise, resolver) = Promise<Int>.pending()
        root = WeakBox(promise)
        var last = promise
        for _ in 0..<Self.depth { last = last.map(on: nil) { $0 + 1 } }
        tail = WeakBox(last)
        _ = resolver
      }
      return root.value == nil && tail.value == nil
    }
    #expect(freed)
  }

  @Test func droppingALongPendingGuaranteeChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let tail: WeakBox<Guarantee<Int>>
      do {
        let (guarantee, _) = Guarantee<Int>.pending()
        var last = guarantee
        for _ in 0..<Self.depth { last = last.map(on: nil) { $0 + 1 } }
        tail = WeakBox(last)
      }
      return tail.value == nil
    }
    #expect(freed)
  }

  @Test func droppingALongPendingQueuedChainNeedsNoDeepStack() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let tail: WeakBox<Promise<Int>>
      do {
        let (promise, _) = Promise<Int>.pending()
        var last = promise
        for _ in 0..<Self.depth / 10 { last = last.then(on: .global()) { Promise.value($0 + 1) } }
        tail = WeakBox(last)
      }
      return tail.value == nil
    }
    #expect(freed)
  }

  @Test func droppingALongPendingCancellableChainNeedsNoDeepStackAndFreesIt() async {
    let freed = await onSmallStack(Self.stack) { () -> Bool in
      let context: WeakBox<CancelContext>
      let tail: WeakBox<CancellablePromise<Int>>
      do {
        let (root, _) = CancellablePromise<Int>.pending()
        var last = root
        for _ in 0..<Self.depth { last = last.map(on: nil) { $0 + 1 } }
        context = WeakBox(root.cancelContext)
        tail = WeakBox(last)
      }
      return context.value == nil && tail.value == nil
    }
    #expect(freed)
  }
}
