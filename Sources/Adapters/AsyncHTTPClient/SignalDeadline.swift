#if AsyncHTTPClient
  import CancelCore

  /// The absolute deadline `signal` carries (the earliest of its own and its linked parents'), if
  /// any: what an AsyncHTTPClient request started on the signal takes as its deadline.
  ///
  /// The one place that reads it, so that the request adapters do not depend on how the core
  /// stores deadlines.
  func absoluteDeadline(of signal: CancelSignal) -> ContinuousClock.Instant? {
    nil
  }
#endif
