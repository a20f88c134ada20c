/// A producer's request handler with its executor (resolved at registration); its answer is a
/// completion to apply, or `nil` to continue. It is given the request's options and the call site
/// of the request it answers (for a bridge that cancels other work, whose record can then name
/// it).
@usableFromInline struct RequestHandler: Sendable {
  @usableFromInline let executor: Executor
  @usableFromInline let body: @Sendable (CancellationOptions, CancelOrigin) -> ErasedCompletion?

  @inlinable init(
    executor: Executor, body: @escaping @Sendable (CancellationOptions, CancelOrigin) -> ErasedCompletion?
  ) {
    self.executor = executor
    self.body = body
  }
}
