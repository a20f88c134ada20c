import Adapters
import Dispatch
import Futures
import Promises
import TestSupport
import Testing
import Tokens

/// A cancel that crosses from one facade to another keeps its record: the path from where it
/// started, through each bridge, as a link.
@Suite("Cancellation records across facades")
struct RecordAcrossFacadesTests {
  @Test func aTokenCancellingAChainRegisteredOnItShowsTheTokensPath() throws {
    let request = CancellationRequest(label: "GET /users")
    let (pending, _) = Promise<Int>.pending()
    let chain = pending.cancellize(label: "load users").map(on: nil) { $0 }
    request.token.register(cancelable: chain)
    request.cancel(reason: TimeoutError(timeout: .seconds(5))); let line = #line
    let record = try #require(chain.cancellationRecord)
    #expect(record.reason is TimeoutError)
    #expect(record.hops == [.init(label: "GET /users", arrival: .origin), .init(label: "load users", arrival: .link)])
    #expect(record.line == line && record.trigger == .call)
  }

  @Test func aChainRegisteredOnAnAlreadyCancelledTokenShowsTheTokensPathToo() throws {
    let request = CancellationRequest(label: "job")
    request.cancel(); let line = #line
    let chain = Promise<Int>.pending().promise.cancellize(label: "step")
    request.token.register(cancelable: chain)
    let record = try #require(chain.cancellationRecord)
    #expect(record.path == ["job", "step"])
    #expect(record.line == line)
  }

  @Test func aTokenMadeFromAChainReportsTheChainsRecord() throws {
    let chain = Promise<Int>.pending().promise.cancellize(label: "render")
    let token = CancellationToken(chain.cancelContext)
    let follower = CancellationRequest(linkedTo: token, label: "thumbnail")
    chain.cancel(); let line = #line
    #expect(token.cancellationRecord?.hops == [.init(label: "render", arrival: .origin)])
    let record = try #require(follower.token.cancellationRecord)
    #expect(record.path == ["render", "thumbnail"])
    #expect(record.line == line)
  }

  @Test func aRequestRegisteredOnATokenShowsTheLink() throws {
    let parent = CancellationRequest(label: "batch")
    let child = CancellationRequest(label: "item")
    parent.token.register(cancelable: child)
    parent.cancel()
    #expect(child.token.cancellationRecord?.path == ["batch", "item"])
    #expect(child.token.cancellationRecord?.isDirect == false)
  }

  @Test func aTokenRequestingAFutureShowsTheTokensPathThenTheFuture() throws {
    let request = CancellationRequest(label: "GET /users")
    let producer = Futures.Promise<Int>(label: "download")
    producer.automaticallyCancelOnRequestCancel()
    let stage = producer.future.map(.immediate) { $0 }.labelled("decode")
    request.token.register(future: stage)
    request.cancel(reason: TimeoutError(timeout: .seconds(5))); let line = #line
    let record = try #require(stage.cancellationRecord)
    #expect(record.reason is TimeoutError)
    #expect(record.line == line)
    #expect(
      record.hops == [
        .init(label: "GET /users", arrival: .origin), .init(label: "decode", arrival: .link),
        .init(label: "download", arrival: .request, ending: .requestHandler),
        .init(label: "decode", arrival: .completion),
      ])

    // The same through the current token.
    let scope = CancellationRequest(label: "scope")
    let joined = Futures.Promise<Int>(label: "joined")
    joined.automaticallyCancelOnRequestCancel()
    CancellationToken.withCurrent(scope.token) { _ = joined.future.joiningCurrentToken() }
    scope.cancel(); let scopeLine = #line
    #expect(joined.future.cancellationRecord?.path == ["scope", "joined"])
    #expect(joined.future.cancellationRecord?.line == scopeLine)
  }

  @Test func aCancelledTaskAwaitingAFutureRequestsItWithTheTaskTrigger() async throws {
    let producer = Futures.Promise<Int>(label: "download")
    producer.automaticallyCancelOnRequestCancel()
    let waiter = Task { try await producer.future.async() }
    while producer.future.waitingCount == 0 { await Task.yield() }  // the await's branch attached
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    let record = try #require(producer.future.cancellationRecord)
    #expect(record.trigger == .task && record.fileID.isEmpty)
    #expect(record.hops.last == .init(label: "download", arrival: .request, ending: .requestHandler))
    #expect(record.description.contains("— task cancellation → request → \"download\""))
  }

  @Test func aFuturesRequestCancellingAChainNamesTheRequestsCallSite() throws {
    let chain = Promise<Int>.pending().promise.cancellize(label: "legacy")
    let future = chain.asFuture().labelled("bridged")
    future.getCancelToken().cancel(); let line = #line
    let record = try #require(chain.cancellationRecord)
    #expect(record.line == line && record.fileID.hasSuffix("RecordAcrossFacadesTests.swift"))
    #expect(record.hops == [.init(label: "legacy", arrival: .origin)])
    #expect(future.cancellationRecord?.line == line)
    #expect(future.cancellationRecord?.hops.first == .init(label: "bridged", arrival: .origin, ending: .producer))

    // A chain's own cancel reaches the future made from it with the chain's record first.
    let cancelledChain = Promise<Int>.pending().promise.cancellize(label: "job")
    let follower = cancelledChain.asFuture().labelled("follower")
    cancelledChain.cancel(); let chainLine = #line
    let followerRecord = try #require(follower.cancellationRecord)
    #expect(followerRecord.line == chainLine && followerRecord.reason is PMKError)
    #expect(
      followerRecord.hops == [
        .init(label: "job", arrival: .origin), .init(label: "follower", arrival: .link, ending: .producer),
      ])

    // And a chain cancelled by its own member reaches a future it was made from through a link.
    let producer = Futures.Promise<Int>(label: "source")
    producer.automaticallyCancelOnRequestCancel()
    let promise = producer.future.asCancellablePromise()
    promise.cancel(); let cancelLine = #line
    let sourceRecord = try #require(producer.future.cancellationRecord)
    #expect(sourceRecord.line == cancelLine)
    #expect(sourceRecord.hops.last == .init(label: "source", arrival: .request, ending: .requestHandler))
    #expect(sourceRecord.hops.first?.arrival == .origin)
  }

  @Test func aCancelDueToAReasonOutsideAnyHandlerHasNoOriginAndNoLink() throws {
    struct Stop: Error {}
    let source = CancelSource(label: "own")
    source.cancel(dueTo: Stop())
    let record = try #require(source.cancellationRecord)
    #expect(record.isDirect && record.fileID.isEmpty)
    let chain = Promise<Int>.pending().promise.cancellize(label: "chain")
    chain.cancel(dueTo: Stop())
    #expect(chain.cancellationRecord?.hops == [.init(label: "chain", arrival: .origin)])
    #expect(chain.cancellationRecord?.fileID == "")
  }

  @Test func aRegistrationRunOnAQueueIsNotALink() async throws {
    let request = CancellationRequest(label: "outer")
    let chain = Promise<Int>.pending().promise.cancellize(label: "inner")
    request.token.register(cancelable: chain, on: DispatchQueue(label: "bridge"))
    request.cancel()
    _ = await chain.outcome()
    let record = try #require(chain.cancellationRecord)
    #expect(record.hops == [.init(label: "inner", arrival: .origin)], "the handler ran after the token's cancel")
  }
}
