import Adapters
import Dispatch
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
