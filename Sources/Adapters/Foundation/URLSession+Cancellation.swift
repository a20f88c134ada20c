import CancelCore
import Foundation
import Tokens

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
    completion: @escaping @Sendable (Swift.Result<DataResponse, any Error>) -> Void
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
    completion: @escaping @Sendable (Swift.Result<DownloadResponse, any Error>) -> Void
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
    completion: @escaping @Sendable (Swift.Result<DataResponse, any Error>) -> Void
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

extension URLSession {
  /// A data transfer that every facade can start: `try await …run()`, `.promise()`, `.future()`,
  /// `.start(token:completion:)`. Each start sends the request anew; the rules are those of
  /// `dataTask(with:signal:completion:)`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the transfer, not started.
  public func dataWork(for request: URLRequest) -> CancellableWork<DataResponse> {
    let session = SessionBox(session: self)
    return CancellableWork { signal, completion in
      session.session.dataTask(with: request, signal: signal, completion: completion)
    }
  }

  /// A data transfer of `url` that every facade can start. See ``dataWork(for:)``.
  public func dataWork(from url: URL) -> CancellableWork<DataResponse> {
    dataWork(for: URLRequest(url: url))
  }

  /// A data transfer of the URL written in `string` that every facade can start; if `string` is
  /// not a valid URL, every start fails at once with `URLError(.badURL)` (not a cancellation).
  /// See ``dataWork(for:)``.
  public func dataWork(from string: String) -> CancellableWork<DataResponse> {
    guard let url = URL(string: string) else {
      return CancellableWork { _, completion in completion(.failure(URLError(.badURL))) }
    }
    return dataWork(from: url)
  }

  /// A download that every facade can start; on success the caller owns the file. Same rules as
  /// `downloadTask(with:signal:completion:)`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the download, not started.
  public func downloadWork(for request: URLRequest) -> CancellableWork<DownloadResponse> {
    let session = SessionBox(session: self)
    return CancellableWork { signal, completion in
      session.session.downloadTask(with: request, signal: signal, completion: completion)
    }
  }

  /// An upload of `body` that every facade can start. Same rules as
  /// `uploadTask(with:from:signal:completion:)`.
  ///
  /// - Parameters:
  ///   - request: the request (its method, typically `POST` or `PUT`).
  ///   - body: the bytes to send.
  /// - Returns: the upload, not started.
  public func uploadWork(for request: URLRequest, from body: Data) -> CancellableWork<DataResponse> {
    let session = SessionBox(session: self)
    return CancellableWork { signal, completion in
      session.session.uploadTask(with: request, from: body, signal: signal, completion: completion)
    }
  }

  /// Starts a data task that `token` stops. The token form of
  /// `dataTask(with:signal:completion:)`; same rules. Without a `token`, the current token
  /// (`CancellationToken.current`, read when the call is made) stops it; outside any scope
  /// nothing does.
  @discardableResult
  public func dataTask(
    with request: URLRequest, token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    completion: @escaping @Sendable (Swift.Result<DataResponse, any Error>) -> Void
  ) -> URLSessionDataTask? {
    dataTask(with: request, signal: token.signal, completion: completion)
  }

  /// Starts a download task that `token` stops. The token form of
  /// `downloadTask(with:signal:completion:)`; same rules. Without a `token`, the current token
  /// stops it, as for `dataTask(with:token:completion:)`.
  @discardableResult
  public func downloadTask(
    with request: URLRequest, token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    completion: @escaping @Sendable (Swift.Result<DownloadResponse, any Error>) -> Void
  ) -> URLSessionDownloadTask? {
    downloadTask(with: request, signal: token.signal, completion: completion)
  }

  /// Starts an upload task that `token` stops. The token form of
  /// `uploadTask(with:from:signal:completion:)`; same rules. Without a `token`, the current token
  /// stops it, as for `dataTask(with:token:completion:)`.
  @discardableResult
  public func uploadTask(
    with request: URLRequest, from body: Data,
    token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    completion: @escaping @Sendable (Swift.Result<DataResponse, any Error>) -> Void
  ) -> URLSessionUploadTask? {
    uploadTask(with: request, from: body, signal: token.signal, completion: completion)
  }
}

/// Carries a session into `@Sendable` closures.
private struct SessionBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `URLSession` is thread-safe (on Apple platforms it is
  // `Sendable`; FoundationNetworking's class is not annotated but synchronizes internally).
  let session: URLSession
}

/// Ties one URLSession task to a signal and reports its end exactly once.
private final class TransferOutcome<Value: Sendable>: Sendable {
  let signal: CancelSignal
  let result = SettleCell<Swift.Result<Value, any Error>>()

  init(signal: CancelSignal, completion: @escaping @Sendable (Swift.Result<Value, any Error>) -> Void) {
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
      result.settle(Swift.Result(catching: success))
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
