#if GRPC
  import CancelCore
  import GRPCCore
  import Tokens

  /// Makes a gRPC call under a token: the call gets the token's deadline as its timeout, and
  /// cancelling the token cancels it.
  ///
  /// `call` receives `options` with its `timeout` set to the time left until the token's
  /// `deadline` (the earliest of its own and its linked parents'), unless
  /// `options` already has a shorter one. gRPC sends that timeout to the server in the
  /// `grpc-timeout` header, so a server of this package (``ServerCancellationTokenInterceptor``)
  /// hands its handler a token with the same deadline, minus the time on the wire. Pass the
  /// options on to the client's call:
  ///
  /// ```swift
  /// let reply = try await withGRPCCancellation { options in
  ///   try await client.unary(
  ///     request: ClientRequest(message: query), descriptor: search,
  ///     serializer: serializer, deserializer: deserializer, options: options
  ///   ) { try $0.message }
  /// }
  /// ```
  ///
  /// Without a `token`, the current token (`CancellationToken.current`, read when the call is
  /// made) is used, so calls made inside `withCancellationToken(_:operation:)`, or inside a server
  /// handler behind ``ServerCancellationTokenInterceptor``, are cancelled and deadlined with their
  /// scope without passing anything. Outside any scope, or with `token: .none`
  /// (`CancellationToken.none`), `call` runs as it is, with `options`.
  ///
  /// `call` runs in a child task that the token's cancellation cancels, which cancels the RPC (gRPC
  /// resets its stream). The call then throws the token's reason: `CancellationError()` by
  /// default, a `TimeoutError` when the token's deadline passed, the reason given to
  /// `cancel(reason:)` otherwise — so `Error.isCancellation` is `true`. A token already cancelled
  /// sends nothing and throws its reason at once.
  ///
  /// gRPC also enforces the timeout on its own clock: when its timer passes before the token's,
  /// the call throws gRPC's `RPCError` with the code `.deadlineExceeded` (a failure, not a
  /// cancellation) — unless the token's own timer cancelled it first, in which case this throws
  /// the token's `TimeoutError`. The two are a moment apart; test `error.isCancellation` or
  /// `(error as? RPCError)?.code == .deadlineExceeded` to handle both.
  ///
  /// Cancelling the task that calls this cancels the RPC as it always does in gRPC; it does not
  /// cancel the token.
  ///
  /// - Parameters:
  ///   - token: cancels the call and bounds its timeout; the current token by default.
  ///   - options: the call's options; their `timeout` is kept when shorter than the token's time
  ///     left.
  ///   - isolation: the actor the call runs on; the caller's, by default.
  ///   - call: makes the call with the options it is given.
  /// - Returns: what `call` returns.
  /// - Throws: the token's reason when it was cancelled and `call` then threw; otherwise what
  ///   `call` throws (gRPC's `RPCError` for a failed RPC).
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  public func withGRPCCancellation<T>(
    token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    options: CallOptions = .defaults,
    isolation: isolated (any Actor)? = #isolation,
    _ call: (CallOptions) async throws -> T
  ) async throws -> T {
    if let reason = token.reason { throw reason }
    var bounded = options
    if let deadline = token.deadline {
      let left = RemainingTime(until: deadline).duration
      if bounded.timeout.map({ left < $0 }) ?? true { bounded.timeout = left }
    }
    let sent = bounded
    return try await withCancellation(of: token.signal, isolation: isolation) { try await call(sent) }
  }
#endif
