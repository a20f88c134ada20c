import Dispatch

// PromiseKit 7 hands `tap` bodies the standard library's result, and its code binds that result's
// cases (`case let .success(value)`), which PromiseKit 6/8's ``Result`` cannot match. These
// overloads take such a body; being disfavored, they are chosen only when the body does not
// compile as one over ``Result`` (a body that works with either gets ``Result``).

extension Thenable {
  /// `tap` with the standard library's result: runs `body` with the result,
  /// fulfilled or rejected, and passes it on unchanged.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the result.
  /// - Returns: a promise resolved like this one, after `body` ran.
  @_disfavoredOverload
  public func tap(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (Swift.Result<T, Error>) -> Void
  ) -> Promise<T> {
    tap(on: on, flags: flags) { (result: Result<T>) in body(result.swiftResult) }
  }
}

extension CancellableThenable {
  /// `tap` with the standard library's result: runs `body` with the result,
  /// fulfilled or rejected, and passes it on unchanged.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: looks at the result; it does not start after a cancel.
  /// - Returns: a new member of this chain resolved the same way.
  @_disfavoredOverload
  public func tap(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (Swift.Result<T, Error>) -> Void
  ) -> CancellablePromise<T> {
    tap(on: on, flags: flags) { (result: Result<T>) in body(result.swiftResult) }
  }
}
