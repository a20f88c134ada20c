/// The producer side of a ``Future``: it completes the future and answers cancel requests.
///
/// ```swift
/// let promise = Futures.Promise<Data>()
/// promise.onRequestCancel(.immediate) { _ in
///   task.cancel()
///   return .continue          // the download completes with completeWithCancel() later
/// }
/// return promise.future
/// ```
///
/// The first completion wins; later ones change nothing (``tryComplete(_:fileID:line:function:)`` reports which).
/// Request handlers and a `.complete` answer are kept by the future itself, so they work even
/// after this object is released.
///
/// `Promises.Promise` (the PromiseKit-style module) has the same name; in a file that imports
/// both, write `Futures.Promise`.
public final class Promise<T: Sendable>: Sendable {
  /// The future this promise completes.
  public let future: Future<T>

  // Inlinable so that the future is made with `Future<T>`'s metadata from the client's cache:
  // unspecialized, it would be looked up at run time on every promise.
  /// A promise with a pending future.
  @inlinable
  public init() {
    future = Future(pending: ())
  }

  /// A promise with a pending future labelled `label`, which records name it by (see
  /// ``Future/labelled(_:)``).
  ///
  /// - Parameter label: the label.
  public convenience init(label: String) {
    self.init()
    future.setRecordLabel(label)
  }

  /// The producer of `future`, a pending future made with ``Future/init(pendingForProducer:)``.
  /// For the package's other modules, whose `Future` convenience initializers cannot return a
  /// promise's future.
  package init(producing future: Future<T>) {
    self.future = future
  }

  /// A producer that goes away before completing its future leaves it pending. If nothing else
  /// can complete it any more (see `_FutureCore.producerReleased()`), the stages waiting on it are
  /// let go of, so that a dropped pending chain is freed.
  deinit {
    future.producerReleased()
  }

  // Inlinable so that the box of `value` is made by code specialized for `T`: unspecialized code
  // looks up `ValueBox<T>`'s runtime metadata on every call.
  /// Completes the future with `value`, unless it already completed.
  @inlinable
  public func completeWithSuccess(_ value: T) {
    _ = future.settle(.success(value), detachUpstream: true, unlessClaimed: true)
  }

  /// Fails the future with `error`, unless it already completed.
  public func completeWithFail(_ error: any Error) {
    _ = future.settle(.fail(error), detachUpstream: true, unlessClaimed: true)
  }

