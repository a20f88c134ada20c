import CancelCore

extension Promise {
  /// Calls `body` with the result once this promise resolves, as ``pipe(to:)`` does, and returns
  /// the key that takes `body` back out while it waits (``removeCallback(_:)``); `nil` if the
  /// promise had already resolved and `body` ran at once on this thread.
  ///
  /// For waiters that may give up before the promise resolves (an await whose task is cancelled,
  /// `when(_:while:)` once its work finished): a long-lived pending promise keeps only the
  /// waiters still waiting.
  @inlinable
  package final func pipeRemovably(to body: @escaping @Sendable (Swift.Result<T, Error>) -> Void) -> RegistrationKey? {
    observe(.run(body))
  }

  /// Takes out a callback added with ``pipeRemovably(to:)`` that still waits; it is released
  /// after unlocking and never runs. Does nothing once it ran (or is running).
  @inlinable
  package final func removeCallback(_ key: RegistrationKey) {
    let removed = lock.withLock { machine.remove(key) }
    _ = removed
  }
}

extension Promise where T == Void {
  /// A pending promise that another module of the package settles with ``settleFromPackage(_:)``
  /// and that may be freed while pending without a ``LogEvent/pendingPromiseDeallocated`` report
  /// (an adapter's promise nobody waits for any more).
  package static func pendingQuietly() -> Promise<Void> {
    Promise(pending: ())
  }
}

extension Promise {
  /// Settles this promise, unless it already settled: for the package's adapters.
  package final func settleFromPackage(_ result: Swift.Result<T, Error>) {
    settle(result)
  }
}
