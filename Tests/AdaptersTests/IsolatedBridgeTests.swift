import Adapters
import Testing
import Tokens

/// Every closure-taking async API of the package runs its closure on the caller's isolation, so an
/// actor method or `@MainActor` code can pass a non-`Sendable` closure that touches its state.
/// These tests compile only if that holds (Swift 6 mode rejects sending an isolated closure), and
/// check at run time that the closure really ran on the caller's actor.
@Suite("Bridges called from an actor, the main actor, or nonisolated code")
struct IsolatedBridgeTests {
  /// An actor whose methods hand closures that mutate its state to each bridge.
  actor Store {
    var items: [Int] = []

    func loadWithToken(_ token: CancellationToken) async throws -> [Int] {
      try await withCancellationToken(token) {
        self.assertIsolated()
        items.append(1)
        try await Task.sleep(for: .zero)
        items.append(2)  // still on the actor after a suspension
      }
      return items
    }

    func loadWithTaskToken() async -> (items: [Int], tokenWasLive: Bool) {
      let live = await withTaskCancellationToken { token in
        self.assertIsolated()
        items.append(3)
        return !token.isCompleted
      }
      return (items, live)
    }

    func loadWithSignal(_ signal: CancelSignal) async throws -> [Int] {
      try await withCancellation(of: signal) {
        self.assertIsolated()
        items.append(4)
      }
      return items
    }

    /// The token still cancels the actor's task while the closure runs on the actor.
    func loadUntilCancelled(_ request: CancellationRequest) async throws -> (cancelled: Bool, items: [Int]) {
      let cancelled = try await withCancellationToken(request.token) {
        items.append(5)
        request.cancel()
        return Task.isCancelled
      }
      return (cancelled, items)
    }
  }

  @Test func anActorMethodPassesClosuresThatTouchItsStateToEveryBridge() async throws {
    let store = Store()
    #expect(try await store.loadWithToken(CancellationRequest().token) == [1, 2])
    let (items, live) = await store.loadWithTaskToken()
    #expect(items == [1, 2, 3])
    #expect(live)
    #expect(try await store.loadWithSignal(CancelSource().signal) == [1, 2, 3, 4])
  }

  @Test func aTokenCancelsTheActorsTaskWhileItsClosureRunsOnTheActor() async throws {
    let (cancelled, items) = try await Store().loadUntilCancelled(CancellationRequest())
    #expect(cancelled)
    #expect(items == [5])
  }

  @MainActor final class Screen {
    var rows: [String] = []
  }

  @MainActor @Test func mainActorCodePassesClosuresThatTouchUIStateToEveryBridge() async throws {
    let screen = Screen()
    try await withCancellationToken(CancellationRequest().token) {
      MainActor.assertIsolated()
      screen.rows.append("token")
    }
    await withTaskCancellationToken { _ in
      MainActor.assertIsolated()
      screen.rows.append("task token")
    }
    try await withCancellation(of: CancelSource().signal) {
      MainActor.assertIsolated()
      screen.rows.append("signal")
    }
    #expect(screen.rows == ["token", "task token", "signal"])
  }

  /// A non-`Sendable` box that nonisolated code mutates from inside each bridge.
  final class Counter {
    var value = 0
  }

  @Test func nonisolatedCodePassesNonSendableClosuresToEveryBridge() async throws {
    let counter = Counter()
    try await withCancellationToken(CancellationRequest().token) { counter.value += 1 }
    await withTaskCancellationToken { _ in counter.value += 1 }
    try await withCancellation(of: CancelSource().signal) { counter.value += 1 }
    #expect(counter.value == 3)
  }
}
