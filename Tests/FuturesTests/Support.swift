import Dispatch
import Foundation
import Futures
import TestSupport

/// An error for failures.
struct TestError: Error, Equatable {
  var code = 0
}

/// A short description of a result, for comparisons.
func describe<T>(_ result: FutureResult<T>?) -> String {
  switch result {
  case nil: return "pending"
  case .success(let value)?: return "success(\(value))"
  case .fail(let error)?: return "fail(\(error))"
  case .cancelled?: return "cancelled"
  }
}

extension Future {
  /// Waits for the result without blocking a thread.
  func completion() async -> FutureResult<T> {
    await withCheckedContinuation { continuation in
      onComplete(.immediate) { (result: FutureResult<T>) in continuation.resume(returning: result) }
    }
  }
}

/// A promise that records the cancel requests it gets and answers with `response`.
final class RecordingProducer<T: Sendable>: Sendable {
  let promise = Futures.Promise<T>()
  let requests = Recorder<CancellationOptions>()

  init(answer response: CancelRequestResponse<T> = .continue) {
    promise.onRequestCancel(.immediate) { [requests] options in
      requests.record(options)
      return response
    }
  }

  var future: Future<T> { promise.future }
}
