/// CancellablePromiseKit's `when(_:while:isEnsured:)`: like ``when(_:while:)``, and with
/// `isEnsured: true` the result is also rejected with ``PMKError/cancelled`` when `cancelPromise`
/// was rejected by the time the fulfilment is evaluated (on ``conf`` `.Q.map`).
///
/// - Parameters:
///   - promise: the work.
///   - cancelPromise: rejects when the work should be abandoned.
///   - isEnsured: whether a `cancelPromise` rejected by the time `promise`'s value is handed on
///     still rejects the result.
/// - Returns: a promise resolved like `promise` or rejected by `cancelPromise`.
public func when<T: Sendable>(_ promise: Promise<T>, while cancelPromise: Promise<Void>, isEnsured: Bool) -> Promise<T>
{
  let waiting = when(promise, while: cancelPromise)
  guard isEnsured else { return waiting }
  return waiting.map { value in
    if cancelPromise.isRejected { throw PMKError.cancelled }
    return value
  }
}

/// CancellablePromiseKit's `when(_:while:isEnsured:autoCancel:)` for a cancellable promise: waits
/// for it unless `cancelPromise` rejects first; with `autoCancel: true` the cancellable promise
/// is cancelled once the result resolved, either way.
///
/// - Parameters:
///   - cancellablePromise: the work.
///   - cancelPromise: rejects when the work should be abandoned.
///   - isEnsured: see ``when(_:while:isEnsured:)``.
///   - autoCancel: whether to cancel `cancellablePromise` once the result resolved.
/// - Returns: a promise resolved like `cancellablePromise` or rejected by `cancelPromise`.
public func when<T: Sendable>(
  _ cancellablePromise: CancellablePromise<T>, while cancelPromise: Promise<Void>, isEnsured: Bool = false,
  autoCancel: Bool = false
) -> Promise<T> {
  let result = when(cancellablePromise.promise, while: cancelPromise, isEnsured: isEnsured)
  guard autoCancel else { return result }
  return result.ensure(on: nil) { cancellablePromise.cancel() }
}
