import CancelCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests and examples: it streams slowly, so a client can
/// be cancelled mid-transfer, and it reports every connection's end, so a test can check that
/// the client really hung up.
///
/// Routes (any method):
/// - `/slow` — `Content-Length: chunkSize × chunkCount`, one chunk every `chunkInterval`.
/// - `/stepped` — `Content-Length: chunkSize × chunkCount`, one chunk each time the test calls
///   ``releaseChunks(_:)`` (no timing: a test decides when the body moves on).
/// - `/fast` — a short body at once.
/// - `/echo` — reads the request body (`Content-Length` required) and answers with its size
///   after `chunkInterval × chunkCount` (a slow upload target).
/// - `/request-timeout` — answers at once with the value of the request's `request-timeout`
///   header, or `none` (how a test sees the remaining time a client sent).
/// - anything else — `404`.
///
/// Given a `handler`, the server is a service instead: every request is answered with the text the
/// handler returns, computed in a task of its own that is cancelled if the client hangs up first
/// (as a server framework cancels a handler whose client went away).
///
/// One thread per connection, blocking sockets: simple and plenty for a test.
public final class LocalHTTPServer: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `listener`, `port`, the timings and `handler` are set in `init` and
  // never change; `ended` and `stopped` are guarded by `lock`; per-connection state is confined to
  // that connection's thread.

  /// How one connection ended.
  public struct ConnectionEnd: Sendable, Equatable {
    /// The request path.
    public let path: String
    /// Body bytes the server had sent when the connection ended.
    public let bodyBytesSent: Int
    /// Whether the client closed the connection before the response was complete.
    public let clientClosedEarly: Bool
  }

  /// The port the server listens on.
  public let port: UInt16
  /// The base URL, `http://127.0.0.1:<port>`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  private let listener: Int32
  private let chunkSize: Int
  private let chunkCount: Int
  private let chunkInterval: Duration
  private var ended: [ConnectionEnd] = []
  private var waiters: [(Int, SettleCell<ConnectionEnd>)] = []
  private var answering: [String] = []
  private var answerWaiters: [(String, SettleCell<Void>)] = []
  private var stopped = false
  private var releasedChunks = 0
  private let handler: Handler?

  /// Answers one request of a service: given the path and the request's headers (names in lower
  /// case), returns the response body.
  public typealias Handler = @Sendable (_ path: String, _ headers: [String: String]) async -> String

  /// Binds to an ephemeral port on 127.0.0.1 and starts accepting connections.
  ///
  /// The default timing makes `/slow` and `/echo` last about a day (4 million chunks of 1 KB, one
  /// every 20 ms; 4 GB, just under the 4 GiB AsyncHTTPClient accepts for a collected body): a test
  /// that cancels "mid-transfer" stays mid-transfer however long a loaded machine delays it (a
  /// parallel test run can hold every cooperative thread for many minutes; a run on a machine with
  /// both cores busy once waited more than the half hour the previous default lasted between a
  /// transfer's start and its cancel).
  ///
  /// - Parameters:
  ///   - chunkSize: the size of one chunk of `/slow` and `/stepped`.
  ///   - chunkCount: how many chunks they send.
  ///   - chunkInterval: the time between chunks of `/slow`.
  ///   - handler: if given, answers every request instead of the routes above.
  public init(
    chunkSize: Int = 1024, chunkCount: Int = 4_000_000, chunkInterval: Duration = .milliseconds(20),
    handler: Handler? = nil
  ) throws {
    self.handler = handler
    self.chunkSize = chunkSize
    self.chunkCount = chunkCount
    self.chunkInterval = chunkInterval
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var yes: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(descriptor, 16) == 0 else {
      close(descriptor)
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    listener = descriptor
    port = UInt16(bigEndian: address.sin_port)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
    let acceptor = Thread { [self] in acceptLoop() }
    acceptor.name = "LocalHTTPServer.accept"
    acceptor.start()
  }

  /// Stops accepting connections. Open connections finish on their own.
  public func stop() {
    let first = lock.withLock {
      defer { stopped = true }
      return !stopped
    }
    if first { shutdown(listener, Int32(SHUT_RDWR)) }
  }

  deinit { stop() }

  /// Every connection that has ended so far, in the order they ended.
  public var endedConnections: [ConnectionEnd] { lock.withLock { ended } }

  /// Waits until `count` connections have ended (counting those that already did), and returns
  /// the last of them.
  public func connectionEnd(number count: Int) async -> ConnectionEnd {
    let cell = SettleCell<ConnectionEnd>()
    let already: ConnectionEnd? = lock.withLock {
      if ended.count >= count { return ended[count - 1] }
      waiters.append((count, cell))
      return nil
    }
    if let already { return already }
    return await withCheckedContinuation { continuation in
      cell.observe { continuation.resume(returning: $0) }
    }
  }

  /// Waits until the server has started answering a request for `path` (for `/slow`: sent the
  /// headers, so the body is streaming). Counts requests that started before the call.
  public func answerStarted(path: String) async {
    let cell = SettleCell<Void>()
    let already: Bool = lock.withLock {
      if answering.contains(path) { return true }
      answerWaiters.append((path, cell))
      return false
    }
    if already { return }
    await withCheckedContinuation { continuation in
      cell.observe { continuation.resume() }
    }
  }

  /// Lets `/stepped` send `count` more chunks (counted over all its connections).
  public func releaseChunks(_ count: Int = 1) {
    lock.withLock { releasedChunks += count }
  }

  /// Takes one released chunk; `false` if none is left.
  private func takeReleasedChunk() -> Bool {
    lock.withLock {
      guard releasedChunks > 0 else { return false }
      releasedChunks -= 1
      return true
    }
  }

  private func markAnswering(_ path: String) {
    let ready: [SettleCell<Void>] = lock.withLock {
      answering.append(path)
      let due = answerWaiters.filter { $0.0 == path }
      answerWaiters.removeAll { $0.0 == path }
      return due.map(\.1)
    }
    for cell in ready { cell.settle(()) }
  }

  private func acceptLoop() {
    while true {
      let connection = accept(listener, nil, nil)
      if connection < 0 {
        if errno == EINTR { continue }
        close(listener)
        return
      }
      let worker = Thread { [self] in serve(connection) }
      worker.name = "LocalHTTPServer.connection"
      worker.start()
    }
  }

  private func record(_ end: ConnectionEnd) {
    let ready: [SettleCell<ConnectionEnd>] = lock.withLock {
      ended.append(end)
      let due = waiters.filter { $0.0 <= ended.count }
      waiters.removeAll { $0.0 <= ended.count }
      return due.map(\.1)
    }
    for cell in ready { cell.settle(end) }
  }

  private func serve(_ connection: Int32) {
    defer { close(connection) }
    #if canImport(Darwin)
      var yes: Int32 = 1  // Darwin has no MSG_NOSIGNAL: keep a hung-up client from raising SIGPIPE
      setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    #endif
    guard let request = readRequest(connection) else { return }
    if let handler { return serve(connection, request.path, request.headers, with: handler) }
    switch request.path {
    case "/slow":
      let total = chunkSize * chunkCount
      guard
        send(
          connection,
          "HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        )
      else {
        return record(ConnectionEnd(path: request.path, bodyBytesSent: 0, clientClosedEarly: true))
      }
      markAnswering(request.path)
      let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: chunkSize)
      var sent = 0
      for _ in 0..<chunkCount {
        if clientHungUp(connection, within: chunkInterval) || !sendBytes(connection, chunk) {
          return record(ConnectionEnd(path: request.path, bodyBytesSent: sent, clientClosedEarly: true))
        }
        sent += chunk.count
      }
      record(ConnectionEnd(path: request.path, bodyBytesSent: sent, clientClosedEarly: false))
    case "/stepped":
      let total = chunkSize * chunkCount
      guard
        send(
          connection,
          "HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        )
      else {
        return record(ConnectionEnd(path: request.path, bodyBytesSent: 0, clientClosedEarly: true))
      }
      markAnswering(request.path)
      let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: chunkSize)
      var sent = 0
      for _ in 0..<chunkCount {
        // Waits for the test's go-ahead, watching for the client to hang up meanwhile.
        while !takeReleasedChunk() {
          if clientHungUp(connection, within: .milliseconds(5)) {
            return record(ConnectionEnd(path: request.path, bodyBytesSent: sent, clientClosedEarly: true))
          }
        }
        if !sendBytes(connection, chunk) {
          return record(ConnectionEnd(path: request.path, bodyBytesSent: sent, clientClosedEarly: true))
        }
        sent += chunk.count
      }
      record(ConnectionEnd(path: request.path, bodyBytesSent: sent, clientClosedEarly: false))
    case "/request-timeout":
      let body = request.headers["request-timeout"] ?? "none"
      let ok = send(
        connection, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
      record(ConnectionEnd(path: request.path, bodyBytesSent: ok ? body.utf8.count : 0, clientClosedEarly: !ok))
    case "/fast":
      let body = "fast response\n"
      let ok = send(
        connection, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
      record(ConnectionEnd(path: request.path, bodyBytesSent: ok ? body.utf8.count : 0, clientClosedEarly: !ok))
    case "/echo":
      markAnswering(request.path)
      for _ in 0..<chunkCount where clientHungUp(connection, within: chunkInterval) {
        return record(ConnectionEnd(path: request.path, bodyBytesSent: 0, clientClosedEarly: true))
      }
      let body = "received \(request.bodyLength) bytes\n"
      let ok = send(
        connection, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
      record(ConnectionEnd(path: request.path, bodyBytesSent: ok ? body.utf8.count : 0, clientClosedEarly: !ok))
    default:
      let ok = send(connection, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
      record(ConnectionEnd(path: request.path, bodyBytesSent: 0, clientClosedEarly: !ok))
    }
  }

  /// Reads the request line, the headers, and (for `Content-Length`) the body.
  private func readRequest(_ connection: Int32) -> (path: String, bodyLength: Int, headers: [String: String])? {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    var headerEnd: Int?
    while headerEnd == nil {
      let count = recv(connection, &buffer, buffer.count, 0)
      if count <= 0 { return nil }
      received += buffer[0..<count]
      headerEnd = received.firstRange(of: separator)?.upperBound
    }
    let head = String(decoding: received[..<headerEnd!], as: UTF8.self)
    let lines = head.split(separator: "\r\n")
    let parts = lines.first?.split(separator: " ") ?? []
    let path = parts.count > 1 ? String(parts[1]) : "/"
    let lengthLine = lines.first { $0.lowercased().hasPrefix("content-length:") }
    let length = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      let field = line.split(separator: ":", maxSplits: 1)
      guard field.count == 2 else { continue }
      headers[field[0].lowercased()] = field[1].trimmingCharacters(in: .whitespaces)
    }
    var bodyRead = received.count - headerEnd!
    while bodyRead < length {
      let count = recv(connection, &buffer, buffer.count, 0)
      if count <= 0 { return nil }
      bodyRead += count
    }
    return (path, length, headers)
  }

  /// Answers a request with `handler`'s text; cancels the handler's task if the client hangs up
  /// before it is ready.
  private func serve(_ connection: Int32, _ path: String, _ headers: [String: String], with handler: @escaping Handler)
  {
    let answer = SettleCell<String>()
    let task = Task { _ = answer.settle(await handler(path, headers)) }
    markAnswering(path)
    while answer.value == nil {
      if clientHungUp(connection, within: .milliseconds(5)) {
        task.cancel()
        return record(ConnectionEnd(path: path, bodyBytesSent: 0, clientClosedEarly: true))
      }
    }
    let body = answer.value ?? ""
    let ok = send(
      connection, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    record(ConnectionEnd(path: path, bodyBytesSent: ok ? body.utf8.count : 0, clientClosedEarly: !ok))
  }

  /// Waits up to `interval` for the client to close its side; `true` if it did.
  private func clientHungUp(_ connection: Int32, within interval: Duration) -> Bool {
    var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
    let milliseconds = Int32(
      interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
    guard poll(&descriptor, 1, milliseconds) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(connection, &byte, 1, Int32(MSG_PEEK)) <= 0
  }

  private func send(_ connection: Int32, _ text: String) -> Bool {
    sendBytes(connection, Array(text.utf8))
  }

  private func sendBytes(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      #if canImport(Darwin)
        let flags: Int32 = 0
      #else
        let flags = Int32(MSG_NOSIGNAL)
      #endif
      let written = bytes[offset...].withUnsafeBytes { Foundation.send(connection, $0.baseAddress, $0.count, flags) }
      if written <= 0 { return false }
      offset += written
    }
    return true
  }
}
