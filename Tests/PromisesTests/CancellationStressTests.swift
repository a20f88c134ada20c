import Dispatch
import Promises
import TestSupport
import Testing

/// Real threads racing `cancel()` against the fulfilment that runs a cancellable chain.
@Suite("Stress: cancel racing fulfil across a cancellable chain")
struct CancellationStressTests {
  final class Chain: Sendable {
    let root: CancellablePromise<Int>
    let resolver: Resolver<Int>
    let tail: CancellablePromise<Int>
    let task = CountingTask()
    let bodiesStarted = Counter()
    /// Bodies started when `cancel()` returned (recorded by the cancelling thread).
    let startedWhenCancelReturned = Recorder<Int>()

    init(stages: Int) {
      (root, resolver) = CancellablePromise<Int>.pending()
      root.appendCancellableTask(task, reject: nil)
      var tail = root
      let started = bodiesStarted
      for _ in 0..<stages {
        tail = tail.map(on: nil) { value in
          started.increment()
          return value + 1
        }
      }
      self.tail = tail
    }

    func cancel() {
      tail.cancel()
      startedWhenCancelReturned.record(bodiesStarted.value)
    }
  }

  static func check(_ chain: Chain, stages: Int) {
    let fulfilled = chain.tail.value == stages
    let cancelled = isPMKCancelled(chain.tail.error)
    #expect(fulfilled != cancelled, "the chain ends in exactly one of fulfilled or cancelled")
    #expect(chain.tail.isCancelled == cancelled, "isCancelled only when the cancel rejected a member")
    // The task belongs to the root: cancelled exactly once if the cancel reached the root while it
    // was pending, never if the root had fulfilled first (the task had left the chain).
    let rootCancelled = isPMKCancelled(chain.root.error)
    #expect(chain.task.cancels.value == (rootCancelled ? 1 : 0), "the task is cancelled once, only if its work was")
    // Stages run one after another, so at most one body can have passed its check when the cancel
    // landed; any other body starting after `cancel()` returned would be a violation.
    let atCancel = chain.startedWhenCancelReturned.values.first ?? -1
    #expect(chain.bodiesStarted.value <= atCancel + 1, "no body started after cancel() returned")
    if fulfilled { #expect(chain.bodiesStarted.value == stages) }
  }

  // The issue asks for 100,000 iterations of a 1,000-stage chain: 10⁸ stages, about half an hour
  // in a debug build on our 2-core machines (1,000 iterations measured 17 s). The everyday
  // `swift test` keeps the 1,000 stages and runs 200 iterations (2 × 10⁵ stages, about 3 s in
  // debug), plus 20,000 iterations of a 10-stage chain (about 7 s), where the cancel lands at every
  // point of the chain many times over: the races are per stage, not per chain length. CI also
  // runs this suite in a release build with `STRESS_FULL_SIZE=1`: the full 100,000 × 1,000.
  /// One size of the race: stages per chain, iterations, and the floor under `STRESS_DIVISOR`.
  struct Size: Sendable, CustomTestStringConvertible {
    let stages: Int
    let iterations: Int
    let minimum: Int
    var testDescription: String { "\(iterations) × \(stages) stages" }
  }

  static let sizes =
    Stress.fullSize
    ? [Size(stages: 1_000, iterations: 100_000, minimum: 100_000)]
    : [Size(stages: 1_000, iterations: 200, minimum: 20), Size(stages: 10, iterations: 20_000, minimum: 500)]

  @Test(arguments: sizes)
  func cancelRacingFulfilAcrossAChain(size: Size) {
    race(iterations: Stress.iterations(size.iterations, minimum: size.minimum)) {
      Chain(stages: size.stages)
    } _: { chain in
      chain.resolver.fulfill(0)
    } _: { chain in
      chain.cancel()
    } check: { chain in
      Self.check(chain, stages: size.stages)
    }
  }

  /// A pending member that only its context holds (through the list of waiting members): what the
  /// race below settles and cancels.
  final class LoneMember: Sendable {
    let context: CancelContext
    let promise: Promise<Int>
    let resolver: Resolver<Int>

    init() {
      let (member, resolver) = CancellablePromise<Int>.pending()
      (context, promise, self.resolver) = (member.cancelContext, member.promise, resolver)
    }
  }

  /// A member whose only outside reference the cancelling thread takes: once its cancel returns,
  /// that thread drops the member, and with it the context and the context's source, while the
  /// settling thread (which holds only the resolver) may still be leaving that source.
  final class MemberHandedToTheCanceller: Sendable {
    let member: Locked<CancellablePromise<Int>?>
    let promise: Promise<Int>
    let resolver: Resolver<Int>
    /// Whether the cancel rejected the member, read by the cancelling thread before it let go.
    let cancelRejected = Recorder<Bool>()

    init() {
      let (member, resolver) = CancellablePromise<Int>.pending()
      (promise, self.resolver) = (member.promise, resolver)
      self.member = Locked(member)
    }

    func cancelAndLetGo() {
      guard let member = member.withLock({ $0.take() }) else { return }
      member.cancel()
      cancelRejected.record(member.isCancelled)
    }
  }

  @Test func theCancellingThreadDropsTheLastReferenceWhileTheMemberLeaves() {
    race(iterations: Stress.iterations(100_000)) {
      MemberHandedToTheCanceller()
    } _: { handed in
      handed.resolver.fulfill(1)
    } _: { handed in
      handed.cancelAndLetGo()
    } check: { handed in
      let cancelled = expectFulfilledOrCancelled(handed.promise)
      #expect(handed.cancelRejected.values == [cancelled], "isCancelled only when the cancel rejected it")
    }
  }

  /// A promise refers to its member without retaining it, and the member is freed by whichever
  /// thread drops it last: the one leaving the context as the promise settles, or the cancel that
  /// took the list. Neither may touch it after the other freed it.
  @Test func aMemberOnlyItsContextHoldsSettlesWhileTheContextIsCancelled() {
    race(iterations: Stress.iterations(100_000)) {
      LoneMember()
    } _: { lone in
      lone.resolver.fulfill(1)
    } _: { lone in
      lone.context.cancel()
    } check: { lone in
      let cancelled = expectFulfilledOrCancelled(lone.promise)
      #expect(lone.context.isCancelled == cancelled, "isCancelled only when the cancel rejected it")
    }
  }
}

@Suite("Stress: when(fulfilled:concurrently:) with inputs resolving on many threads")
struct ConcurrentlyStressTests {
  /// An iterator that records whether two threads ever called `next()` at once.
  final class Source: @unchecked Sendable {
    // Safety of `@unchecked Sendable`: `produced` is only touched inside `next()`, whose calls
    // the test checks never overlap (`inside` counts concurrent callers).
    let inside = Gauge()
    let overlaps = Counter()
    let count: Int
    var produced = 0

    init(count: Int) {
      self.count = count
    }

    func next() -> CancellablePromise<Int>? {
      if inside.enter() > 1 { overlaps.increment() }
      defer { inside.leave() }
      guard produced < count else { return nil }
      let value = produced
      produced += 1
      let (promise, resolver) = CancellablePromise<Int>.pending()
      DispatchQueue.global().async { resolver.fulfill(value) }
      return promise
    }
  }

  @Test func pullsInOrderOneThreadAtATimeAndCollectsEveryValue() async {
    for _ in 0..<Stress.iterations(20, minimum: 2) {
      let source = Source(count: 500)
      let all = when(fulfilled: AnyIterator { source.next() }, concurrently: 4)
      let result = await outcome(of: all.promise)
      #expect((try? result.get()) == Array(0..<500))
      #expect(source.overlaps.value == 0, "the iterator was never called from two threads at once")
    }
  }
}
