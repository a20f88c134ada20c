import CancelCore
import Testing

@testable import Futures

/// The request rules of one future, on `FutureRequestStateMachine` alone: no lock, no thread, no
/// user code. The settle machine it reads is made by hand.
@Suite("Futures: request state machine")
struct RequestStateMachineTests {
  typealias Machine = FutureRequestStateMachine
  typealias Callbacks = SettleStateMachine<ErasedResult, FutureCallback>
  /// Where the requests of these tests start: nowhere in particular.
  static let facts = RequestFacts(origin: .unknown, start: Future<Int>(success: 0))

  static let force = CancellationOptions.forceThisFutureToBeCancelledImmediately
  static let local = CancellationOptions.doNotForwardRequest
  static let always = CancellationOptions.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting

  static func handler() -> RequestHandler {
    RequestHandler(executor: .immediate) { _, _ in nil }
  }

  static func callback() -> FutureCallback {
    FutureCallback { _ in nil }
  }

  /// The key of a callback made to wait on `future`.
  static func key(on future: _FutureCore) -> RegistrationKey {
    future.lock.withLock { () -> RegistrationKey in
      guard case .queued(let key) = future.machine.observe(callback()) else { preconditionFailure() }
      return key
    }
  }

  /// A machine waiting on `parent`, and the key of its callback there.
  static func stage(of parent: _FutureCore) -> (Machine, RegistrationKey) {
    var machine = Machine()
    let key = key(on: parent)
    machine.waitOnParent(parent, key: key)
    return (machine, key)
  }

  @Test func aRequestOnACompletedFutureChangesNothing() {
    var machine = Machine()
    _ = machine.addHandler(Self.handler(), isSettled: false)
    let action = machine.request([], facts: Self.facts, isSettled: true)
    #expect(action == nil)
    #expect(!machine.isRequested)
  }

  @Test func aRequestWithNowhereToGoIsKeptForTheNextHandOver() throws {
    var machine = Machine()
    let step = machine.request([Self.force], facts: Self.facts, isSettled: false)
    let action = try #require(step)
    #expect(action.complete)
    guard case .none = action.forward else {
      Issue.record("nothing to forward to yet")
      return
    }
    let source = Future<Int>(pending: ())
    let key = Self.key(on: source)
    guard case .bound(_, let forward, _) = machine.bind(to: source, key: key, replacing: false, isSettled: false) else {
      Issue.record("a pending future binds")
      return
    }
    #expect(forward == [Self.force])
    #expect(machine.waitsOnly(on: source, key: key))
  }

  @Test func theFirstRequestRunsEveryHandlerOnceUnlessForcedAndNotForwarded() {
    var machine = Machine()
    _ = machine.addHandler(Self.handler(), isSettled: false)
    _ = machine.addHandler(Self.handler(), isSettled: false)
    let counts = [[Self.force, Self.local], [], [Self.force], [Self.local]].map { options in
      machine.request(options, facts: Self.facts, isSettled: false)?.handlers.count
    }
    #expect(counts == [0, 2, 0, 0])
    // A handler registered now runs at once (with every request so far), and no later request
    // runs it again.
    guard case .run = machine.addHandler(Self.handler(), isSettled: false) else {
      Issue.record("a handler registered after a request runs at once")
      return
    }
    #expect(machine.request([], facts: Self.facts, isSettled: false)?.handlers.count == 0)
    #expect(machine.requestedOptions == [Self.force, Self.local])
  }

  @Test func aHandlerRegisteredAfterOnlyForcedUnforwardedRequestsWaitsForOneThatTellsTheProducer() {
    var machine = Machine()
    _ = machine.request([Self.force, Self.local], facts: Self.facts, isSettled: false)
    _ = machine.request([Self.force, Self.local], facts: Self.facts, isSettled: false)
    guard case .added = machine.addHandler(Self.handler(), isSettled: false) else {
      Issue.record("no request told the producer: the handler waits")
      return
    }
    #expect(machine.request([Self.local], facts: Self.facts, isSettled: false)?.handlers.count == 1)
    guard case .run = machine.addHandler(Self.handler(), isSettled: false) else {
      Issue.record("a request told the producer: a handler registered now runs at once")
      return
    }
  }

  @Test func aHandlerRegisteredAfterARequestRunsWithEveryRequestSoFar() {
    var machine = Machine()
    _ = machine.request([Self.always], facts: Self.facts, isSettled: false)
    _ = machine.request([Self.force], facts: Self.facts, isSettled: false)
    guard case .run(let options, _) = machine.addHandler(Self.handler(), isSettled: false) else {
      Issue.record("the handler runs with the earlier requests")
      return
    }
    #expect(options == [Self.always, Self.force])
    guard case .release = machine.addHandler(Self.handler(), isSettled: true) else {
      Issue.record("a completed future releases the handler")
      return
    }
  }

