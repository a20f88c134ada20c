/// The failure of a future handed over to a future that waits, directly or through other
/// futures, on the future itself.
///
/// ``Completion/completeUsing(_:)`` (from a producer, a block or a request handler's answer) that
/// would close a cycle of futures waiting on each other is refused: the future it would have
/// handed over fails with this error at once, and so does every future of the would-be cycle
/// that was waiting on it, so none of them stays pending forever and a cancel request never
/// travels round the cycle. The check looks at most 64 futures upstream: the futures of a longer
/// cycle stay pending (a cancel request on them still returns, visiting each once).
public struct CompletionCycleError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The error.
  public init() {}

  /// What went wrong, for logs.
  public var description: String {
    "CompletionCycleError: a future was handed over (completeUsing) to a future that waits on it"
  }
}
