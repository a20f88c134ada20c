import Dispatch

/// The tag that selects PromiseKit's promise-returning `DispatchQueue.async`:
/// `queue.async(.promise) { … }`.
public enum PMKNamespacer: Sendable {
  /// Returns a ``Promise`` (a throwing body) or a ``Guarantee`` (a body that cannot throw).
  case promise
}

extension DispatchQueue {
  /// Runs `body` asynchronously on this queue and returns a promise of its value (PromiseKit's
  /// `queue.async(.promise) { … }`).
  ///
  /// `body` runs once, on this queue, as a work item with `group`, `qos` and `flags`.
  ///
  /// - Parameters:
  ///   - namespace: `.promise`, which selects this method.
  ///   - group: the dispatch group the work item joins, if any.
  ///   - qos: the quality of service of the work item.
  ///   - flags: the flags of the work item.
  ///   - body: makes the value; throwing rejects the promise.
  /// - Returns: a promise fulfilled with `body`'s value or rejected with its error.
  public func async<T: Sendable>(
    _ namespace: PMKNamespacer, group: DispatchGroup? = nil, qos: DispatchQoS = .default,
    flags: DispatchWorkItemFlags = [],
    execute body: @escaping @Sendable () throws -> T
  ) -> Promise<T> {
    let promise = Promise<T>(pending: ())
    async(group: group, qos: qos, flags: flags) {
      promise.settle(Swift.Result { try body() })
    }
    return promise
  }

  /// Runs `body` asynchronously on this queue and returns a guarantee of its value (PromiseKit's
  /// `queue.async(.promise) { … }` with a body that cannot throw).
  ///
  /// - Parameters:
  ///   - namespace: `.promise`, which selects this method.
  ///   - group: the dispatch group the work item joins, if any.
  ///   - qos: the quality of service of the work item.
  ///   - flags: the flags of the work item.
  ///   - body: makes the value.
  /// - Returns: a guarantee fulfilled with `body`'s value.
  public func async<T: Sendable>(
    _ namespace: PMKNamespacer, group: DispatchGroup? = nil, qos: DispatchQoS = .default,
    flags: DispatchWorkItemFlags = [],
    execute body: @escaping @Sendable () -> T
  ) -> Guarantee<T> {
    let guarantee = Guarantee<T>(pending: ())
    async(group: group, qos: qos, flags: flags) {
      guarantee.settle(body())
    }
    return guarantee
  }
}
