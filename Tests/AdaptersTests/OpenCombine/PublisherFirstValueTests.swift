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