  /// Completes the future as cancelled, unless it already completed.
  ///
  /// The future's ``Future/cancellationRecord`` names the request this answers, if one reached
  /// the future, and otherwise this call's site.
  ///
  /// - Parameters:
  ///   - fileID: the caller's file, for the record; leave the default.
  ///   - line: the caller's line, for the record; leave the default.
  ///   - function: the caller's function, for the record; leave the default.
  public func completeWithCancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function)
  {
    completeWithCancel(origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Completes the future as cancelled, unless it already completed, recording `origin` as the
  /// call that did (`.unknown` for the package's own producers, whose call site is not the
  /// user's).
  package func completeWithCancel(origin: CancelOrigin, trigger: CancellationRecord.Trigger = .call) {
    _ = future.applyProducerCancel(.producer, origin: origin, trigger: trigger)
  }

  /// Completes the future as cancelled, unless it already completed, because of a cancel of
  /// another facade whose record `linkedRecord` reads (a cancellable chain a bridge follows): the
  /// future's record starts with that one.
  package func completeWithCancel(linkedTo linkedRecord: @escaping @Sendable () -> CancellationRecord?) {
    _ = future.applyProducerCancel(.producer, origin: .unknown, linkedRecord: linkedRecord)
  }

  /// Completes the future as cancelled, unless it already completed. The same as
  /// ``completeWithCancel(fileID:line:function:)``.
  ///
  /// - Parameters:
  ///   - fileID: the caller's file, for the record; leave the default.
  ///   - line: the caller's line, for the record; leave the default.
  ///   - function: the caller's function, for the record; leave the default.
  public func completeWithCancellation(
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    completeWithCancel(origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Completes the future with `completion`, unless it already completed.
  ///
  /// - Parameters:
  ///   - completion: the completion.
  ///   - fileID: the caller's file, for the record of a cancelled completion; leave the default.
  ///   - line: the caller's line, for that record; leave the default.
  ///   - function: the caller's function, for that record; leave the default.
  @inlinable
  public func complete(
    _ completion: Completion<T>, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    _ = tryComplete(completion, fileID: fileID, line: line, function: function)
  }

  /// Completes the future with `completion` if nothing completed it first.
  ///
  /// ``Completion/completeUsing(_:)`` counts as a completion: it wins if the future was still
  /// pending and not already handed over, and from then on other producer completions lose.
  /// Cancel requests can still end the future (a forced request, or a handler answering
  /// `.complete`).
  ///
  /// - Parameters:
  ///   - completion: the completion.
  ///   - fileID: the caller's file, for the record of a cancelled completion; leave the default.
  ///   - line: the caller's line, for that record; leave the default.
  ///   - function: the caller's function, for that record; leave the default.
  /// - Returns: whether this call completed (or handed over) the future.
  @inlinable @discardableResult
  public func tryComplete(
    _ completion: Completion<T>, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) -> Bool {
    tryComplete(
      completion, cancelledBy: .producer, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// ``tryComplete(_:fileID:line:function:)`` for the package's own producers: a cancelled
  /// `completion` is recorded as ended by `how` (`.producer`, or `.block` for a block's
  /// completion), at `origin` (`.unknown` when the call site is the package's, not the user's).
  @inlinable @discardableResult
  package func tryComplete(
    _ completion: Completion<T>, cancelledBy how: CancellationRecord.Hop.Ending, origin: CancelOrigin
  ) -> Bool {
    let erased = completion.erased
    if case .result(.cancelled) = erased { return future.applyProducerCancel(how, origin: origin) }
    return future.apply(erased, claim: true, detachUpstream: true)
  }

  /// Completes the future with whatever `other` ends with; cancel requests on the future are
  /// forwarded to `other`. The same as `complete(.completeUsing(other))`.
  public func completeUsingFuture(_ other: Future<T>) {
    complete(.completeUsing(other))
  }

  /// Registers a handler for cancel requests on the future.
  ///
  /// - The first request reaching the future runs every handler, in registration order, each on
  ///   its executor; each handler runs at most once, so later requests run none again. A request
  ///   made before a handler was registered is kept and delivered to it when it registers.
  /// - The handler may request other futures (or its own): such a request is carried out when
  ///   the handler returns, on the same thread, before the outermost request returns.
  /// - Answer ``CancelRequestResponse/continue`` to keep going (then complete later, for example
  ///   with ``completeWithCancel(fileID:line:function:)``), or ``CancelRequestResponse/complete(_:)`` to complete now;
  ///   the first completion wins and is applied even if this promise was released.
  /// - Requests after the future completed change nothing, and handlers are released once it
  ///   completes.
  ///
  /// Without an executor, or with `.main`, `.primary` or `.current`,
  /// ``onRequestCancel(_:handler:)-(BlockExecutor,_)`` is chosen instead: its handler takes on the
  /// caller's isolation (see ``BlockExecutor``).
  ///
  /// - Parameters:
  ///   - executor: where `handler` runs; ``Executor/primary`` by default.
  ///   - handler: the producer's answer, given the request's options.
  @inlinable @_disfavoredOverload
  public func onRequestCancel(
    _ executor: Executor = .primary,
    handler: @escaping @Sendable (CancellationOptions) -> CancelRequestResponse<T>
  ) {
    future.addRequestHandler(
      RequestHandler(executor: executor.resolvedForRegistration) { options, _ in
        if case .complete(let completion) = handler(options) { return completion.erased }
        return nil
      })
  }

  /// Completes the future as cancelled as soon as a cancel request reaches it.
  public func automaticallyCancelOnRequestCancel() {
    future.addRequestHandler(RequestHandler(executor: .immediate) { _, _ in .result(.cancelled) })
  }

  /// Registers an `.immediate` request handler that is also given the call site of the request
  /// (`.unknown` if none was captured): for the package's bridges, which cancel other work on a
  /// request and record that call site as their cancel's.
  @inlinable
  package func onRequestCancel(
    passingOrigin handler: @escaping @Sendable (CancellationOptions, CancelOrigin) -> CancelRequestResponse<T>
  ) {
    future.addRequestHandler(
      RequestHandler(executor: .immediate) { options, origin in
        if case .complete(let completion) = handler(options, origin) { return completion.erased }
        return nil
      })
  }

  /// Whether a cancel request has reached the future. Producers that poll check it between
  /// steps of their work.
  public var isCancellationRequested: Bool { future.isCancellationRequested }
}
