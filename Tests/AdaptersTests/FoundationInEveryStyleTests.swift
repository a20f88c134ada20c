import Adapters
import Foundation
import LocalHTTPServer
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every Foundation adapter, started in every facade's style on real work, cancelled from that
/// facade's side, with a check that the work itself stopped.
@Suite("Foundation work in every facade's style")
struct FoundationInEveryStyleTests {
  // MARK: Child processes

  @Test(arguments: FacadeStyle.allCases)
  func cancellingStopsASleepingChild(style: FacadeStyle) async throws {
    let fifo = try FIFO()
    let work = ChildProcess.work(ChildProcessTests.shell, arguments: ["-c", "echo $$ > \(fifo.path); exec sleep 3600"])
    let running = await work.start(as: style)
    let pid = try #require(Int32(await fifo.readAll().trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(kill(pid, 0) == 0, "the child must be running before the cancel")
    running.cancel()
    let outcome = await running.outcome()
    #expect(outcome.isCancellation, "\(outcome)")
    await running.workEnded()
    #expect(ChildProcessTests.isGone(pid), "process \(pid) still exists (running or zombie)")
  }

  @Test(arguments: FacadeStyle.allCases)
  func aChildThatEndsReportsItsOutput(style: FacadeStyle) async throws {
    let output = try await ChildProcess.work(ChildProcessTests.shell, arguments: ["-c", "echo done"])
      .outcome(as: style).get()
    #expect(output.standardOutputText == "done\n")
    #expect(output.succeeded)
  }

  @Test(arguments: FacadeStyle.allCases)
  func aMissingExecutableIsAClearFailureNotACancellation(style: FacadeStyle) async {
    let outcome = await ChildProcess.work(URL(fileURLWithPath: "/no/such/tool")).outcome(as: style)
    guard case .failure(let error) = outcome else {
      Issue.record("expected a launch failure")
      return
    }
    #expect(error is ProcessLaunchError)
    #expect(!error.isCancellation)
  }

  // MARK: URLSession

  @Test(arguments: FacadeStyle.allCases)
  func cancellingADataTransferClosesTheConnection(style: FacadeStyle) async throws {
    let server = try LocalHTTPServer()
    let running = await URLSession.shared.dataWork(from: server.baseURL.appendingPathComponent("slow"))
      .start(as: style)
    await server.answerStarted(path: "/slow")
    running.cancel()
    let outcome = await running.outcome()
    #expect(outcome.isCancellation, "\(outcome)")
    let end = await server.connectionEnd(number: 1)
    #expect(end.clientClosedEarly)
  }

  @Test(arguments: FacadeStyle.allCases)
  func cancellingADownloadClosesTheConnection(style: FacadeStyle) async throws {
    let server = try LocalHTTPServer()
    let running = await URLSession.shared.downloadWork(
      for: URLRequest(url: server.baseURL.appendingPathComponent("slow"))
    )
    .start(as: style)
    await server.answerStarted(path: "/slow")
    running.cancel()
    #expect(await running.outcome().isCancellation)
    #expect(await server.connectionEnd(number: 1).clientClosedEarly)
  }

  @Test(arguments: FacadeStyle.allCases)
  func cancellingAnUploadClosesTheConnection(style: FacadeStyle) async throws {
    let server = try LocalHTTPServer(chunkSize: 1)
    var request = URLRequest(url: server.baseURL.appendingPathComponent("echo"))
    request.httpMethod = "POST"
    // The server answers an upload only after a long silence; URLSession's 60 s idle timeout must
    // not end it first when a loaded run (the sanitizer's) delays this test's cancel.
    request.timeoutInterval = 3_600
    let running = await URLSession.shared.uploadWork(for: request, from: Data(repeating: 1, count: 1_000))
      .start(as: style)
    await server.answerStarted(path: "/echo")
    running.cancel()
    #expect(await running.outcome().isCancellation)
    #expect(await server.connectionEnd(number: 1).clientClosedEarly)
  }

  @Test(arguments: FacadeStyle.allCases)
  func aCompletedTransferReturnsItsBody(style: FacadeStyle) async throws {
    let server = try LocalHTTPServer()
    let response = try await URLSession.shared.dataWork(from: server.baseURL.appendingPathComponent("fast"))
      .outcome(as: style).get()
    #expect(String(decoding: response.data, as: UTF8.self) == "fast response\n")
  }

  @Test(arguments: FacadeStyle.allCases)
  func aMalformedURLFailsWithBadURLNotACancellation(style: FacadeStyle) async {
    let outcome = await URLSession.shared.dataWork(from: "http://exa mple.com:port/").outcome(as: style)
    guard case .failure(let error) = outcome else {
      Issue.record("expected a failure")
      return
    }
    #expect((error as? URLError)?.code == .badURL)
    #expect(!error.isCancellation)
  }

