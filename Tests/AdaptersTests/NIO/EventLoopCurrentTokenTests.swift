#if NIO
  import Adapters
  import NIOCore
  import NIOEmbedded
  import Testing
  import Tokens

  /// The NIO bridges started under a scope use `CancellationToken.current` without being given a
  /// token.
  @Suite("SwiftNIO bridges under the current token")
  struct EventLoopCurrentTokenTests {
    struct Shutdown: Error {}

    let loop = NIOAsyncTestingEventLoop()

    @Test func aNIOPromiseRunUnderAScopeIsFailedWithTheScopesReason() async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let request = CancellationRequest()
      let outcome = try await withCancellationToken(request.token) {
        request.cancel(reason: Shutdown())
        return await result { try await nioPromise.cancellableWork.run() }
      }
      #expect(outcome.failure is Shutdown)
      await #expect(throws: Shutdown.self) { try await nioPromise.futureResult.get() }
    }

    @Test func aNIOPromiseStartedUnderASynchronousScopeIsFailedWhenItIsCancelled() async throws {
      let nioPromise = loop.makePromise(of: Int.self)
      let request = CancellationRequest()
      CancellationToken.withCurrent(request.token) { nioPromise.cancellableWork.start { _ in } }
      request.cancel(reason: Shutdown())
      await #expect(throws: Shutdown.self) { try await nioPromise.futureResult.get() }
    }
  }

  private func result<T>(of body: () async throws -> T) async -> Swift.Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
  }
#endif
