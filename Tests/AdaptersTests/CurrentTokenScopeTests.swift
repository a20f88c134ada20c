import Adapters
import Dispatch
import Foundation
import Futures
import LocalHTTPServer
import Promises
import TestSupport
import Testing
import Tokens

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `withCancellationToken(_:operation:)` binds `CancellationToken.current`, and the adapters use
/// it when they are given no token.
@Suite("The current token (async scopes and adapters)")
struct CurrentTokenScopeTests {
  struct Outer: Error, Equatable {}
  struct Inner: Error, Equatable {}

  /// Work that reports the signal it was started on: its deadline, and whether it is cancelled.
  static let signalProbe = CancellableWork<ContinuousClock.Instant?> { signal, completion in
    if let reason = signal.reason {
      completion(.failure(reason))
    } else {
      completion(.success(signal.deadline))
    }
  }

  // MARK: Binding

  @Test func withCancellationTokenBindsTheTokenForTheOperationOnly() async throws {
    #expect(CancellationToken.current == nil)
    let request = CancellationRequest()
    let inside = try await withCancellationToken(request.token) { CancellationToken.current }
    #expect(inside == request.token)
    #expect(CancellationToken.current == nil)
  }

  @Test func childTasksInheritTheCurrentTokenAndDetachedTasksDoNot() async throws {
    let request = CancellationRequest()
    let seen = try await withCancellationToken(request.token) {
      async let child = CancellationToken.current
      let grouped = await withTaskGroup(of: CancellationToken?.self) { group in
        group.addTask { CancellationToken.current }
        return await group.next()!
      }
      let unstructured = await Task { CancellationToken.current }.value
      let detached = await Task.detached { CancellationToken.current }.value
      return (await child, grouped, unstructured, detached)
    }
    #expect(seen.0 == request.token)
    #expect(seen.1 == request.token)
    #expect(seen.2 == request.token)
    #expect(seen.3 == nil)
  }

  @Test func nestedScopesCombineAndTheInnerCallThrowsTheEnclosingReason() async {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let seenInside = Recorder<String>()
    let result = await outcome {
      try await withCancellationToken(outer.token) {
        try await withCancellationToken(inner.token) {
          outer.cancel(reason: Outer())
          seenInside.record("\(CancellationToken.current?.reason is Outer)")
          try await Task.sleep(for: .seconds(30))  // interrupted at once
        }
      }
    }
    #expect(seenInside.values == ["true"])
    #expect(throws: Outer()) { try result.get() }
    #expect(!inner.isCancellationRequested)
  }

  @Test func theInnerCallThrowsTheEnclosingReasonToTheEnclosingOperation() async throws {
    let outer = CancellationRequest()
    let inner = CancellationRequest()
    let innerOutcome = try await withCancellationToken(outer.token) {
      await outcome {
        try await withCancellationToken(inner.token) {
          outer.cancel(reason: Outer())
          try await Task.sleep(for: .seconds(30))
        }
      }
    }
    #expect(throws: Outer()) { try innerOutcome.get() }
  }

  @Test func aNestedScopesDeadlineIsTheEarliestOfTheirs() async throws {
    let time = ManualDeadlineScheduler()
    let now = ContinuousClock.now
    let outer = CancellationRequest(deadline: now + .seconds(10), scheduler: time)
    let inner = CancellationRequest(deadline: now + .seconds(20), scheduler: time)
    let deadline = try await withCancellationToken(outer.token) {
      try await withCancellationToken(inner.token) { CancellationToken.current?.deadline }
    }
    #expect(deadline == now + .seconds(10))
  }

  // MARK: Adapters use the current token

  @Test func workRunUnderAScopeCarriesTheDeadlineWithoutBeingGivenAToken() async throws {
    let time = ManualDeadlineScheduler()
    let deadline = ContinuousClock.now + .seconds(30)
    let request = CancellationRequest(deadline: deadline, scheduler: time)
    #expect(try await Self.signalProbe.run() == nil, "outside any scope: no deadline")
    let inside = try await withCancellationToken(request.token) { try await Self.signalProbe.run() }
    #expect(inside == deadline)
  }

  @Test func workStartedUnderASynchronousScopeCarriesTheDeadline() async throws {
    let time = ManualDeadlineScheduler()
    let deadline = ContinuousClock.now + .seconds(30)
    let request = CancellationRequest(deadline: deadline, scheduler: time)
    let result = await withCheckedContinuation { continuation in
      CancellationToken.withCurrent(request.token) {
        Self.signalProbe.start { continuation.resume(returning: $0) }
      }
    }
    #expect(try result.get() == deadline)
  }

