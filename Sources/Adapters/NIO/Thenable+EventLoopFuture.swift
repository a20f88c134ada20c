#if NIO
  import CancelCore
  import Futures
  import NIOCore
  import Promises

  /// Completes a NIO promise once, from the one callback that holds it; if that callback is freed
  /// without having run (the promise or future it waited on was dropped while pending, so nothing
  /// can complete it any more), fails the NIO promise with `CancellationError()`: NIO requires
  /// every promise to be completed (a debug build stops the process otherwise).
  //
  // Safety of `@unchecked Sendable`: `completed` is written only by `complete(_:)`, which the one
  // callback holding this object calls at most once, and read only by `deinit`, which runs after
  // that callback released its reference (reference counting orders the two).
  final class NIOPromiseCompleter<T: Sendable>: @unchecked Sendable {
    private let promise: EventLoopPromise<T>
    private var completed = false

    init(_ promise: EventLoopPromise<T>) {
      self.promise = promise
    }

    /// The NIO future this completes.
    var futureResult: EventLoopFuture<T> { promise.futureResult }

    /// Completes the NIO promise with `result`.
    func complete(_ result: Swift.Result<T, any Error>) {
      completed = true
      promise.completeWith(result)
    }

    deinit {
      if !completed { promise.fail(CancellationError()) }
    }
  }

  extension Thenable {
    /// A NIO future on `eventLoop` that ends as this promise does: fulfilled with its value, failed
    /// with its error. A promise dropped while pending (nobody can settle it any more) fails it
    /// with `CancellationError()` once it is freed.
    ///
    /// A cancellable chain that is cancelled rejects with its cancellation error
    /// (`PMKError.cancelled` by default), so the NIO future fails with it and
    /// `Error.isCancellation` is `true` there.
    ///
    /// - Parameter eventLoop: the event loop the NIO future belongs to (its callbacks run there).
    /// - Returns: the NIO future.
    public func eventLoopFuture(on eventLoop: any EventLoop) -> EventLoopFuture<T> {
      let completer = NIOPromiseCompleter(eventLoop.makePromise(of: T.self))
      pipe { completer.complete($0) }
      return completer.futureResult
    }
  }

  extension CancellablePromise {
    /// A NIO future on `eventLoop` that ends as this chain member does; a cancel of the chain fails
    /// the NIO future with the cancellation error (`PMKError.cancelled` by default).
    ///
    /// - Parameter eventLoop: the event loop the NIO future belongs to.
    /// - Returns: the NIO future.
    public func eventLoopFuture(on eventLoop: any EventLoop) -> EventLoopFuture<T> {
      promise.eventLoopFuture(on: eventLoop)
    }
  }

  extension Future {
    /// A NIO future on `eventLoop` that ends as this future does: `.success` succeeds it, `.fail`
    /// fails it with the error, and `.cancelled` fails it with `CancellationError()`, as does a
    /// future dropped while pending once it is freed.
    ///
    /// - Parameter eventLoop: the event loop the NIO future belongs to.
    /// - Returns: the NIO future.
    public func eventLoopFuture(on eventLoop: any EventLoop) -> EventLoopFuture<T> {
      let completer = NIOPromiseCompleter(eventLoop.makePromise(of: T.self))
      onComplete(.immediate) { (result: FutureResult<T>) in
        switch result {
        case .success(let value): completer.complete(.success(value))
        case .fail(let error): completer.complete(.failure(error))
        case .cancelled: completer.complete(.failure(CancellationError()))
        }
      }
      return completer.futureResult
    }
  }
#endif
