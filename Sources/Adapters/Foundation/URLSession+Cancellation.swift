import CancelCore
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A response with its body in memory.
public struct DataResponse: Sendable {
  /// The body.
  public let data: Data
  /// The response (an `HTTPURLResponse` for HTTP).
  public let response: URLResponse

  /// The HTTP status code, or `nil` for a non-HTTP response.
  public var statusCode: Int? { (response as? HTTPURLResponse)?.statusCode }
}

/// A downloaded file, moved to a location the caller owns.
public struct DownloadResponse: Sendable {
  /// Where the body now is: a file in the temporary directory that the caller must move or delete.
  public let fileURL: URL
  /// The response (an `HTTPURLResponse` for HTTP).
  public let response: URLResponse
}

extension URLSession {
  /// Starts a data task that cancellation really stops, and reports its end exactly once.
  ///
  /// This is the facade-neutral engine behind the URLSession adapters of every facade. When
  /// `signal` is cancelled while the transfer runs, the task's `cancel()` is called (the
  /// connection is closed) and `completion` receives `.failure(reason)` with the signal's reason —
  /// never the `URLError` the abort produced — so `Error.isCancellation` is `true`. A
  /// transfer that had already completed keeps its result.
  /// Failures of the transfer itself (refused connection, bad URL, timeout) keep their
  /// `URLError`, which is not a cancellation.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - signal: cancelling it cancels the task.
  ///   - completion: called once, on the session's delegate queue.
  /// - Returns: the started task, or `nil` if `signal` was already cancelled (then `completion`
  ///   has already run).
  @discardableResult
  public func dataTask(
    with request: URLRequest, signal: CancelSignal,
    completion: @escaping @Sendable (Result<DataResponse, any Error>) -> Void
  ) -> URLSessionDataTask? {
    let outcome = TransferOutcome<DataResponse>(signal: signal, completion: completion)
    guard !outcome.finishedBecauseAlreadyCancelled() else { return nil }
    let task = dataTask(with: request) { data, response, error in
      outcome.finish(error: error) {
        guard let response else { throw URLError(.badServerResponse) }
        return DataResponse(data: data ?? Data(), response: response)
      }
    }
    outcome.start(task)
    return task
  }

  /// Starts a download task that cancellation really stops. Same rules as
  /// `dataTask(with:signal:completion:)`; on success the file is moved out
  /// of URLSession's reach (which deletes its own copy after the callback) into the temporary
  /// directory, and the caller owns it.
  @discardableResult
  public func downloadTask(
    with request: URLRequest, signal: CancelSignal,
    completion: @escaping @Sendable (Result<DownloadResponse, any Error>) -> Void
  ) -> URLSessionDownloadTask? {
    let outcome = TransferOutcome<DownloadResponse>(signal: signal, completion: completion)
    guard !outcome.finishedBecauseAlreadyCancelled() else { return nil }
    let task = downloadTask(with: request) { location, response, error in
      outcome.finish(error: error) {
        guard let location, let response else { throw URLError(.badServerResponse) }
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)")
        try FileManager.default.moveItem(at: location, to: kept)
        return DownloadResponse(fileURL: kept, response: response)
      }
    }
    outcome.start(task)
    return task
  }

  /// Starts an upload task that cancellation really stops. Same rules as
  /// `dataTask(with:signal:completion:)`.
  @discardableResult
  public func uploadTask(
    with request: URLRequest, from body: Data, signal: CancelSignal,
    completion: @escaping @Sendable (Result<DataResponse, any Error>) -> Void
  ) -> URLSessionUploadTask? {
    let outcome = TransferOutcome<DataResponse>(signal: signal, completion: completion)
    guard !outcome.finishedBecauseAlreadyCancelled() else { return nil }
    let task = uploadTask(with: request, from: body) { data, response, error in
      outcome.finish(error: error) {
        guard let response else { throw URLError(.badServerResponse) }
        return DataResponse(data: data ?? Data(), response: response)
      }
    }
    outcome.start(task)
    return task
  }
}

/// Ties one URLSession task to a signal and reports its end exactly once.
private final class TransferOutcome<Value: Sendable>: Sendable {
  let signal: CancelSignal
  let result = SettleCell<Result<Value, any Error>>()

  init(signal: CancelSignal, completion: @escaping @Sendable (Result<Value, any Error>) -> Void) {
    self.signal = signal
    result.observe(completion)
  }

  func finishedBecauseAlreadyCancelled() -> Bool {
    guard let reason = signal.reason else { return false }
    result.settle(.failure(reason))
    return true
  }

  func start(_ task: URLSessionTask) {
    let stopper = TaskStopper(task: task)
    let registration = signal.onCancel { stopper.cancel() }
    result.observe { _ in registration.unregister() }
    task.resume()
  }

  /// Reports the transfer's end. A transfer that failed after the signal was cancelled reports the
  /// signal's reason (the abort's own `URLError` would hide that it was a cancellation); a transfer
  /// that completed keeps its data even if the signal was cancelled a moment later.
  func finish(error: (any Error)?, success: () throws -> Value) {
    if let error {
      result.settle(.failure(signal.reason ?? error))
    } else {
      result.settle(Result(catching: success))
    }
  }
}

/// Cancels a URLSession task from any thread.
private struct TaskStopper: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `URLSessionTask.cancel()` may be called from any thread; it
  // is the only member used.
  let task: URLSessionTask

  func cancel() { task.cancel() }
}
