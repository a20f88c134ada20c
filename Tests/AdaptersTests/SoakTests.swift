import Adapters
import Atomics
import Dispatch
import Foundation
import Futures
import Promises
import TestSupport
import Testing
import Tokens

/// A bounded mixed workload of every facade from several threads at once, against shared
/// long-lived objects: every handler runs exactly once (or never), every chain settles exactly
/// once, and everything the workload made is freed at the end.
///
/// It runs about a second in the everyday `swift test`; set `SOAK_SECONDS` (for example 120)
/// for a longer soak.
@Suite("Soak: every facade from several threads")
struct SoakTests {
  static let seconds: Double = {
    guard let text = ProcessInfo.processInfo.environment["SOAK_SECONDS"], let value = Double(text), value > 0 else {
      return 1
    }
    return value
  }()

  // The limit turns a leaked probe (`Probe.allFreed()` would wait for ever) into a failure that
  // names the test; it is far beyond the default second of work (raise it with a `SOAK_SECONDS`
  // near it).
  @Test(.timeLimit(.minutes(20)))
  func aMixedWorkloadKeepsEveryExactlyOnceCountAndFreesEverything() async {
    let shared = SharedObjects()
    let baseline = shared.snapshot
    let tally = Tally()
    let deadline = ContinuousClock.now + .seconds(Self.seconds)
    let workers = DispatchGroup()
    for worker in 0..<3 {
      workers.enter()
      let thread = Thread {
        var round = worker
        while ContinuousClock.now < deadline {
          Workload.syncRound(round, shared: shared, tally: tally)
          round &+= 1
        }
        workers.leave()
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    var round = 0
    while ContinuousClock.now < deadline {
      await Workload.asyncRound(round, shared: shared, tally: tally)
      round &+= 1
    }
    await withCheckedContinuation { continuation in workers.notify(queue: .global()) { continuation.resume() } }

    #expect(tally.violations.value == 0, "rounds: \(tally.rounds.value)")
    #expect(tally.rounds.value > 0)
    // Every probe is freed, but not necessarily yet: an async round's operation (its task and the
    // closure that captures the probe) ends on its own thread after the cancel it answered.
    await Probe.allFreed()
    #expect(shared.snapshot == baseline)
    shared.finish()
  }
}

/// Objects every round of every thread uses: a long-lived token, a long-lived pending promise and
/// a long-lived cancel promise.
private final class SharedObjects: Sendable {
  let request = CancellationRequest()
  let pending: Promises.Promise<Int>
  let resolver: Resolver<Int>
  let cancelPromise: Promises.Promise<Void>

  init() {
    (pending, resolver) = Promises.Promise<Int>.pending()
    cancelPromise = request.token.asCancelPromise()
  }

  /// What the shared objects hold: registrations on the token, callbacks in the promises.
  var snapshot: [Int] {
    [request.token.signal.storage.registrationCount, pending.waitingCount, cancelPromise.waitingCount]
  }

  func finish() {
    resolver.fulfill(0)
    request.cancel()
  }
}

/// Counts rounds and broken exactly-once rules.
private final class Tally: Sendable {
  let rounds = Counter()
  let violations = Counter()

  func expect(_ condition: Bool) {
    if !condition { violations.increment() }
  }
}

/// An object captured by every handler and block of the workload: the number alive must return
/// to zero once the workload ends.
private final class Probe: Sendable {
  static let live = ManagedAtomic<Int>(0)
  /// The callers of ``allFreed()`` waiting for the last probe to go.
  static let waiters = Locked<[CheckedContinuation<Void, Never>]>([])

  init() { Self.live.wrappingIncrement(by: 1, ordering: .relaxed) }

  deinit {
    guard Self.live.wrappingDecrementThenLoad(by: 1, ordering: .acquiringAndReleasing) == 0 else { return }
    // Under the lock after the decrement, so a waiter that read a count above zero (under the
    // lock) is already in the list.
    let waiting = Self.waiters.withLock { list in
      defer { list = [] }
      return list
    }
    for waiter in waiting { waiter.resume() }
  }

  /// Returns once no probe is alive (when no new ones are being made).
  static func allFreed() async {
    await withCheckedContinuation { continuation in
      let noneLeft = waiters.withLock { list in
        if live.load(ordering: .acquiring) == 0 { return true }
        list.append(continuation)
        return false
      }
      if noneLeft { continuation.resume() }
    }
  }
}

private enum Workload {
  /// One round of synchronous work: the kind and whether it is cancelled follow from `round`.
  static func syncRound(_ round: Int, shared: SharedObjects, tally: Tally) {
    let cancel = (round / 4).isMultiple(of: 2)
    switch round % 4 {
    case 0: tokens(cancel: cancel, shared: shared, tally: tally)
    case 1: promises(cancel: cancel, shared: shared, tally: tally)
    case 2: cancellablePromises(cancel: cancel, shared: shared, tally: tally)
    default: futures(cancel: cancel, shared: shared, tally: tally)
    }
    tally.rounds.increment()
  }

  static func tokens(cancel: Bool, shared: SharedObjects, tally: Tally) {
    let cancelRuns = Counter()
    let completeRuns = Counter()
    do {
      let request = CancellationRequest()
      let probe = Probe()
      request.token.onCancel { withExtendedLifetime(probe) { cancelRuns.increment() } }
      request.token.onComplete { _ in withExtendedLifetime(probe) { completeRuns.increment() } }
      let onShared = shared.request.token.onCancel { withExtendedLifetime(probe) { cancelRuns.increment() } }
      let unregistered = request.token.onCancel { cancelRuns.increment() }
      tally.expect(unregistered.unregister())
      if cancel { request.cancel() }
      tally.expect(onShared.unregister())
    }  // a request dropped without cancel completes its token not cancelled
    tally.expect(cancelRuns.value == (cancel ? 1 : 0))
    tally.expect(completeRuns.value == 1)
  }

  static func promises(cancel: Bool, shared: SharedObjects, tally: Tally) {
    let settled = Counter()
    let probe = Probe()
    let (work, resolver) = Promises.Promise<Int>.pending()
    let guarded = when(work, while: shared.request.token.asCancelPromise())
    let alsoShared = when(work, while: shared.cancelPromise)
    guarded.map(on: nil) { value in withExtendedLifetime(probe) { value + 1 } }.pipe { _ in settled.increment() }
    if cancel { resolver.reject(PMKError.cancelled) } else { resolver.fulfill(1) }
    tally.expect(settled.value == 1)
    tally.expect(alsoShared.isResolved)
  }

  static func cancellablePromises(cancel: Bool, shared: SharedObjects, tally: Tally) {
    let settled = Counter()
    let taskCancels = Counter()
    let probe = Probe()
    let (root, resolver) = CancellablePromise<Int>.pending()
    root.appendCancellableTask(ProbeTask(probe: probe, cancels: taskCancels), reject: nil)
    let tail = root.map(on: nil) { value in withExtendedLifetime(probe) { value + 1 } }
    tail.asPromise().pipe { _ in settled.increment() }
    if cancel {
      tail.cancel()
      tail.cancel()  // idempotent
    } else {
      resolver.fulfill(1)
    }
    resolver.fulfill(2)  // loses
    tally.expect(settled.value == 1)
    tally.expect(taskCancels.value == (cancel ? 1 : 0))
    tally.expect(tail.value == (cancel ? nil : 2))
  }

  static func futures(cancel: Bool, shared: SharedObjects, tally: Tally) {
    let settled = Counter()
    let requests = Counter()
    let probe = Probe()
    let producer = Futures.Promise<Int>()
    producer.onRequestCancel(.immediate) { _ in
      withExtendedLifetime(probe) { requests.increment() }
      return .complete(.cancelled)
    }
    let handedOver = Futures.Promise<Int>()
    handedOver.completeUsingFuture(producer.future)
    let tail = handedOver.future.map(.immediate) { value in withExtendedLifetime(probe) { value + 1 } }
    tail.onComplete(.immediate) { (_: FutureResult<Int>) in settled.increment() }
    shared.request.token.register(future: tail)  // registered on the shared token: must leave
      .unregister()
    if cancel {
      tail.getCancelToken().cancel()
      tail.getCancelToken().cancel()  // a completed future: nothing more
    } else {
      producer.completeWithSuccess(1)
    }
    tally.expect(settled.value == 1)
    tally.expect(requests.value == (cancel ? 1 : 0))
    tally.expect(tail.value == (cancel ? nil : 2))
  }

  /// One round of the async bridges.
  static func asyncRound(_ round: Int, shared: SharedObjects, tally: Tally) async {
    let probe = Probe()
    switch round % 3 {
    case 0:
      // A cancelled await of the long-lived pending promise leaves nothing in it.
      let waiter = Task { try await shared.pending.async() }
      waiter.cancel()
      tally.expect((try? await waiter.value) == nil)
    case 1:
      let operationEnds = Counter()
      let promise = CancellablePromise<Int> {
        defer { operationEnds.increment() }
        try await suspendUntilCancelled()
        return withExtendedLifetime(probe) { 1 }
      }
      promise.cancel()
      tally.expect((try? await promise.async()) == nil)
      _ = try? await promise.asPromise().async()
      tally.expect(promise.isRejected)
    default:
      let future = Future<Int> {
        try await suspendUntilCancelled()
        return withExtendedLifetime(probe) { 1 }
      }
      let waiter = Task { try await future.async() }
      future.getCancelToken().cancel()
      tally.expect((try? await waiter.value) == nil)
    }
    tally.rounds.increment()
  }
}

/// A task of a cancellable chain that counts its cancels.
private final class ProbeTask: CancellableTask, Sendable {
  let probe: Probe
  let cancels: Counter

  init(probe: Probe, cancels: Counter) {
    self.probe = probe
    self.cancels = cancels
  }

  func cancel() { cancels.increment() }
  var isCancelled: Bool { cancels.value > 0 }
}
