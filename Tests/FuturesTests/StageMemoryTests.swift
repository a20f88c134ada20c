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

  /// Makes a stage on a pending root whose block captures a fresh object, completes the root with
  /// `outcome`, and returns the kept stage with a weak reference to the captured object.
  static func keptStage(
    completing outcome: Outcome, _ makeStage: (Future<Int>, Captured) -> Future<Int>
  ) -> (kept: Future<Int>, captured: WeakBox<Captured>) {
    let root = Futures.Promise<Int>()
    let object = Captured()
    let captured = WeakBox(object)
    let kept = makeStage(root.future, object)
    complete(root, outcome)
    return (kept, captured)
  }

  @Test(arguments: Outcome.allCases)
  func aMapStageReleasesItsBlock(outcome: Outcome) {
    let (kept, captured) = Self.keptStage(completing: outcome) { future, object in
      future.map(.immediate) { value in withExtendedLifetime(object) { value + 1 } }
    }
    #expect(kept.isCompleted)
    #expect(captured.value == nil)
  }

  @Test(arguments: Outcome.allCases)
  func anOnCompleteStageReleasesItsBlock(outcome: Outcome) {
    let (kept, captured) = Self.keptStage(completing: outcome) { future, object in
      future.onComplete(.immediate) { (_: FutureResult<Int>) -> Completion<Int> in
        withExtendedLifetime(object) { .success(1) }
      }
    }
    #expect(kept.isCompleted)
    #expect(captured.value == nil)
  }

  @Test(arguments: Outcome.allCases)
  func aStageReturningAFutureReleasesItsBlock(outcome: Outcome) {
    let (kept, captured) = Self.keptStage(completing: outcome) { future, object in
      future.onSuccess(.immediate) { value -> Future<Int> in
        withExtendedLifetime(object) { Future(success: value + 1) }
      }
    }
    #expect(kept.isCompleted)
    #expect(captured.value == nil)
  }
}
