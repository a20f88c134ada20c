/// How a ``Future`` ended: exactly one of these, once.
///
/// Cancellation is a state of its own, not an error: a future that was cancelled ends
/// ``cancelled``, never ``fail(_:)`` with a cancellation error.
public enum FutureResult<T: Sendable>: Sendable {
  /// The future produced a value.
  case success(T)
  /// The future failed with an error.
  case fail(any Error)
  /// The future was cancelled (its producer agreed to a cancel request, or the request forced it).
  case cancelled

  /// The value, if the result is a success.
  public var value: T? {
    if case .success(let value) = self { return value }
    return nil
  }

  /// The error, if the result is a failure.
  public var error: (any Error)? {
    if case .fail(let error) = self { return error }
    return nil
  }

  /// Whether the result is a success.
  public var isSuccess: Bool {
    if case .success = self { return true }
    return false
  }

  /// Whether the result is ``cancelled``.
  public var isCancelled: Bool {
    if case .cancelled = self { return true }
    return false
  }
}

/// How a producer or a block completes a future: with a result, or by handing the job to another
/// future.
public enum Completion<T: Sendable>: Sendable {
  /// Complete with a value.
  case success(T)
  /// Complete with an error.
  case fail(any Error)
  /// Complete as cancelled.
  case cancelled
  /// Complete with whatever `future` ends with. Cancel requests made meanwhile are forwarded to it.
  case completeUsing(Future<T>)

  /// The completion that ends a future with `result`.
  public init(_ result: FutureResult<T>) {
    switch result {
    case .success(let value): self = .success(value)
    case .fail(let error): self = .fail(error)
    case .cancelled: self = .cancelled
    }
  }
}

/// A producer's answer to a cancel request (see ``Promise/onRequestCancel(_:handler:)-(Executor,_)``).
public enum CancelRequestResponse<T: Sendable>: Sendable {
  /// Keep going: the producer will complete the future later (for example with
  /// ``Promise/completeWithCancel(fileID:line:function:)`` once its work has stopped).
  case `continue`
  /// Complete the future now with this completion. It is applied even if the ``Promise`` object
  /// has been released meanwhile; if the future already completed, it changes nothing.
  case complete(Completion<T>)
}