  /// The token's reason, not the task's `CancellationError`: `run()` is stopped by the token itself.
  @Test func workRunUnderACancelledScopeThrowsTheTokensReason() async throws {
    let request = CancellationRequest()
    request.cancel(reason: Outer())
    let inner = try await withCancellationToken(request.token) {
      await outcome { try await DispatchQueue.global().scheduledWork(after: .seconds(30)) { 1 }.run() }
    }
    #expect(throws: Outer()) { try inner.get() }
  }

  @Test func aDeadlineUnderAScopeStopsWorkWithATimeoutError() async throws {
    let time = ManualDeadlineScheduler()
    let request = CancellationRequest(timeout: .seconds(5), scheduler: time)
    let result: Swift.Result<Int, any Error> = await withCheckedContinuation { continuation in
      CancellationToken.withCurrent(request.token) {
        DispatchQueue.global().scheduledWork(after: .seconds(30)) { 1 }.start { continuation.resume(returning: $0) }
      }
      time.advance(by: .seconds(5))
    }
    #expect(throws: TimeoutError.self) { try result.get() }
  }

  /// `run()` itself throws the token's reason (the task's cancellation alone would give
  /// `CancellationError`), and the connection is closed mid-transfer.
  @Test func aURLSessionTransferUnderAScopeIsStoppedMidTransferWithTheReason() async throws {
    let server = try LocalHTTPServer()
    let request = CancellationRequest()
    let url = server.baseURL.appendingPathComponent("slow")
    async let transfer = withCancellationToken(request.token) {
      await outcome { try await URLSession.shared.dataWork(for: URLRequest(url: url)).run() }
    }
    await server.answerStarted(path: "/slow")
    request.cancel(reason: Outer())
    let result = try await transfer
    #expect(throws: Outer()) { try result.get() }
    let end = await server.connectionEnd(number: 1)
    #expect(end.clientClosedEarly)
  }

  /// Nothing cancels a task here: only the current token can stop the transfer.
  // Without the current token this would wait for work that is never stopped: bounded, generously
  // (under ThreadSanitizer on a busy machine the whole suite's tasks share two cores).
  @Test(.timeLimit(.minutes(20))) func aURLSessionTransferStartedUnderASynchronousScopeIsStoppedByIt() async throws {
    let server = try LocalHTTPServer()
    let request = CancellationRequest()
    let url = server.baseURL.appendingPathComponent("slow")
    let result: Swift.Result<DataResponse, any Error> = await withCheckedContinuation { continuation in
      CancellationToken.withCurrent(request.token) {
        URLSession.shared.dataWork(for: URLRequest(url: url)).start { continuation.resume(returning: $0) }
      }
      Task {
        await server.answerStarted(path: "/slow")
        request.cancel(reason: Outer())
      }
    }
    #expect(throws: Outer()) { try result.get() }
    let end = await server.connectionEnd(number: 1)
    #expect(end.clientClosedEarly)
  }

  // Without the current token this would wait for work that is never stopped: bounded, generously
  // (under ThreadSanitizer on a busy machine the whole suite's tasks share two cores).
  @Test(.timeLimit(.minutes(20))) func theTokenFormsWithoutATokenUseTheCurrentOne() async throws {
    let request = CancellationRequest()
    request.cancel(reason: Outer())
    let session = URLSession.shared
    let operations = OperationQueue()
    // Five reports; the operation's comes from its queue once the cancelled operation finishes.
    let reasons = await withCheckedContinuation { (continuation: CheckedContinuation<Set<String>, Never>) in
      let reasons = Locked<[String]>([])
      let record: @Sendable (String) -> Void = { report in
        let all = reasons.withLock { reasons -> [String]? in
          reasons.append(report)
          return reasons.count == 5 ? reasons : nil
        }
        if let all { continuation.resume(returning: Set(all)) }
      }
      CancellationToken.withCurrent(request.token) {
        DispatchQueue.global().schedule(after: .seconds(30), execute: { 1 }) {
          record("schedule \($0.failure is Outer)")
        }
        DispatchQueue.global().async(DispatchWorkItem {}, after: .seconds(30)) { record("item \($0.failure is Outer)") }
        operations.addOperation(BlockOperation {}) { record("operation \($0.failure is Outer)") }
        NotificationCenter().observeOnce(Notification.Name("never")) { record("notification \($0.failure is Outer)") }
        let task = session.dataTask(with: URLRequest(url: URL(string: "http://127.0.0.1:1/")!)) {
          record("data \($0.failure is Outer)")
        }
        #expect(task == nil, "nothing is sent under a cancelled scope")
      }
    }
    #expect(reasons == ["schedule true", "item true", "operation true", "notification true", "data true"])
  }

