import CancelCore
import TestSupport
import Testing

/// Two threads racing the core's operations; each iteration checks that exactly one legal outcome
/// happened. Run with `STRESS_DIVISOR` under the thread sanitizer to shorten them.
@Suite("Stress: two threads racing")
struct StressTests {
  static let iterations = Stress.iterations(100_000)

  final class Probe: Sendable {
    let source = CancelSource()
    let ran = Counter()
    let outcomes = Recorder<Bool>()
  }

  @Test func cancelAgainstRegisterRunsEveryHandlerExactlyOnce() {
    race(iterations: Self.iterations) {
      Probe()
    } _: { probe in
      probe.source.cancel()
    } _: { probe in
      probe.source.signal.onCancel { probe.ran.increment() }
    } check: { probe in
      #expect(probe.ran.value == 1)
      #expect(probe.source.isCancelled)
    }
  }

  final class RegisteredProbe: Sendable {
    let source = CancelSource()
    let ran = Counter()
    let removed = Recorder<Bool>()
    let registration: CancelRegistration
    init() {
      let ran = ran
      registration = source.signal.onCancel { ran.increment() }
    }
  }

  @Test func cancelAgainstUnregisterEitherRunsOrRemovesNeverBoth() {
    race(iterations: Self.iterations) {
      RegisteredProbe()
    } _: { probe in
      probe.source.cancel()
    } _: { probe in
      probe.removed.record(probe.registration.unregister())
    } check: { probe in
      let removed = probe.removed.values == [true]
      #expect(removed != (probe.ran.value == 1))
      #expect(probe.ran.value <= 1)
      #expect(probe.source.signal.storage.registrationCount == 0)
    }
  }

  @Test func cancelAgainstCloseHasExactlyOneWinner() {
    race(iterations: Self.iterations) { () -> Probe in
      let probe = Probe()
      probe.source.signal.onComplete { probe.outcomes.record($0) }
      return probe
    } _: { probe in
      probe.outcomes.record(probe.source.cancel(reason: CancellationError()))
    } _: { probe in
      probe.outcomes.record(probe.source.close())
    } check: { probe in
      // [handler outcome, cancel result, close result] in some order; exactly one call won and the
      // handler saw that winner.
      let values = probe.outcomes.values
      #expect(values.count == 3)
      #expect(probe.source.isCompleted)
      let handlerSawCancel = probe.source.isCancelled
      #expect(values.filter { $0 }.count == (handlerSawCancel ? 2 : 1))
    }
  }

  final class LinkProbe: Sendable {
    let parent = CancelSource()
    let child = CancelSource()
    let childRan = Counter()
    init() {
      let childRan = childRan
      child.signal.onCancel { childRan.increment() }
    }
  }

  @Test func parentCancelAgainstLinkAlwaysReachesTheChild() {
    race(iterations: Self.iterations) {
      LinkProbe()
    } _: { probe in
      probe.parent.cancel()
    } _: { probe in
      probe.child.link(to: probe.parent.signal)
    } check: { probe in
      #expect(probe.child.isCancelled)
      #expect(probe.childRan.value == 1)
      #expect(probe.parent.signal.storage.registrationCount == 0)
    }
  }

  @Test func parentCancelAgainstChildCloseEndsTheChildOnce() {
    race(iterations: Self.iterations) { () -> LinkProbe in
      let probe = LinkProbe()
      probe.child.link(to: probe.parent.signal)
      return probe
    } _: { probe in
      probe.parent.cancel()
    } _: { probe in
      probe.child.close()
    } check: { probe in
      #expect(probe.child.isCompleted)
      #expect(probe.childRan.value == (probe.child.isCancelled ? 1 : 0))
      #expect(probe.parent.signal.storage.registrationCount == 0)
    }
  }

  @Test func registerAndUnregisterFromTwoThreadsOnOneSourceLoseNothing() {
    let source = CancelSource()
    let ran = Counter()
    race(iterations: Self.iterations) {
      ()
    } _: { _ in
      let registration = source.signal.onCancel { ran.increment() }
      #expect(registration.unregister())
    } _: { _ in
      let registration = source.signal.onComplete { _ in ran.increment() }
      #expect(registration.unregister())
    } check: { _ in
    }
    #expect(source.signal.storage.registrationCount == 0)
    let last = Counter()
    source.signal.onCancel { last.increment() }
    source.cancel()
    #expect(ran.value == 0)
    #expect(last.value == 1)
  }
}
