import Futures
import TestSupport
import Testing

/// What a stage's block captures is released once the stage ran (or will never run), even while
/// the future it returned is kept (an object that keeps `load = fetch().onSuccess { self.show($0) }`
/// must not be kept alive by its own future).
@Suite("Futures: stages release their blocks once they ran")
struct FutureStageMemoryTests {
  final class Captured: Sendable {}

  enum Outcome: CaseIterable, Sendable { case success, failure, cancelled }

  static func complete(_ promise: Futures.Promise<Int>, _ outcome: Outcome) {
    switch outcome {
    case .success: promise.completeWithSuccess(1)
    case .failure: promise.completeWithFail(FutureError.failed)
    case .cancelled: promise.completeWithCancel()
    }
  }

  enum FutureError: Error { case failed }

  @Test(arguments: Outcome.allCases)
  func aMapStageReleasesItsBlock(outcome: Outcome) {
    let root = Futures.Promise<Int>()
    let captured: WeakBox<Captured>
    let kept: Future<Int>
    do {
      let object = Captured()
      captured = WeakBox(object)
      kept = root.future.map(.immediate) { value in withExtendedLifetime(object) { value + 1 } }
    }
    Self.complete(root, outcome)
    #expect(kept.isCompleted)
    #expect(captured.value == nil)
  }

  @Test(arguments: Outcome.allCases)
  func anOnCompleteStageReleasesItsBlock(outcome: Outcome) {
    let root = Futures.Promise<Int>()
    let captured: WeakBox<Captured>
    let kept: Future<Int>
    do {
      let object = Captured()
      captured = WeakBox(object)
      kept = root.future.onComplete(.immediate) { (result: FutureResult<Int>) -> Completion<Int> in
        withExtendedLifetime(object) { .success(1) }
      }
    }
    Self.complete(root, outcome)
    #expect(kept.isCompleted)
    #expect(captured.value == nil)
  }

  @Test func aStageReturningAFutureReleasesItsBlock() {
    let root = Futures.Promise<Int>()
    let captured: WeakBox<Captured>
    let kept: Future<Int>
    do {
      let object = Captured()
      captured = WeakBox(object)
      kept = root.future.onSuccess(.immediate) { value -> Future<Int> in
        withExtendedLifetime(object) { Future(success: value + 1) }
      }
    }
    root.completeWithSuccess(1)
    #expect(kept.value == 2)
    #expect(captured.value == nil)
  }
}
