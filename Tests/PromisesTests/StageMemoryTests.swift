import Dispatch
import Promises
import TestSupport
import Testing

/// What a `map` stage's closure captures is released once the stage ran, even while the promise it
/// returned is kept (an object that keeps `load = fetch().done { self.show($0) }` must not be kept
/// alive by its own promise).
@Suite("Stages release their closures once they ran")
struct StageMemoryTests {
  final class Captured: Sendable {}

  /// Builds a stage whose closure captures a fresh object, settles the root, and returns the kept
  /// stage with a weak reference to the captured object.
  static func keptStage(
    fulfil: Bool, _ makeStage: (Promise<Int>, Captured) -> Promise<Int>
  ) -> (kept: Promise<Int>, captured: WeakBox<Captured>) {
    let captured = Captured()
    let weak = WeakBox(captured)
    let (root, resolver) = Promise<Int>.pending()
    let kept = makeStage(root, captured)
    if fulfil { resolver.fulfill(1) } else { resolver.reject(TestError.failed) }
    return (kept, weak)
  }

  enum TestError: Error { case failed }

  @Test(arguments: [true, false])
  func aSynchronousStageReleasesItsTransform(fulfilled: Bool) {
    let (kept, captured) = Self.keptStage(fulfil: fulfilled) { root, object in
      root.map(on: nil) { value in withExtendedLifetime(object) { value + 1 } }
    }
    #expect(kept.result != nil)
    #expect(captured.value == nil, "the transform (and what it captured) was released after the run")
  }

  @Test(arguments: [true, false])
  func aStageOnAQueueReleasesItsTransform(fulfilled: Bool) async {
    let queue = DispatchQueue(label: "stage-memory")
    let (kept, captured) = Self.keptStage(fulfil: fulfilled) { root, object in
      root.map(on: queue) { value in withExtendedLifetime(object) { value + 1 } }
    }
    _ = await outcome(of: kept)
    // The stage's run on `queue` releases the transform as it ends, which may be just after the
    // settle that resumed this task: a block queued behind it starts once that run ended.
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(captured.value == nil)
  }

  @Test(arguments: [true, false])
  func aCancellableStageReleasesItsTransformAndItsChain(fulfilled: Bool) {
    let captured: WeakBox<Captured>
    let context: WeakBox<CancelContext>
    let kept: Promise<Int>
    do {
      let object = Captured()
      captured = WeakBox(object)
      let (root, resolver) = CancellablePromise<Int>.pending()
      let member = root.map(on: nil) { value in withExtendedLifetime(object) { value + 1 } }
      context = WeakBox(member.cancelContext)
      kept = member.asPromise()
      if fulfilled { resolver.fulfill(1) } else { resolver.reject(TestError.failed) }
    }
    #expect(kept.result != nil)
    #expect(captured.value == nil, "the transform was released after the run")
    #expect(context.value == nil, "a kept promise does not keep its chain's context")
  }

  @Test func aCancelledStageReleasesItsTransformWhenItsParentSettles() {
    let captured: WeakBox<Captured>
    let (root, resolver) = CancellablePromise<Int>.pending()
    let kept: Promise<Int>
    do {
      let object = Captured()
      captured = WeakBox(object)
      let member = root.map(on: nil) { value in withExtendedLifetime(object) { value + 1 } }
      kept = member.asPromise()
      member.cancel()
    }
    resolver.fulfill(1)
    #expect(kept.result != nil)
    #expect(captured.value == nil)
  }
}
