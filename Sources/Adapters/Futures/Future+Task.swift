import CancelCore
import Futures

extension Future {
  /// Runs `operation` in a new task; the future completes with its outcome, and a cancel request
  /// that reaches the future cancels the task.
  ///
  /// The request cancels the task and lets it answer: the future completes `.cancelled` when the
  /// operation ends by throwing a cancellation (`CancellationError` from `Task.checkCancellation()`
  /// or `Task.sleep`, or any error that `Error.isCancellation` classifies as one), with its value
  /// if it finishes anyway, and `.fail(error)` for any other error.
  ///
  /// - Parameters:
  ///   - priority: the task's priority; `nil` inherits the current one.
  ///   - operation: the work.
  public convenience init(priority: TaskPriority? = nil, operation: @escaping @Sendable () async throws -> T) {
    self.init(pendingForProducer: ())
    let producer = Futures.Promise(producing: self)
    let task = Task(priority: priority) {
      do {
        producer.completeWithSuccess(try await operation())
      } catch  where error.isCancellation {
        producer.completeWithCancel(origin: .unknown)
      } catch {
        producer.completeWithFail(error)
      }
    }
    producer.onRequestCancel(.immediate) { _ in
      task.cancel()
      return .continue
    }
  }
}
