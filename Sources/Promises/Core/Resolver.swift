/// The write side of a pending ``Promise``: fulfils or rejects it, once.
///
/// Only the first call takes effect; later ones are ignored. Any thread may call it; the promise
/// is settled when the call returns, and its handlers that were added with `on: nil` run
/// synchronously on that thread: before the call returns, or, when the call is made inside a
/// handler this package is running, as soon as that handler returns (see "Reentrancy" in
/// `docs/semantics.md`).
///
/// The promise of a ``CancellablePromise`` whose chain's cancel has started is rejected with the
/// cancel error whatever the call says: a task that settles its work while being cancelled cannot
/// replace the cancel error.
///
/// Unlike PromiseKit's class, `Resolver` is a small value (a reference to its promise), so
/// creating a pending promise costs one allocation. Copies resolve the same promise.
public struct Resolver<T: Sendable>: Sendable {
  /// The promise this resolver settles.
  @usableFromInline let promise: Promise<T>

  @inlinable init(_ promise: Promise<T>) {
    self.promise = promise
  }

  /// Fulfils the promise with `value`, unless it already resolved.
  @inlinable
  public func fulfill(_ value: T) {
    promise.resolve(.success(value))
  }

  /// Rejects the promise with `error`, unless it already resolved.
  @inlinable
  public func reject(_ error: Error) {
    promise.resolve(.failure(error))
  }

  /// Resolves the promise with the standard library's `result`, unless it already resolved.
  @inlinable
  public func resolve(_ result: Swift.Result<T, Error>) {
    promise.resolve(result)
  }

  /// Resolves the promise with PromiseKit's `result`, unless it already resolved.
  @inlinable
  public func resolve(_ result: Result<T>) {
    promise.resolve(result.swiftResult)
  }

  /// Resolves from a completion-handler pair: rejects with `error` if it is not `nil`, else
  /// fulfils with `value`; rejects with ``PMKError/invalidCallingConvention`` if both are `nil`.
  @inlinable
  public func resolve(_ value: T?, _ error: Error?) {
    if let error {
      reject(error)
    } else if let value {
      fulfill(value)
    } else {
      reject(PMKError.invalidCallingConvention)
    }
  }

  /// Resolves from a completion-handler pair whose value is not optional: rejects if `error` is
  /// not `nil`, else fulfils with `value`.
  @inlinable
  public func resolve(_ value: T, _ error: Error?) {
    if let error { reject(error) } else { fulfill(value) }
  }
}

extension Resolver where T == Void {
  /// Fulfils the `Void` promise.
  @inlinable
  public func fulfill() {
    fulfill(())
  }

  /// Rejects with `error` if it is not `nil`, else fulfils: the shape of a `(Error?) -> Void`
  /// completion handler.
  @inlinable
  public func resolve(_ error: Error?) {
    if let error { reject(error) } else { fulfill(()) }
  }
}
