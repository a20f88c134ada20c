#if ServiceLifecycle
  import CancelCore

  /// The reason work was cancelled by a graceful shutdown of its service (swift-service-lifecycle).
  ///
  /// A cancellation, not a failure: `Error.isCancellation` is `true` for it, so the default catch
  /// policies and `CancellationError` checks treat it like every other cancellation, and code that
  /// wants to tell a shutdown from other cancels tests `error is GracefulShutdownError`.
  public struct GracefulShutdownError: CancellableError, Sendable, Equatable, CustomStringConvertible {
    /// The error.
    public init() {}

    /// Always `true`: a graceful shutdown is a cancellation.
    public var isCancelled: Bool { true }

    /// `"graceful shutdown"`.
    public var description: String { "graceful shutdown" }
  }
#endif
