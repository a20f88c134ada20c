#if OpenCombine
  import CancelCore
  import Futures
  import OpenCombine
  import Promises

  /// The error of a publisher that finished without publishing a value, where its first value was
  /// awaited. A failure, not a cancellation.
  public struct PublisherFinishedWithoutValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error.
    public init() {}

    /// `"the publisher finished without a value"`.
    public var description: String { "the publisher finished without a value" }
  }

  extension Publisher where Output: Sendable {
    /// The first value of this publisher as work every facade can start; a cancel cancels the
    /// subscription.
    ///
    /// Each start subscribes anew (a `Sink`) and ends exactly once: with the first value (the
    /// subscription is then cancelled), with the publisher's failure, with
    /// ``PublisherFinishedWithoutValueError`` if it finishes first, or — when cancelled first —
    /// with the cancellation reason, after cancelling the subscription. A signal already cancelled
    /// subscribes to nothing. Each start subscribes on the thread that starts it (the awaiting task
    /// for `run()`). The outcome is reported on the thread the publisher delivers on (the
    /// subscribing thread for a synchronous publisher), or on the cancelling thread.
    public var firstValueWork: CancellableWork<Output> {
      let publisher = SubscribablePublisher<Output, Failure> { self.subscribe($0) }
      return CancellableWork { signal, completion in
        if let reason = signal.reason {
          completion(.failure(reason))
          return
        }
        let outcome = SettleCell<Swift.Result<Output, any Error>>()
        _ = outcome.observe(completion)
        let cancelled = signal.onCancel { reason in outcome.settle(.failure(reason)) }
        // Ends the subscription: cancelled by the first value or by the signal, closed by a
        // completion from the publisher.
        let stop = CancelSource(linkedTo: signal)
        let sink = SendableSink(
          Subscribers.Sink<Output, Failure>(
            receiveCompletion: { end in
              switch end {
              case .finished: outcome.settle(.failure(PublisherFinishedWithoutValueError()))
              case .failure(let error): outcome.settle(.failure(error))
              }
              cancelled.unregister()
              stop.close()
            },
            receiveValue: { value in
              outcome.settle(.success(value))
              cancelled.unregister()
              stop.cancel()
            }))
        stop.signal.onCancel { sink.sink.cancel() }
        publisher.subscribe(sink.sink)
        // A cancel that came during `subscribe`, before the sink had its subscription, found
        // nothing to cancel: cancel again now that it has one.
        if stop.signal.isCancelled { sink.sink.cancel() }
      }
    }

    /// The first value of this publisher as a cancellable promise; `cancel()` on its chain cancels
    /// the subscription. See `firstValueWork`.
    public func firstValuePromise() -> CancellablePromise<Output> {
      firstValueWork.promise()
    }

    /// The first value of this publisher as a future; a cancel request cancels the subscription and
    /// completes the future `.cancelled`. See `firstValueWork`.
    public func firstValueFuture() -> Futures.Future<Output> {
      firstValueWork.future()
    }
  }

  /// A publisher kept in a work description, to be subscribed when the work starts.
  //
  // Safety of `@unchecked Sendable`: the publisher is only subscribed to, once per start, on the
  // thread that starts the work (documented on `firstValueWork`); OpenCombine's publishers accept
  // subscriptions from any thread.
  struct SubscribablePublisher<Output, Failure: Error>: @unchecked Sendable {
    let subscribe: (Subscribers.Sink<Output, Failure>) -> Void
  }

  /// A sink handed to the thread that cancels.
  //
  // Safety of `@unchecked Sendable`: OpenCombine's `Sink` guards its state with a lock of its own,
  // and `cancel()` is the only member called from other threads.
  struct SendableSink<Input, Failure: Error>: @unchecked Sendable {
    let sink: Subscribers.Sink<Input, Failure>

    init(_ sink: Subscribers.Sink<Input, Failure>) {
      self.sink = sink
    }
  }
#endif
