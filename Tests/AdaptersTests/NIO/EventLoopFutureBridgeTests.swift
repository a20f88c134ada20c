#if NIO
  import Adapters
  import Dispatch
  import Futures
  import NIOCore
  import NIOEmbedded
  import Promises
  import TestSupport
  import Testing
  import Tokens

  @Suite("SwiftNIO: EventLoopFuture bridges")
  struct EventLoopFutureBridgeTests {
    /// A thread-safe loop with manual time (callbacks run on its own queue).
    let loop = NIOAsyncTestingEventLoop()

    @Test(arguments: FacadeStyle.allCases)
    func cancellingOurSideFailsTheNIOPromiseWithACancellation(style: FacadeStyle) async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let started = await nioPromise.cancellableWork.start(as: style)
      started.cancel()
      let outcome = await started.outcome()
      #expect(throws: (any Error).self) { try outcome.get() }
      #expect(outcome.failure?.isCancellation == true)
      let nioError = await #expect(throws: (any Error).self) { try await nioPromise.futureResult.get() }
      #expect(nioError?.isCancellation == true, "the NIO promise failed with \(String(describing: nioError))")
    }

    @Test(arguments: FacadeStyle.allCases)
    func aNIOPromiseThatEndsFirstEndsOursWithItsValue(style: FacadeStyle) async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let started = await nioPromise.cancellableWork.start(as: style)
      nioPromise.succeed(42)
      #expect(try await started.outcome().get() == 42)
      started.cancel()
      #expect(try await nioPromise.futureResult.get() == 42)
    }

    @Test(arguments: FacadeStyle.allCases)
    func aNIOFailureEndsOursWithTheSameErrorWhichIsNoCancellation(style: FacadeStyle) async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let started = await nioPromise.cancellableWork.start(as: style)
      nioPromise.fail(ChannelError.ioOnClosedChannel)
      let outcome = await started.outcome()
      #expect(outcome.failure as? ChannelError == .ioOnClosedChannel)
      #expect(outcome.failure?.isCancellation == false)
    }

    @Test(arguments: FacadeStyle.allCases)
    func cancellingAConsumerOfANIOFutureEndsOursAndLeavesTheNIOFutureRunning(style: FacadeStyle) async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let started = await nioPromise.futureResult.cancellableWork.start(as: style)
      started.cancel()
      #expect(await started.outcome().failure?.isCancellation == true)
      nioPromise.succeed(7)
      #expect(try await nioPromise.futureResult.get() == 7)
    }

    @Test func anAlreadyCancelledTokenFailsTheNIOPromiseAtOnce() async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let request = CancellationRequest()
      request.cancel(reason: TimeoutError(timeout: .seconds(1)))
      let outcome = await withCheckedContinuation { continuation in
        nioPromise.cancellableWork.start(token: request.token) { continuation.resume(returning: $0) }
      }
      #expect(outcome.failure is TimeoutError)
      await #expect(throws: TimeoutError.self) { try await nioPromise.futureResult.get() }
    }

    // A long-lived NIO future keeps every callback it was given until it ends (NIO cannot take one
    // back): a cancelled consumer must leave nothing of its own there. The loop is held busy so
    // that nothing the loop would run can release the consumer: before, the cancel only failed a
    // relay promise, whose callbacks (and the consumer) waited for the loop to turn.
    @Test func aCancelledConsumerOfAPendingNIOFutureReleasesItsCompletionAtOnce() async throws {
      let forever = loop.makePromise(of: Int.self)
      let gate = DispatchSemaphore(value: 0)
      let loopHeld = OutcomeBox<Void>()
      loop.execute {
        loopHeld.deliver(.success(()))
        gate.wait()
      }
      _ = await loopHeld.wait()
      let stop = CancelSource()
      let (captured, reported) = Self.startCapturing(forever.futureResult, signal: stop.signal)
      #expect(captured.value != nil, "the consumer is released before any cancel")
      stop.cancel()
      #expect(captured.value == nil, "the cancelled consumer is still held while the NIO future is pending")
      #expect(reported.values.count == 1 && reported.values.first == true)
      gate.signal()
      forever.succeed(1)
      #expect(try await forever.futureResult.get() == 1)
      #expect(reported.values.count == 1)
    }

    /// Starts `future`'s work with a completion that captures an object and records whether the
    /// outcome was a cancellation; returns a weak view of the object (a function of its own, so
    /// that no local of the test keeps the object alive).
    static func startCapturing(
      _ future: EventLoopFuture<Int>, signal: CancelSignal
    ) -> (captured: WeakBox<Tracked>, reported: Recorder<Bool>) {
      let captured = Tracked()
      let reported = Recorder<Bool>()
      future.cancellableWork.start(signal: signal) { result in
        withExtendedLifetime(captured) { reported.record(result.failure?.isCancellation == true) }
      }
      return (WeakBox(captured), reported)
    }

    @Test(arguments: FacadeStyle.allCases)
    func manyCancelledConsumersOfOnePendingNIOFutureEachEndOnceAndItStillEnds(style: FacadeStyle) async throws {
      let forever = loop.makePromise(of: Int.self)
      for _ in 0..<100 {
        let started = await forever.futureResult.cancellableWork.start(as: style)
        started.cancel()
        #expect(await started.outcome().failure?.isCancellation == true)
      }
      // A consumer leaves the NIO future's shared callback before it reports: nothing stays.
      #expect(forever.futureResult.waitingConsumerCount == 0)
      let last = await forever.futureResult.cancellableWork.start(as: style)
      #expect(forever.futureResult.waitingConsumerCount == 1)
      forever.succeed(9)
      #expect(try await last.outcome().get() == 9)
      #expect(forever.futureResult.waitingConsumerCount == nil, "the ended future's entry is gone")
    }

    @Test func aNIOFutureConvertsToAPromiseThatFollowsIt() async throws {
      let nioPromise = loop.makePromise(of: String.self)
      let promise = nioPromise.futureResult.asPromise()
      #expect(promise.isPending)
      nioPromise.succeed("done")
      #expect(try await promise.async() == "done")
    }

    @Test func aCancelledChainFailsItsNIOFutureWithACancellation() async throws {
      let (chain, _) = CancellablePromise<Int>.pending()
      let nioFuture = chain.map(on: nil) { $0 + 1 }.eventLoopFuture(on: loop)
      chain.cancel()
      let error = await #expect(throws: (any Error).self) { try await nioFuture.get() }
      #expect(error?.isCancellation == true)
    }

    @Test func aFulfilledPromiseSucceedsItsNIOFuture() async throws {
      let (promise, resolver) = Promises.Promise<Int>.pending()
      let nioFuture = promise.eventLoopFuture(on: loop)
      resolver.fulfill(5)
      #expect(try await nioFuture.get() == 5)
    }

    @Test func aCancelledFutureFailsItsNIOFutureWithCancellationError() async throws {
      let producer = Futures.Promise<Int>()
      producer.automaticallyCancelOnRequestCancel()
      let nioFuture = producer.future.eventLoopFuture(on: loop)
      producer.future.getCancelToken().cancel()
      await #expect(throws: CancellationError.self) { try await nioFuture.get() }
    }

    @Test func aSucceededFutureSucceedsItsNIOFuture() async throws {
      let producer = Futures.Promise<Int>()
      let nioFuture = producer.future.eventLoopFuture(on: loop)
      producer.completeWithSuccess(3)
      #expect(try await nioFuture.get() == 3)
    }

    @Test func aCancellablePromiseFromANIOPromiseFailsItOnCancel() async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let chain = nioPromise.asCancellablePromise()
      chain.cancel()
      await #expect(throws: (any Error).self) { try await nioPromise.futureResult.get() }
      #expect(chain.isCancelled)
    }

    @Test func aFutureFromANIOPromiseFailsItOnACancelRequest() async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let future = nioPromise.asFuture()
      future.getCancelToken().cancel()
      let error = await #expect(throws: (any Error).self) { try await nioPromise.futureResult.get() }
      #expect(error?.isCancellation == true)
      await #expect(throws: CancellationError.self) { try await future.async() }
    }

    @Test func aBridgedPromiseDroppedWhilePendingFailsItsNIOFutureInsteadOfLeakingIt() async {
      let embedded = EmbeddedEventLoop()
      var nioFutures: [EventLoopFuture<Int>] = []
      do {
        let (promise, _) = Promises.Promise<Int>.pending()
        let (guarantee, _) = Guarantee<Int>.pending()
        let producer = Futures.Promise<Int>()
        nioFutures.append(promise.eventLoopFuture(on: embedded))
        nioFutures.append(guarantee.eventLoopFuture(on: embedded))
        nioFutures.append(producer.future.eventLoopFuture(on: embedded))
      }
      // Nothing can settle them any more: each NIO future fails (NIO's debug build stops the
      // process on a promise freed uncompleted).
      let failures = Recorder<Bool>()
      for future in nioFutures { future.whenFailure { failures.record($0 is CancellationError) } }
      embedded.run()
      #expect(failures.values == [true, true, true])
    }
  }
#endif
