import CancelCore
import Futures

extension CancellableWork {
  /// Starts the work and returns a future of its outcome; a cancel request on the future stops
  /// the work.
  ///
  /// The request is answered by stopping the work and letting it report: work stopped by the
  /// request completes the future `.cancelled`; work that had already finished keeps its result.
  /// Any other outcome that `Error.isCancellation` classifies as a cancellation (an `Operation`
  /// cancelled by someone else, say) also completes the future `.cancelled`; failures complete it
  /// with `.fail(error)`.
  ///
  /// - Returns: the future, already running.
  public func future() -> Future<Value> {
    let promise = Futures.Promise<Value>()
    let stop = CancelSource()
    promise.onRequestCancel(.immediate) { _ in
      stop.cancel()
      return .continue
    }
    start(signal: stop.signal) { result in
      stop.close()
      switch result {
      case .success(let value): promise.completeWithSuccess(value)
      case .failure(let error) where error.isCancellation: promise.completeWithCancel(origin: .unknown)
      case .failure(let error): promise.completeWithFail(error)
      }
    }
    return promise.future
  }
}
