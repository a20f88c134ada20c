import Adapters
import Foundation
import LocalHTTPServer
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("URLSession transfers")
struct URLSessionTests {
  static func data(
    _ session: URLSession, _ url: URL, signal: CancelSignal = .never, started: @Sendable () -> Void = {}
  ) async -> Swift.Result<DataResponse, any Error> {
    await withCheckedContinuation { continuation in
      session.dataTask(with: URLRequest(url: url), signal: signal) { continuation.resume(returning: $0) }
      started()
    }
  }

  @Test func aCompletedTransferReturnsItsBody() async throws {
    let server = try LocalHTTPServer()
    let response = try await Self.data(.shared, server.baseURL.appendingPathComponent("fast")).get()
    #expect(String(decoding: response.data, as: UTF8.self) == "fast response\n")
    #expect(response.statusCode == 200)
  }

  @Test func cancellingMidTransferEndsCancelledAndTheServerSeesTheConnectionClose() async throws {
    let server = try LocalHTTPServer()
    let source = CancelSource()
    async let result = Self.data(.shared, server.baseURL.appendingPathComponent("slow"), signal: source.signal)
    await server.answerStarted(path: "/slow")  // the body is streaming: cancel mid-transfer
    source.cancel()
    let outcome = await result
    guard case .failure(let error) = outcome else {
      Issue.record("expected the transfer to end cancelled, got \(outcome)")
      return
    }
    #expect(error is CancellationError)
    #expect(error.isCancellation)
    let slowEnd = await server.connectionEnd(number: 1)
    #expect(slowEnd.path == "/slow")
    #expect(slowEnd.clientClosedEarly)
    #expect(slowEnd.bodyBytesSent < 100_000 * 1024)
  }

  @Test func aRefusedConnectionFailsClearlyAndIsNotACancellation() async throws {
    let server = try LocalHTTPServer()
    let url = server.baseURL.appendingPathComponent("fast")
    server.stop()
    let outcome = await Self.data(.shared, url)
    guard case .failure(let error) = outcome else {
      Issue.record("expected a connection failure")
      return
    }
    #expect(!error.isCancellation)
    #expect((error as? URLError)?.code == .cannotConnectToHost)
  }

  @Test func anAlreadyCancelledSignalStartsNoTransfer() async throws {
    let server = try LocalHTTPServer()
    let source = CancelSource()
    source.cancel()
    let outcome = await Self.data(.shared, server.baseURL.appendingPathComponent("fast"), signal: source.signal)
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(server.endedConnections.isEmpty)
  }

  @Test func cancellingADownloadEndsCancelledAndClosesTheConnection() async throws {
    let server = try LocalHTTPServer()
    let source = CancelSource()
    async let outcome: Swift.Result<DownloadResponse, any Error> = withCheckedContinuation { continuation in
      URLSession.shared.downloadTask(
        with: URLRequest(url: server.baseURL.appendingPathComponent("slow")), signal: source.signal
      ) { continuation.resume(returning: $0) }
    }
    await server.answerStarted(path: "/slow")
    source.cancel()
    let result = await outcome
    #expect(throws: CancellationError.self) { try result.get() }
    let end = await server.connectionEnd(number: 1)
    #expect(end.clientClosedEarly)
  }

  @Test func aCompletedDownloadLeavesAFileTheCallerOwns() async throws {
    let server = try LocalHTTPServer(chunkSize: 64, chunkCount: 4, chunkInterval: .milliseconds(1))
    let outcome: Swift.Result<DownloadResponse, any Error> = await withCheckedContinuation { continuation in
      URLSession.shared.downloadTask(
        with: URLRequest(url: server.baseURL.appendingPathComponent("slow")), signal: .never
      ) { continuation.resume(returning: $0) }
    }
    let download = try outcome.get()
    defer { try? FileManager.default.removeItem(at: download.fileURL) }
    #expect(try Data(contentsOf: download.fileURL).count == 256)
  }

  @Test func cancellingAnUploadEndsCancelled() async throws {
    let server = try LocalHTTPServer(chunkSize: 1)
    let source = CancelSource()
    var request = URLRequest(url: server.baseURL.appendingPathComponent("echo"))
    request.httpMethod = "POST"
    // The server answers an upload only after a long silence; URLSession's 60 s idle timeout must
    // not end it first when a loaded run (the sanitizer's) delays this test's cancel.
    request.timeoutInterval = 3_600
    let body = Data(repeating: 7, count: 10_000)
    async let outcome: Swift.Result<DataResponse, any Error> = withCheckedContinuation { continuation in
      URLSession.shared.uploadTask(with: request, from: body, signal: source.signal) {
        continuation.resume(returning: $0)
      }
    }
    await server.answerStarted(path: "/echo")  // the body was received; the answer is pending
    source.cancel()
    let result = await outcome
    #expect(throws: CancellationError.self) { try result.get() }
    let end = await server.connectionEnd(number: 1)
    #expect(end.clientClosedEarly)
  }
}