  /// A token given to an adapter replaces the current one for that call; it does not combine.
  @Test func aTokenGivenExplicitlyReplacesTheCurrentOne() async throws {
    let scope = CancellationRequest()
    scope.cancel(reason: Outer())
    let deadline = ContinuousClock.now + .seconds(30)
    let own = CancellationRequest(deadline: deadline, scheduler: ManualDeadlineScheduler())
    let result = await withCheckedContinuation { continuation in
      CancellationToken.withCurrent(scope.token) {
        Self.signalProbe.start(token: own.token) { continuation.resume(returning: $0) }
      }
    }
    #expect(try result.get() == deadline, "started on its own token: not cancelled, its deadline")
  }

  @Test func aChildProcessUnderACancelledScopeIsNeverStarted() async throws {
    let request = CancellationRequest()
    request.cancel(reason: Outer())
    let sleep = ChildProcess.findExecutable(named: "sleep")!
    let result: Swift.Result<ProcessOutput, any Error> = await withCheckedContinuation { continuation in
      CancellationToken.withCurrent(request.token) {
        ChildProcess.run(sleep, arguments: ["30"]) { continuation.resume(returning: $0) }
      }
    }
    #expect(throws: Outer()) { try result.get() }
    let inner = try await withCancellationToken(request.token) {
      await outcome { try await ChildProcess.run(sleep, arguments: ["30"]) }
    }
    #expect(throws: Outer()) { try inner.get() }
  }

  // MARK: Promises and futures join only when asked

  @Test func aCancellablePromiseMadeInAScopeJoinsItOnlyWhenAsked() {
    let request = CancellationRequest()
    let (plain, joined) = CancellationToken.withCurrent(request.token) {
      (CancellablePromise<Int>.pending().promise, CancellablePromise<Int>.pending().promise.joiningCurrentToken())
    }
    request.cancel(reason: Outer())
    #expect(plain.isPending, "a promise never joins the scope silently")
    #expect(joined.isRejected)
    #expect(joined.error is Outer)
  }

  /// `promise()` and `future()` of a work are promises and futures: started under a cancelled
  /// scope, they run on their own signal, not the scope's.
  @Test func workStartedAsAPromiseOrAFutureDoesNotJoinTheScope() async throws {
    let request = CancellationRequest()
    request.cancel(reason: Outer())
    let (promise, future) = CancellationToken.withCurrent(request.token) {
      (Self.signalProbe.promise(), Self.signalProbe.future())
    }
    #expect(try await promise.async() == nil)
    #expect(future.value == .some(nil))
  }

  @Test func joiningOutsideAnyScopeDoesNothing() {
    let promise = CancellablePromise<Int>.pending().promise.joiningCurrentToken()
    let future = Futures.Promise<Int>().future.joiningCurrentToken()
    #expect(promise.isPending)
    #expect(!future.isCompleted)
  }

  @Test func aFutureMadeInAScopeJoinsItOnlyWhenAsked() {
    let request = CancellationRequest()
    let plainProducer = Futures.Promise<Int>()
    let joinedProducer = Futures.Promise<Int>()
    for producer in [plainProducer, joinedProducer] {
      producer.onRequestCancel(.immediate) { _ in .complete(.cancelled) }
    }
    let joined = CancellationToken.withCurrent(request.token) {
      _ = plainProducer.future.map(.immediate) { $0 }
      return joinedProducer.future.joiningCurrentToken()
    }
    request.cancel()
    #expect(!plainProducer.future.isCompleted, "a future never joins the scope silently")
    #expect(joined.result?.isCancelled == true)
  }

  @Test func aJoinedFutureThatCompletedLeavesTheScopesToken() {
    let request = CancellationRequest()
    let producer = Futures.Promise<Int>()
    let requests = Counter()
    producer.onRequestCancel(.immediate) { _ in
      requests.increment()
      return .complete(.cancelled)
    }
    CancellationToken.withCurrent(request.token) { _ = producer.future.joiningCurrentToken() }
    producer.completeWithSuccess(1)
    request.cancel()
    #expect(requests.value == 0)
    #expect(producer.future.value == 1)
  }
}

/// What an async throwing call returned or threw.
private func outcome<T>(of body: () async throws -> T) async -> Swift.Result<T, any Error> {
  do { return .success(try await body()) } catch { return .failure(error) }
}
