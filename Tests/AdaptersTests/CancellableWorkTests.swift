import Adapters
import Dispatch
import TestSupport
import Testing
import Tokens

@Suite("CancellableWork")
struct CancellableWorkTests {
  struct Refused: Error {}

  /// Work that completes on another thread unless its signal is cancelled first: a fair model of
  /// every adapter's engine (one `SettleCell` decides between the two).
  static func racingWork(value: Int, started: Counter = Counter()) -> CancellableWork<Int> {
    CancellableWork { signal, completion in
      started.increment()
      let outcome = SettleCell<Swift.Result<Int, any Error>>()
      outcome.observe(completion)
      let registration = signal.onCancel { (reason: any Error) in outcome.settle(.failure(reason)) }
      outcome.observe { _ in registration.unregister() }
      DispatchQueue.global().async { outcome.settle(.success(value)) }
    }
  }

  @Test func runReturnsTheValue() async throws {
    #expect(try await Self.racingWork(value: 5).run() == 5)
  }

  @Test func anAlreadyCancelledTaskStartsTheWorkOnACancelledSignalAndThrows() async {
    let sawCancelledSignal = Counter()
    let work = CancellableWork<Int> { signal, completion in
      if signal.isCancelled { sawCancelledSignal.increment() }
      completion(signal.reason.map { .failure($0) } ?? .success(1))
    }
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await work.run()
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(sawCancelledSignal.value == 1)
  }

  @Test func cancellingTheTokenThrowsItsReason() async {
    let request = CancellationRequest()
    let work = CancellableWork<Int> { signal, completion in
      signal.onCancel { (reason: any Error) in completion(.failure(reason)) }
      request.cancel(reason: Refused())
    }
    await #expect(throws: Refused.self) { try await work.run(token: request.token) }
  }

  @Test func aFinishedRunLeavesNothingRegisteredOnTheToken() async throws {
    let request = CancellationRequest()
    #expect(try await Self.racingWork(value: 3).run(token: request.token) == 3)
    #expect(request.token.signal.storage.registrationCount == 0, "the run's link to the token must be gone")
  }

  @Test func startOnATokenHandsItsSignalToTheEngine() {
    let request = CancellationRequest()
    let seen = Recorder<Bool>()
    let work = CancellableWork<Int> { signal, completion in
      seen.record(signal == request.token.signal)
      completion(.success(0))
    }
    work.start(token: request.token) { _ in }
    #expect(seen.values == [true])
  }

  /// Many tasks, each cancelled at a random moment while its work completes on another thread:
  /// every run returns or throws exactly once (a continuation resumed twice or never would crash
  /// or hang the test).
  @Test func tenThousandTasksRacingCancellationEachEndExactlyOnce() async {
    let count = Stress.iterations(10_000, minimum: 1_000)
    let values = Counter()
    let cancellations = Counter()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        let task = Task {
          do {
            _ = try await Self.racingWork(value: index).run()
            values.increment()
          } catch {
            #expect(error is CancellationError)
            cancellations.increment()
          }
        }
        group.addTask {
          if index % 3 != 0 { await Task.yield() }
          task.cancel()
          await task.value
        }
      }
    }
    #expect(values.value + cancellations.value == count)
  }
}
