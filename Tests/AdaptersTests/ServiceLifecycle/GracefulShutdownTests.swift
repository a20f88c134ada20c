#if ServiceLifecycle
  import Adapters
  import Futures
  import Promises
  import ServiceLifecycle
  import ServiceLifecycleTestKit
  import TestSupport
  import Testing
  import Tokens

  @Suite("ServiceLifecycle: graceful shutdown")
  struct GracefulShutdownTests {
    @Test func aGracefulShutdownCancelsTheTokenWithGracefulShutdownError() async throws {
      await testGracefulShutdown { trigger in
        await withGracefulShutdownToken { token in
          #expect(!token.isCancelled)
          trigger.triggerGracefulShutdown()
          await token.cancelled()
          #expect(token.reason is GracefulShutdownError)
          #expect(token.reason?.isCancellation == true)
          #expect(token.cancellationRecord?.trigger == .shutdown)
        }
      }
    }

    // Lifecycle holds its own lock while it runs shutdown handlers, and reading
    // `Task.isShuttingDownGracefully` takes that lock: a token handler run there would deadlock.
    // The limit turns that deadlock into a failure that names the test; it is far beyond any run
    // (the whole suite's tasks share two cores, and every test of a busy run reads ~5 minutes).
    @Test(.timeLimit(.minutes(20)))
    func aTokenHandlerReadingLifecycleStateRunsOutsideLifecyclesLock() async throws {
      await testGracefulShutdown { trigger in
        let seen = OutcomeBox<Bool>()
        await withGracefulShutdownToken { token in
          token.onCancel { seen.deliver(.success(Task.isShuttingDownGracefully)) }
          trigger.triggerGracefulShutdown()
          #expect((try? await seen.wait().get()) == true)
        }
      }
    }

    @Test func aServiceAlreadyShuttingDownStartsTheBodyWithACancelledToken() async throws {
      await testGracefulShutdown { trigger in
        trigger.triggerGracefulShutdown()
        await withGracefulShutdownToken { token in
          #expect(token.isCancelled)
          #expect(token.reason is GracefulShutdownError)
          #expect(token.cancellationRecord?.trigger == .shutdown)
        }
      }
    }

    @Test func aShutdownAfterTheBodyReturnedLeavesTheTokenNotCancelled() async throws {
      await testGracefulShutdown { trigger in
        let token = await withGracefulShutdownToken { $0 }
        #expect(token.isCompleted)
        trigger.triggerGracefulShutdown()
        #expect(!token.isCancelled)
      }
    }

    @Test func outsideAServiceGroupTheTokenIsNeverCancelled() async throws {
      let token = await withGracefulShutdownToken { token in
        #expect(!token.isCancelled)
        return token
      }
      #expect(token.isCompleted && !token.isCancelled)
    }

    @Test func aShutdownCancelsABoundChainThroughTheToken() async throws {
      await testGracefulShutdown { trigger in
        await withGracefulShutdownToken { token in
          let (chain, _) = CancellablePromise<Int>.pending()
          token.register(cancelable: chain)
          trigger.triggerGracefulShutdown()
          // Waits for the chain, not the token: the token reads cancelled as soon as the
          // shutdown starts cancelling it, before its handlers (this one) have run.
          await #expect(throws: GracefulShutdownError.self) { try await chain.async() }
          #expect(chain.isCancelled)
        }
      }
    }

    @Test func aShutdownCancelsAnAwaitedChainWithGracefulShutdownError() async throws {
      await testGracefulShutdown { trigger in
        let (chain, _) = CancellablePromise<Int>.pending()
        let tail = chain.map(on: nil) { $0 * 2 }
        let value = Task { try await tail.cancelOnGracefulShutdown() }
        trigger.triggerGracefulShutdown()
        await #expect(throws: GracefulShutdownError.self) { try await value.value }
        #expect(chain.isCancelled)
        #expect(chain.cancelledError is GracefulShutdownError)
      }
    }

    @Test func aShutdownRequestsCancellationOfAnAwaitedFuture() async throws {
      await testGracefulShutdown { trigger in
        let producer = Futures.Promise<Int>()
        let requested = OutcomeBox<Void>()
        producer.onRequestCancel(.immediate) { _ in
          requested.deliver(.success(()))
          return .complete(.cancelled)
        }
        let value = Task { try await producer.future.cancelOnGracefulShutdown() }
        trigger.triggerGracefulShutdown()
        await #expect(throws: GracefulShutdownError.self) { try await value.value }
        _ = await requested.wait()
      }
    }

    @Test func aShutdownCancelsAnAwaitedTask() async throws {
      await testGracefulShutdown { trigger in
        let task = Task { try await suspendUntilCancelled() }
        let value = Task { try await task.cancelOnGracefulShutdown() }
        trigger.triggerGracefulShutdown()
        await #expect(throws: GracefulShutdownError.self) { try await value.value }
        #expect(task.isCancelled)
      }
    }

    @Test func aChainThatSettlesBeforeTheShutdownKeepsItsValue() async throws {
      await testGracefulShutdown { trigger in
        let chain = Promises.Promise.value(4).cancellize()
        #expect((try? await chain.cancelOnGracefulShutdown()) == 4)
        trigger.triggerGracefulShutdown()
        #expect(!chain.isCancelled)
      }
    }

    // A service group cancels its services' tasks when one fails or the shutdown runs out of time:
    // code that polls only the token must stop then too. The token is cancelled inside the
    // task's cancellation handler, which `cancel()` runs before it returns.
    @Test func cancellingTheServicesTaskCancelsTheTokenWithCancellationError() async throws {
      await testGracefulShutdown { _ in
        let tokens = OutcomeBox<CancellationToken>()
        let service = Task {
          await withGracefulShutdownToken { token in
            tokens.deliver(.success(token))
            await token.cancelled()  // ends on the token's cancel, or on the task's
          }
        }
        let token = try? await tokens.wait().get()
        service.cancel()
        #expect(token?.reason is CancellationError)
        await service.value
      }
    }

    @Test func aTaskAlreadyCancelledStartsTheBodyWithATokenCancelledByIt() async throws {
      await testGracefulShutdown { _ in
        let reason = await Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return await withGracefulShutdownToken { $0.reason }
        }.value
        #expect(reason is CancellationError)
      }
    }

    @Test func aShutdownAndATaskCancellationBothBeforeTheBodyGiveTheShutdownAsTheReason() async throws {
      await testGracefulShutdown { trigger in
        trigger.triggerGracefulShutdown()
        let reason = await Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return await withGracefulShutdownToken { $0.reason }
        }.value
        #expect(reason is GracefulShutdownError)
      }
    }

    @Test func outsideAServiceGroupTheTasksCancellationStillCancelsTheToken() async throws {
      let reason = await Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return await withGracefulShutdownToken { $0.reason }
      }.value
      #expect(reason is CancellationError)
    }

    @Test func aTaskCancellationAfterTheBodyReturnedLeavesTheTokenNotCancelled() async throws {
      let ended = Task { await withGracefulShutdownToken { $0 } }
      let token = await ended.value
      ended.cancel()
      #expect(token.isCompleted && !token.isCancelled)
    }

    // The helpers tell the two apart: the task's cancellation is no shutdown.
    @Test func cancellingTheTaskAwaitingAChainCancelsItWithCancellationErrorNotAShutdown() async throws {
      await testGracefulShutdown { _ in
        let (chain, _) = CancellablePromise<Int>.pending()
        let value = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await chain.cancelOnGracefulShutdown()
        }
        await #expect(throws: CancellationError.self) { try await value.value }
        #expect(chain.cancelledError is CancellationError)
      }
    }

    @Test func cancellingTheTaskAwaitingAFutureThrowsCancellationErrorNotAShutdown() async throws {
      await testGracefulShutdown { _ in
        let producer = Futures.Promise<Int>()
        producer.onRequestCancel(.immediate) { _ in .complete(.cancelled) }
        let value = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await producer.future.cancelOnGracefulShutdown()
        }
        await #expect(throws: CancellationError.self) { try await value.value }
      }
    }

    @Test func cancellingTheTaskAwaitingATaskThrowsItsErrorNotAShutdown() async throws {
      await testGracefulShutdown { _ in
        let task = Task { try await suspendUntilCancelled() }
        let value = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await task.cancelOnGracefulShutdown()
        }
        await #expect(throws: CancellationError.self) { try await value.value }
        #expect(task.isCancelled)
      }
    }
  }

#endif
