#if GRPC
  import Adapters
  import GRPCCore
  import GRPCNIOTransportHTTP2
  import TestSupport
  import Testing
  import Tokens

  /// Messages are UTF-8 strings: no code generation needed.
  struct UTF8Serializer: MessageSerializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: String) throws -> Bytes { Bytes(Array(message.utf8)) }
  }

  /// Reads the UTF-8 strings `UTF8Serializer` writes.
  struct UTF8Deserializer: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> String {
      serializedMessageBytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
  }

  /// What a handler saw of its token when it started.
  struct SeenToken: Sendable {
    var hadToken: Bool
    var timeLeft: Duration?
    var cancelledAtStart: Bool
  }

  /// A test service whose handlers report what their token did.
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  final class ProbeService: RegistrableRPCService {
    static let service = "test.Probe"
    static let hold = MethodDescriptor(fullyQualifiedService: service, method: "Hold")
    static let forward = MethodDescriptor(fullyQualifiedService: service, method: "Forward")
    static let stream = MethodDescriptor(fullyQualifiedService: service, method: "Stream")

    /// What the handler (or the producer) saw when it started.
    let started = OutcomeBox<SeenToken>()
    /// The token's reason once the handler saw it cancelled.
    let ended = OutcomeBox<(any Error)?>()
    /// The token's cancellation record, delivered with `ended`.
    let endedRecord = OutcomeBox<CancellationRecord?>()
    /// How many times a handler ran.
    let calls = Counter()
    /// Called by `Forward`, under the handler's scope: the next hop.
    let next: (@Sendable () async throws -> String)?

    init(next: (@Sendable () async throws -> String)? = nil) {
      self.next = next
    }

    /// Reports what the current token is like as the handler starts.
    private func reportStart() {
      let token = CancellationToken.current
      started.deliver(
        .success(
          SeenToken(
            hadToken: token != nil, timeLeft: token?.deadline.map { ContinuousClock.now.duration(to: $0) },
            cancelledAtStart: token?.isCancelled ?? false)))
    }

    /// Reports the current token, then waits until it is cancelled (its task then is too).
    private func holdUntilCancelled() async throws {
      let token = CancellationToken.current
      reportStart()
      do {
        try await suspendUntilCancelled()
      } catch {
        endedRecord.deliver(.success(token?.cancellationRecord))
        ended.deliver(.success(token?.reason))
        throw error
      }
    }

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
      router.registerHandler(
        forMethod: Self.hold, deserializer: UTF8Deserializer(), serializer: UTF8Serializer()
      ) { _, _ in
        self.calls.increment()
        try await self.holdUntilCancelled()
        return StreamingServerResponse(single: ServerResponse(message: "unreachable"))
      }
      router.registerHandler(
        forMethod: Self.forward, deserializer: UTF8Deserializer(), serializer: UTF8Serializer()
      ) { _, _ in
        self.calls.increment()
        self.reportStart()
        let reply = try await self.next?() ?? "no next hop"
        return StreamingServerResponse(single: ServerResponse(message: reply))
      }
      router.registerHandler(
        forMethod: Self.stream, deserializer: UTF8Deserializer(), serializer: UTF8Serializer()
      ) { _, _ in
        self.calls.increment()
        return StreamingServerResponse { writer in
          try await writer.write("first")
          try await self.holdUntilCancelled()
          return [:]
        }
      }
    }
  }

  /// Runs `body` with a client of a real HTTP/2 server on 127.0.0.1 serving `service` behind
  /// `ServerCancellationTokenInterceptor`; both end when `body` returns.
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func withProbeServer<T: Sendable>(
    _ service: ProbeService,
    interceptor: ServerCancellationTokenInterceptor = ServerCancellationTokenInterceptor(),
    _ body: (GRPCClient<HTTP2ClientTransport.Posix>, GRPCServer<HTTP2ServerTransport.Posix>) async throws -> T
  ) async throws -> T {
    try await withGRPCServer(
      transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
      services: [service], interceptors: [interceptor]
    ) { server in
      let address = try #require(try await server.transport.listeningAddress.ipv4)
      return try await withGRPCClient(
        transport: .http2NIOPosix(
          target: .ipv4(address: address.host, port: address.port), transportSecurity: .plaintext)
      ) { client in
        try await body(client, server)
      }
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  extension GRPCClient {
    /// Calls the unary `method` with `options` and `metadata`; returns the reply.
    func probe(
      _ method: MethodDescriptor, options: CallOptions = .defaults, metadata: Metadata = [:]
    ) async throws -> String {
      try await unary(
        request: ClientRequest(message: "probe", metadata: metadata), descriptor: method,
        serializer: UTF8Serializer(), deserializer: UTF8Deserializer(), options: options
      ) { try $0.message }
    }
  }
#endif