  @Test func aStageForwardsARequestToItsParent() throws {
    let parent = Future<Int>(pending: ())
    var (machine, key) = Self.stage(of: parent)
    let step = machine.request([Self.force], facts: Self.facts, isSettled: false)
    let action = try #require(step)
    guard case .one(let node, let forwardKey) = action.forward else {
      Issue.record("forwarded to the parent")
      return
    }
    #expect(node === parent && forwardKey == key)
    #expect(action.complete)
    guard case .none = action.detach else {
      Issue.record("a forwarded request detaches nothing")
      return
    }
  }

  @Test func doNotForwardDetachesTheStageAndCompletesIt() throws {
    let parent = Future<Int>(pending: ())
    var (machine, _) = Self.stage(of: parent)
    let step = machine.request([Self.local], facts: Self.facts, isSettled: false)
    let action = try #require(step)
    #expect(action.complete)
    guard case .one(let node, _) = action.detach, case .none = action.forward, case .none = machine.upstream
    else {
      Issue.record("detached from the parent, nothing forwarded")
      return
    }
    #expect(node === parent)
  }

  @Test func aConsumerRequestReachesASharedFutureOnlyFromItsLastConsumer() {
    var callbacks = Callbacks()
    guard case .queued(let first) = callbacks.observe(Self.callback()),
      case .queued(let second) = callbacks.observe(Self.callback())
    else {
      Issue.record("both consumers wait")
      return
    }
    var machine = Machine()
    guard
      case .detachConsumer = machine.consumerRequest(
        key: first, options: [], facts: Self.facts, consumerCompleted: false, callbacks: &callbacks)
    else {
      Issue.record("the first of two consumers detaches")
      return
    }
    #expect(!machine.isRequested && callbacks.waitingCount == 1)
    guard
      case .process = machine.consumerRequest(
        key: second, options: [], facts: Self.facts, consumerCompleted: false, callbacks: &callbacks)
    else {
      Issue.record("the last consumer's request reaches the future")
      return
    }
    #expect(machine.isRequested && callbacks.waitingCount == 1)
    guard
      case .stale = machine.consumerRequest(
        key: first, options: [], facts: Self.facts, consumerCompleted: false, callbacks: &callbacks)
    else {
      Issue.record("a consumer that left is stale")
      return
    }
  }

  @Test func forwardEvenIfOthersWaitReachesASharedFuture() {
    var callbacks = Callbacks()
    guard case .queued(let first) = callbacks.observe(Self.callback()),
      case .queued = callbacks.observe(Self.callback())
    else {
      Issue.record("both consumers wait")
      return
    }
    var machine = Machine()
    guard
      case .process(_, let removed) = machine.consumerRequest(
        key: first, options: [Self.always], facts: Self.facts, consumerCompleted: true, callbacks: &callbacks)
    else {
      Issue.record("the request reaches the future")
      return
    }
    // A completed consumer no longer counts as waiting.
    #expect(removed != nil && callbacks.waitingCount == 1)
  }

  @Test func aProducerCompletionLosesOnceTheFutureWasHandedOver() {
    var machine = Machine()
    #expect(machine.allowsCompletion(unlessClaimed: true))
    let claims = [machine.claim(isSettled: false), machine.claim(isSettled: false)]
    #expect(claims == [true, false])
    #expect(!machine.allowsCompletion(unlessClaimed: true))
    #expect(machine.allowsCompletion(unlessClaimed: false))
    #expect(!machine.onlyProducerCanComplete)
  }

  @Test func aReplacingHandOverForwardsTheEarlierRequestsUnforced() {
    let first = Future<Int>(pending: ())
    let second = Future<Int>(pending: ())
    var (machine, _) = Self.stage(of: first)
    _ = machine.request([Self.force, Self.always], facts: Self.facts, isSettled: false)
    let key = Self.key(on: second)
    guard
      case .bound(let replaced, let forward, _) = machine.bind(to: second, key: key, replacing: true, isSettled: false),
      case .one(let old, _) = replaced
    else {
      Issue.record("the hand-over replaces the parent")
      return
    }
    #expect(old === first)
    #expect(forward == [Self.always])
  }

  @Test func completionTakesTheLinksHandlersAndEndObservers() {
    let parent = Future<Int>(pending: ())
    var (machine, _) = Self.stage(of: parent)
    _ = machine.addHandler(Self.handler(), isSettled: false)
    let added = machine.addEndObserver({}, isSettled: false)
    #expect(added)
    let released = machine.completed()
    #expect(released.handlers.count == 1 && released.endObservers.count == 1)
    guard case .one = released.upstream, case .none = machine.upstream else {
      Issue.record("the link is taken")
      return
    }
    let addedLate = machine.addEndObserver({}, isSettled: true)
    #expect(!addedLate)
  }
}
