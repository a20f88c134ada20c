/// A producer's request handler with its executor (resolved at registration); its answer is a
/// completion to apply, or `nil` to continue.
struct RequestHandler: Sendable {
  let executor: Executor
  let body: @Sendable (CancellationOptions) -> ErasedCompletion?
}
