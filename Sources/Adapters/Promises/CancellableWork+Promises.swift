import CancelCore
import Promises

extension CancellableWork {
  /// Starts the work and returns a cancellable promise of its outcome; cancelling the promise (or
  /// its chain) stops the work.
  ///
  /// As every cancellable chain does, the cancel rejects the promise at once (with
  /// `PMKError.cancelled`, or the error given to `cancel(error:)`, or the reason of a token the
  /// chain is registered on); the work is stopped at the same moment, its signal cancelled with
  /// that same error, and its late report is ignored. A failure of the work rejects the promise
  /// with the work's error. Once the work has finished, a cancel no longer reaches it.
  ///
  /// - Returns: the promise, already running.
  public func promise() -> CancellablePromise<Value> {
    let (promise, resolver) = CancellablePromise<Value>.pending()
    let stop = CancelSource()
    // Registered before the work starts, so a cancel made by the work's first report (or by
    // another thread meanwhile) stops it with the chain's reason.
    promise.appendCancellableTask(nil, reject: { reason in stop.cancel(dueTo: reason) })
    start(signal: stop.signal) { result in
      stop.close()
      resolver.resolve(result)
    }
    return promise
  }
}
