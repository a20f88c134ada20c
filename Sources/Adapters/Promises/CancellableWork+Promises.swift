import CancelCore
import Promises

extension CancellableWork {
  /// Starts the work and returns a cancellable promise of its outcome; cancelling the promise (or
  /// its chain) stops the work.
  ///
  /// As every cancellable chain does, the cancel rejects the promise at once (with
  /// `PMKError.cancelled`, or the error given to `cancel(error:)`); the work is stopped at the same
  /// moment and its late report is ignored. A failure of the work rejects the promise with the
  /// work's error.
  ///
  /// - Returns: the promise, already running.
  public func promise() -> CancellablePromise<Value> {
    CancellablePromise { (resolver: Resolver<Value>) in
      let stop = CancelSource()
      start(signal: stop.signal) { result in
        stop.close()
        resolver.resolve(result)
      }
      return { stop.cancel() }
    }
  }
}
