#if NIO
  import CancelCore
  import Futures
  import NIOCore
  import Promises

  extension Thenable {
    /// A NIO future on `eventLoop` that ends as this promise does: fulfilled with its value, failed
    /// with its error.
    ///
    /// A cancellable chain that is cancelled rejects with its cancellation error
    /// (`PMKError.cancelled` by default), so the NIO future fails with it and
    /// `Error.isCancellation` is `true` there.
    ///
    /// - Parameter eventLoop: the event loop the NIO future belongs to (its callbacks run there).
    /// - Returns: the NIO future.
    public func eventLoopFuture(on eventLoop: any EventLoop) -> EventLoopFuture<T> {
      let promise = eventLoop.makePromise(of: T.self)
      pipe { promise.completeWith($0) }
      return promise.futureResult
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
    /// fails it with the error, and `.cancelled` fails it with `CancellationError()`.
    ///
    /// - Parameter eventLoop: the event loop the NIO future belongs to.
    /// - Returns: the NIO future.
    public func eventLoopFuture(on eventLoop: any EventLoop) -> EventLoopFuture<T> {
      let promise = eventLoop.makePromise(of: T.self)
      onComplete(.immediate) { (result: FutureResult<T>) in
        switch result {
        case .success(let value): promise.succeed(value)
        case .fail(let error): promise.fail(error)
        case .cancelled: promise.fail(CancellationError())
        }
      }
      return promise.futureResult
    }
  }
#endif
