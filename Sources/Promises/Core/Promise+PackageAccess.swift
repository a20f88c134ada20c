extension Promise {
  /// How many handlers wait for this promise now. For the package's tests, which must know that
  /// a consumer has attached before they act.
  package var waitingCount: Int { lock.withLock { machine.waitingCount } }
}