  @Test(arguments: FacadeStyle.allCases)
  func aRefusedConnectionFailsClearlyNotACancellation(style: FacadeStyle) async throws {
    let server = try LocalHTTPServer()
    let url = server.baseURL.appendingPathComponent("fast")
    server.stop()
    let outcome = await URLSession.shared.dataWork(from: url).outcome(as: style)
    guard case .failure(let error) = outcome else {
      Issue.record("expected a connection failure")
      return
    }
    #expect((error as? URLError)?.code == .cannotConnectToHost)
    #expect(!error.isCancellation)
  }

  // MARK: Dispatch

  @Test(arguments: FacadeStyle.allCases)
  func cancellingScheduledWorkStopsTheTimerAndReleasesTheWork(style: FacadeStyle) async {
    weak var captured: Tracked?
    let ran = Counter()
    let running: StartedWork<Int>
    do {
      let tracked = Tracked()
      captured = tracked
      running = await DispatchQueue.global().scheduledWork(after: .seconds(3_600)) {
        withExtendedLifetime(tracked) { ran.increment() }
        return 1
      }.start(as: style)
    }
    running.cancel()
    #expect(await running.outcome().isCancellation)
    await running.workEnded()
    #expect(ran.value == 0)
    #expect(captured == nil, "cancelling must release the work")
  }

  @Test(arguments: FacadeStyle.allCases)
  func scheduledWorkReportsItsValue(style: FacadeStyle) async throws {
    let value = try await DispatchQueue.global().scheduledWork { 42 }.outcome(as: style).get()
    #expect(value == 42)
  }

  @Test(arguments: FacadeStyle.allCases)
  func cancellingSubmittedWorkItemCancelsIt(style: FacadeStyle) async {
    let item = DispatchWorkItem {}
    let running = await DispatchQueue.global().work(for: item, after: .seconds(3_600)).start(as: style)
    running.cancel()
    #expect(await running.outcome().isCancellation)
    #expect(item.isCancelled)
  }

  // MARK: Operations

  @Test(arguments: FacadeStyle.allCases)
  func cancellingCancelsTheOperation(style: FacadeStyle) async {
    let queue = OperationQueue()
    queue.isSuspended = true  // the operation cannot start before we cancel
    let operation = BlockOperation {}
    let running = await queue.work(adding: operation).start(as: style)
    running.cancel()
    queue.isSuspended = false
    #expect(await running.outcome().isCancellation)
    #expect(operation.isCancelled)
  }

  @Test(arguments: FacadeStyle.allCases)
  func cancellingTheOperationEndsTheWorkCancelled(style: FacadeStyle) async {
    let queue = OperationQueue()
    queue.isSuspended = true
    let operation = BlockOperation {}
    let running = await queue.work(adding: operation).start(as: style)
    operation.cancel()
    queue.isSuspended = false
    let outcome = await running.outcome()
    #expect(outcome.isCancellation)
    guard case .failure(let error) = outcome else { return }
    // A future's `.cancelled` carries no error (FutureKit's model): only the other styles keep it.
    #expect(style == .future ? error is CancellationError : error is OperationCancelledError)
  }

  // MARK: Notifications

  @Test(arguments: FacadeStyle.allCases)
  func theNextNotificationDeliversWhatWasExtracted(style: FacadeStyle) async throws {
    let center = NotificationCenter()
    let name = Notification.Name("test.next")
    let running = await center.nextNotification(named: name) { $0.userInfo?["n"] as? Int }.start(as: style)
    center.post(name: name, object: nil, userInfo: ["n": 7])
    center.post(name: name, object: nil, userInfo: ["n": 8])
    #expect(try await running.outcome().get() == 7)
  }

  @Test(arguments: FacadeStyle.allCases)
  func cancellingRemovesTheObserver(style: FacadeStyle) async {
    let center = NotificationCenter()
    let name = Notification.Name("test.cancelled")
    let extracted = Counter()
    let running = await center.nextNotification(named: name) { _ in extracted.increment() }.start(as: style)
    running.cancel()
    #expect(await running.outcome().isCancellation)
    await running.workEnded()
    center.post(name: name, object: nil)
    #expect(extracted.value == 0, "a cancelled observation must not see later posts")
  }
}

/// A named pipe in the temporary directory, removed when the value goes away.
final class FIFO: Sendable {
  let path: String

  init() throws {
    path = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)").path
    guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.EEXIST) }
  }

  deinit { unlink(path) }

  /// Reads to end of file on a thread of its own (opening blocks until a writer opens it).
  func readAll() async -> String { await ChildProcessTests.readAll(path) }
}
