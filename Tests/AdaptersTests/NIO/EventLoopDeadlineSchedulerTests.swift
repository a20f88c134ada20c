#if NIO
  import Adapters
  import NIOCore
  import NIOEmbedded
  import TestSupport
  import Testing
  import Tokens

  @Suite("SwiftNIO: deadlines on an EventLoop")
  struct EventLoopDeadlineSchedulerTests {
    @Test func aTimeoutFiresWhenTheLoopsManualTimeReachesIt() throws {
      let loop = EmbeddedEventLoop()
      let source = CancelSource(timeout: .seconds(5), scheduler: .eventLoop(loop))
      loop.advanceTime(by: .milliseconds(4_999))
      #expect(!source.signal.isCancelled)
      loop.advanceTime(by: .milliseconds(1))
      #expect(source.signal.isCancelled)
      #expect(source.signal.reason is TimeoutError)
    }

    @Test func aTimeoutRunsOnTheEventLoop() async throws {
      let loop = NIOAsyncTestingEventLoop()
      let request = CancellationRequest()
      request.cancel(after: .seconds(1), scheduler: .eventLoop(loop))
      let ranOnLoop = OutcomeBox<Bool>()
      request.token.onCancel { ranOnLoop.deliver(.success(loop.inEventLoop)) }
      await loop.advanceTime(by: .seconds(1))
      #expect(try await ranOnLoop.wait().get())
      #expect(request.token.reason is TimeoutError)
    }

    @Test func cancellingTheTimerStopsAndReleasesItsAction() throws {
      let loop = EmbeddedEventLoop()
      let ran = Counter()
      let (timer, captured) = Self.scheduleCapturing(on: loop, ran: ran)
      timer.cancel()
      timer.cancel()
      loop.advanceTime(by: .seconds(2))
      #expect(ran.value == 0)
      #expect(captured.value == nil, "the cancelled timer still holds its action")
    }

    /// Schedules an action that captures an object, and returns the timer and a weak view of the
    /// object (a function of its own, so that no local of the test keeps the object alive).
    static func scheduleCapturing(
      on loop: EmbeddedEventLoop, ran: Counter
    ) -> (timer: any Cancellable, captured: WeakBox<Tracked>) {
      let captured = Tracked()
      let timer = EventLoopDeadlineScheduler(eventLoop: loop).schedule(after: .seconds(1)) {
        withExtendedLifetime(captured) { ran.increment() }
      }
      return (timer, WeakBox(captured))
    }

    @Test func aSourceThatEndsFirstCancelsItsTimer() throws {
      let loop = EmbeddedEventLoop()
      let source = CancelSource(timeout: .seconds(1), scheduler: .eventLoop(loop))
      source.cancel(reason: CancellationError())
      loop.advanceTime(by: .seconds(2))
      #expect(source.signal.reason is CancellationError)
    }

    // A delay beyond `Int64.max` seconds made the conversion to NIO's nanoseconds trap; it runs in
    // a child process (an exit test) so that a trap fails this test, not the suite.
    @Test func aDelayBeyondWhatASecondsCountHoldsNeverFiresInsteadOfTrapping() async {
      await #expect(processExitsWith: .success) {
        let loop = EmbeddedEventLoop()
        let ran = Counter()
        let scheduler = EventLoopDeadlineScheduler(eventLoop: loop)
        let timers = [Duration.seconds(Int64.max) * 4, .greatest].map { delay in
          scheduler.schedule(after: delay) { ran.increment() }
        }
        _ = scheduler.schedule(after: .least) { ran.increment() }
        loop.advanceTime(by: .hours(24 * 365))
        precondition(ran.value == 1)
        for timer in timers { timer.cancel() }
      }
    }

    @Test func aZeroOrNegativeDelayFiresAtTheNextTickAndAHugeOneNever() throws {
      let loop = EmbeddedEventLoop()
      let ran = Counter()
      let scheduler = EventLoopDeadlineScheduler(eventLoop: loop)
      _ = scheduler.schedule(after: .seconds(-3)) { ran.increment() }
      _ = scheduler.schedule(after: .zero) { ran.increment() }
      _ = scheduler.schedule(after: .seconds(Int64.max)) { ran.increment() }
      loop.run()
      #expect(ran.value == 2)
      loop.advanceTime(by: .hours(24 * 365))
      #expect(ran.value == 2)
    }
  }
#endif
