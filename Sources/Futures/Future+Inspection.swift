extension Future {
  /// How many callbacks (derived stages, observers) wait for this future now. For the package's
  /// tests, which must know that a consumer has attached before they act.
  package var waitingCount: Int { lock.withLock { machine.waitingCount } }
}
