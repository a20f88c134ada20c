#if NIO
  import CancelCore
  import Futures
  import NIOCore
  import Promises

  extension EventLoopPromise where Value: Sendable {
    /// The outcome of this NIO promise as work every facade can start; a cancel fails the NIO
    /// promise with the cancellation reason.
    ///
    /// Use it where you own the NIO promise and its producer watches it (a channel handler, a
    /// `scheduleTask` it made): cancelling a `run()`, `start(token:)`, `promise()` or `future()` of
    /// this work fails the NIO promise with the reason (`CancellationError()` by default), so every
    /// other observer of `futureResult` sees a cancellation (`Error.isCancellation` is `true`). A NIO
    /// promise that ends first ends the work with its result, and a later cancel changes nothing
    /// (NIO keeps a promise's first outcome).
    ///
    /// Every start observes the same NIO promise; the outcome is reported on the promise's event
    /// loop, or at once on the calling thread if the NIO future had already ended.
    public var cancellableWork: CancellableWork<Value> {
      CancellableWork { signal, completion in
        // Registered first: on an already-cancelled signal it fails the promise at once, and
        // `whenComplete` below then reports that failure.
        let registration = signal.onCancel { reason in self.fail(reason) }
        futureResult.whenComplete { result in
          registration.unregister()
          completion(result)
        }
      }
    }

    /// A cancellable promise that ends as this NIO promise does; `cancel()` on its chain fails the
    /// NIO promise with a cancellation error.
    ///
    /// The chain's rejection on cancel is immediate (`PMKError.cancelled`, as for every cancellable
    /// chain); the NIO promise is failed at the same moment.
    public func asCancellablePromise() -> CancellablePromise<Value> {
      cancellableWork.promise()
    }

    /// A future that ends as this NIO promise does; a cancel request on it fails the NIO promise
    /// with a cancellation error, and the future completes `.cancelled`.
    public func asFuture() -> Future<Value> {
      cancellableWork.future()
    }
  }

  /// The shared waiters of the NIO futures consumed through `EventLoopFuture.cancellableWork`, by
  /// the future's identity, in a few tables so that threads rarely meet on one lock.
  let nioFutureWaiters: [IdentityTable<AnyObject>] = (0..<16).map { _ in IdentityTable() }

  extension EventLoopFuture where Value: Sendable {
    /// This NIO future's outcome as work every facade can start; a cancel ends our side at once
    /// with the reason and leaves the NIO future alone.
    ///
    /// A NIO future cannot be stopped by its consumers (only its promise's owner can end it): a
    /// cancel ends the work with the cancellation reason, on the cancelling thread, and the NIO
    /// future's later outcome is ignored. A NIO future that ends first ends the work with its
    /// result, on the future's event loop. To make a cancel reach the producer, start from its
    /// `EventLoopPromise` (`EventLoopPromise.cancellableWork`).
    ///
    /// A cancel also detaches the consumer: its completion, and everything that holds (the chain of
    /// a promise, the continuation of a `run()`), is released at once, and nothing of it stays in
    /// the NIO future. (NIO cannot take a callback back out of a future: all the consumers of one
    /// NIO future share a single callback on it, which they join and leave.)
    public var cancellableWork: CancellableWork<Value> {
      CancellableWork { signal, completion in
        if let reason = signal.reason {
          completion(.failure(reason))
          return
        }
        // This consumer's outcome, settled by the NIO future or by a cancel, whichever comes first;
        // it then leaves both, and only then reports.
        let outcome = SettleCell<Swift.Result<Value, any Error>>()
        let registration = signal.onCancel { reason in outcome.settle(.failure(reason)) }
        let waiters = self.sharedWaiters
        let key = waiters.observe { outcome.settle($0) }  // `nil`: the future had ended, it ran now
        outcome.observe { _ in
          registration.unregister()
          if let key { _ = waiters.remove(key) }
        }
        outcome.observe(completion)
      }
    }

    /// The consumers of this NIO future that `cancellableWork` started and that still wait for it
    /// (`nil` if none ever waited, or the future ended).
    package var waitingConsumerCount: Int? {
      (nioFutureWaiters[Self.shard(of: self)].existing(for: self) as? Waiters)?.waitingCount
    }

    /// The outcome of this NIO future, shared by its consumers: one settle-once cell per pending
    /// NIO future, attached to it by a single callback when the first consumer comes.
    private var sharedWaiters: Waiters {
      let table = nioFutureWaiters[Self.shard(of: self)]
      let (shared, isNew) = table.shared(for: self) { Waiters() }
      let waiters = unsafeDowncast(shared, to: Waiters.self)  // the same future, the same `Value`
      if isNew {
        let id = ObjectIdentifier(self)
        whenComplete { result in
          table.remove(id, ifShared: waiters)
          waiters.settle(result)
        }
      }
      return waiters
    }

    private typealias Waiters = SettleCell<Swift.Result<Value, any Error>>

    private static func shard(of future: EventLoopFuture) -> Int {
      Int((UInt(bitPattern: ObjectIdentifier(future)) >> 4) % UInt(nioFutureWaiters.count))
    }

    /// A promise that ends as this NIO future does (on the future's event loop).
    public func asPromise() -> Promises.Promise<Value> {
      Promises.Promise { resolver in whenComplete { resolver.resolve($0) } }
    }

    /// A cancellable promise that ends as this NIO future does; `cancel()` rejects the chain at once,
    /// releases it, and leaves the NIO future running. See `EventLoopFuture.cancellableWork`.
    public func asCancellablePromise() -> CancellablePromise<Value> {
      cancellableWork.promise()
    }

    /// A future that ends as this NIO future does; a cancel request completes it `.cancelled` at
    /// once and leaves the NIO future running. See `EventLoopFuture.cancellableWork`.
    public func asFuture() -> Future<Value> {
      cancellableWork.future()
    }
  }
#endif
