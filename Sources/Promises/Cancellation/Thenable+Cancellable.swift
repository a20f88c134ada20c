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

extension Thenable {
  /// PromiseKit 7's spelling of ``cancellable(_:)``.
  @inlinable
  public func cancellize() -> CancellablePromise<T> {
    CancellablePromise(self)
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
