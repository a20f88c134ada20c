extension Future {
  /// How many callbacks (derived stages, observers) wait for this future now. For the package's
  /// tests, which must know that a consumer has attached before they act.
  package var waitingCount: Int { lock.withLock { machine.waitingCount } }

  /// A pending future, to be completed through `Promise(producing:)`. For the package's other
  /// modules, whose convenience initializers must start from a pending future.
  package convenience init(pendingForProducer: ()) {
    self.init(pending: ())
  }
}
