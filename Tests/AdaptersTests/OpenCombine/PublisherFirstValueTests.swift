#if OpenCombine
  import Adapters
  import Futures
  import OpenCombine
  import Promises
  import TestSupport
  import Testing
  import Tokens

  @Suite("OpenCombine: first value and AnyCancellable")
  struct PublisherFirstValueTests {
    /// A subject whose subscriptions report their cancels.
    struct WatchedSubject: Sendable {
      let subject = PassthroughSubjectBox()
      let cancels = Counter()

      var publisher: AnyPublisher<Int, TestFailure> {
        let cancels = cancels
        return subject.subject.handleEvents(receiveCancel: { cancels.increment() }).eraseToAnyPublisher()
      }
    }

    @Test(arguments: FacadeStyle.allCases)
    func theFirstValueEndsTheWorkAndCancelsTheSubscription(style: FacadeStyle) async throws {
      let watched = WatchedSubject()
      let started = await watched.publisher.firstValueWork.start(as: style)
      watched.subject.subject.send(1)
      watched.subject.subject.send(2)
      #expect(try await started.outcome().get() == 1)
      #expect(watched.cancels.value == 1)
    }

    @Test(arguments: FacadeStyle.allCases)
    func cancellingEndsCancelledAndCancelsTheSubscription(style: FacadeStyle) async throws {
      let watched = WatchedSubject()
      let started = await watched.publisher.firstValueWork.start(as: style)
      started.cancel()
      let outcome = await started.outcome()
      #expect(outcome.failure?.isCancellation == true)
      await started.workEnded()
      #expect(watched.cancels.value == 1)
      watched.subject.subject.send(1)
      #expect(await started.outcome().failure?.isCancellation == true)
    }

    @Test(arguments: FacadeStyle.allCases)
    func aPublisherThatFinishesWithoutAValueFailsClearly(style: FacadeStyle) async throws {
      let watched = WatchedSubject()
      let started = await watched.publisher.firstValueWork.start(as: style)
      watched.subject.subject.send(completion: .finished)
      let outcome = await started.outcome()
      #expect(outcome.failure is PublisherFinishedWithoutValueError)
      #expect(outcome.failure?.isCancellation == false)
    }

    @Test(arguments: FacadeStyle.allCases)
    func aPublishersFailureIsTheOutcome(style: FacadeStyle) async throws {
      let watched = WatchedSubject()
      let started = await watched.publisher.firstValueWork.start(as: style)
      watched.subject.subject.send(completion: .failure(TestFailure()))
      #expect(await started.outcome().failure is TestFailure)
    }

    @Test func aSynchronousPublishersValueFulfilsThePromise() async throws {
      #expect(try await Just(5).firstValuePromise().async() == 5)
      #expect(try await Just("five").firstValueFuture().async() == "five")
    }

    @Test func anAlreadyCancelledTokenSubscribesToNothing() async throws {
      let watched = WatchedSubject()
      let request = CancellationRequest()
      request.cancel()
      let outcome = await withCheckedContinuation { continuation in
        watched.publisher.firstValueWork.start(token: request.token) { continuation.resume(returning: $0) }
      }
      #expect(outcome.failure is CancellationError)
      #expect(watched.cancels.value == 0)
    }

    // A long-lived publisher keeps its subscribers until they cancel: a cancelled consumer's
    // completion, and what it holds, is released at the cancel.
    @Test func aCancelledConsumerOfALongLivedPublisherIsReleasedAtOnce() {
      let subject = PassthroughSubjectBox()
      let neverPromised = OpenCombine.Future<Int, TestFailure> { _ in }
      let publishers = [subject.subject.eraseToAnyPublisher(), neverPromised.eraseToAnyPublisher()]
      for publisher in publishers {
        let stop = CancelSource()
        let (captured, reported) = Self.startCapturing(publisher, signal: stop.signal)
        #expect(captured.value != nil, "the consumer is released before any cancel")
        stop.cancel()
        #expect(captured.value == nil, "the cancelled consumer is still held by the publisher")
        #expect(reported.values == [true])
      }
      withExtendedLifetime(neverPromised) {}
    }

    /// Starts `publisher`'s first-value work with a completion that captures an object and
    /// records whether the outcome was a cancellation; returns a weak view of the object.
    static func startCapturing(
      _ publisher: AnyPublisher<Int, TestFailure>, signal: CancelSignal
    ) -> (captured: WeakBox<Tracked>, reported: Recorder<Bool>) {
      let captured = Tracked()
      let reported = Recorder<Bool>()
      publisher.firstValueWork.start(signal: signal) { result in
        withExtendedLifetime(captured) { reported.record(result.failure?.isCancellation == true) }
      }
      return (WeakBox(captured), reported)
    }

    @Test func cancellingAnAnyCancellableFromARequestCancelsItsToken() {
      let request = CancellationRequest()
      let cancellable = request.asAnyCancellable()
      #expect(!request.token.isCancelled)
      cancellable.cancel()
      #expect(request.token.isCancelled)
    }

    @Test func releasingAnAnyCancellableFromARequestCancelsItsToken() {
      let request = CancellationRequest()
      var cancellables = Set<AnyCancellable>()
      request.asAnyCancellable().store(in: &cancellables)
      #expect(!request.token.isCancelled)
      cancellables.removeAll()
      #expect(request.token.isCancelled)
    }

    @Test func cancellingATokenCancelsTheSubscription() {
      let watched = WatchedSubject()
      let received = Recorder<Int>()
      let request = CancellationRequest()
      let subscription = watched.publisher.sink(receiveCompletion: { _ in }, receiveValue: { received.record($0) })
      subscription.cancel(when: request.token)
      watched.subject.subject.send(1)
      request.cancel()
      watched.subject.subject.send(2)
      #expect(received.values == [1])
      #expect(watched.cancels.value == 1)
      withExtendedLifetime(subscription) {}
    }

    @Test func theTokenDoesNotKeepAReleasedSubscriptionAlive() {
      let watched = WatchedSubject()
      let request = CancellationRequest()
      var subscription: AnyCancellable? = watched.publisher.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
      subscription?.cancel(when: request.token)
      subscription = nil
      #expect(watched.cancels.value == 1)
      request.cancel()
      #expect(watched.cancels.value == 1)
    }
  }

  struct TestFailure: Error, Equatable {}

  /// A subject shared with the test's closures.
  //
  // Safety of `@unchecked Sendable`: OpenCombine's subjects lock their own state.
  final class PassthroughSubjectBox: @unchecked Sendable {
    let subject = PassthroughSubject<Int, TestFailure>()
  }
#endif
