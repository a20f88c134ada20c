#if ServiceContext
  import CancelCore
  import Instrumentation
  import Tokens

  extension ServiceContext {
    /// The token of the work this context describes, if one was put in it.
    ///
    /// ``withServiceContextCancellation(isolation:fileID:line:function:operation:)`` reads it (with
    /// ``cancellationDeadline``) to bind the task's `CancellationToken.current`, and sets it to the
    /// token it binds, so code that only sees the service context (a tracer, a framework's
    /// middleware) reads the cancellation of the work too. A token does not cross a process
    /// boundary: ``CancellationDeadlineInstrument`` sends only its deadline.
    public var cancellationToken: CancellationToken? {
      get { self[CancellationTokenKey.self] }
      set { self[CancellationTokenKey.self] = newValue }
    }

    /// The deadline a caller in another process gave this work, as an instant of this machine's
    /// clock: ``CancellationDeadlineInstrument`` sets it when it extracts a request's
    /// ``RemainingTime`` (the instant of arrival plus the time that was left), and sends what is
    /// left of it when it injects into an outgoing request.
    public var cancellationDeadline: ContinuousClock.Instant? {
      get { self[CancellationDeadlineKey.self] }
      set { self[CancellationDeadlineKey.self] = newValue }
    }

    /// The earliest of ``cancellationDeadline`` and the deadline of ``cancellationToken``, or
    /// `nil` if neither has one.
    public var earliestCancellationDeadline: ContinuousClock.Instant? {
      earliest(cancellationDeadline, cancellationToken?.deadline)
    }
  }

  /// The earliest of two optional instants.
  func earliest(_ a: ContinuousClock.Instant?, _ b: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
  }

  /// The key of `ServiceContext.cancellationToken`.
  enum CancellationTokenKey: ServiceContextKey {
    typealias Value = CancellationToken
    static var nameOverride: String? { "cancellation-token" }
  }

  /// The key of `ServiceContext.cancellationDeadline`.
  enum CancellationDeadlineKey: ServiceContextKey {
    typealias Value = ContinuousClock.Instant
    static var nameOverride: String? { "cancellation-deadline" }
  }
#endif
