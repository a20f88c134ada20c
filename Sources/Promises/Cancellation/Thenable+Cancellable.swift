/// Makes a promise or guarantee cancellable: PromiseKit 7's `cancellable(_:)`.
///
/// The result is the first member of a new chain; cancelling it rejects it while `thenable`
/// keeps running. A guarantee's own task is cancelled too: `cancellable(after(seconds: 5))`
/// cancelled stops the timer.
///
/// - Parameter thenable: the promise or guarantee.
/// - Returns: a cancellable promise resolved like `thenable`.
@inlinable
public func cancellable<U: Thenable>(_ thenable: U) -> CancellablePromise<U.T> {
  CancellablePromise(thenable)
}

/// Makes a promise or guarantee cancellable, as the first member of a new chain named `label` in
/// cancellation records (see ``CancellableThenable/cancellationRecord``).
///
/// - Parameters:
///   - thenable: the promise or guarantee.
///   - label: the chain's name in records: `"load profile"`, say.
/// - Returns: a cancellable promise resolved like `thenable`.
@inlinable
public func cancellable<U: Thenable>(_ thenable: U, label: String) -> CancellablePromise<U.T> {
  CancellablePromise(thenable, label: label)
}

extension Thenable {
  /// PromiseKit 7's spelling of ``cancellable(_:)``.
  @inlinable
  public func cancellize() -> CancellablePromise<T> {
    CancellablePromise(self)
  }

  /// ``cancellable(_:label:)``, as a method: the first member of a new chain named `label` in
  /// cancellation records.
  ///
  /// - Parameter label: the chain's name in records: `"load profile"`, say.
  @inlinable
  public func cancellize(label: String) -> CancellablePromise<T> {
    CancellablePromise(self, label: label)
  }

  /// CancellablePromiseKit's spelling of ``cancellable(_:)``: cancelling the wrapper rejects it
  /// while this promise keeps running.
  @inlinable
  public func asCancellable() -> CancellablePromise<T> {
    CancellablePromise(self)
  }
}

extension Promise {
  /// This promise (present so that code written for cancellable promises compiles for plain ones).
  public func asPromise() -> Promise<T> {
    self
  }
}

extension Guarantee {
  /// A promise fulfilled with this guarantee's value.
  public func asPromise() -> Promise<T> {
    let promise = Promise<T>(pending: ())
    pipe { (value: T) in promise.settle(.success(value)) }
    return promise
  }
}
