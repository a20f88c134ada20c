import CancelCore
import Dispatch

/// A member of a cancellable chain: PromiseKit 7's `CancellableThenable`. ``CancellablePromise``
/// conforms.
///
/// Every chaining method returns a new member of the **same** chain (same ``CancelContext``), so
/// the chain stays cancellable end to end. (`ensure` and `ensureThen` return a member of a context
/// of their own, linked both ways to this one, that holds a cancel back until the clean-up
/// finished: see `ensure(on:flags:_:)`.) Bodies run on their `on:` queue (``conf`` `.Q` by
/// default, `nil` for synchronously) and never **start** after the chain was cancelled: a cancel
/// has already rejected their stage.
public protocol CancellableThenable<T>: AnyObject, Sendable {
  /// The type of the value.
  associatedtype T: Sendable
  /// The member's promise; a cancel rejects it while pending.
  var promise: Promise<T> { get }
  /// The chain's shared cancellation state.
  var cancelContext: CancelContext { get }
}

extension CancellableThenable {
  // MARK: Cancelling

  /// PromiseKit 7's name for ``promise``.
  public var thenable: Promise<T> { promise }

  /// Cancels the whole chain with ``PMKError/cancelled``. See
  /// ``cancel(error:fileID:line:function:)``.
  ///
  /// - Parameters:
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  @inlinable
  public func cancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
    cancelContext.cancel(
      error: CancelContext.defaultError, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Cancels the whole chain with ``PMKError/cancelled``, like ``cancel(fileID:line:function:)``,
  /// but its record has no call site: what a call through the `Cancellable` protocol runs.
  @inlinable
  @_disfavoredOverload
  public func cancel() {
    cancelContext.cancel(error: CancelContext.defaultError, origin: .unknown)
  }

  /// Cancels the whole chain with `error`: every pending member is rejected with it, synchronously;
  /// every registered task is cancelled once. A second cancel changes nothing.
  ///
  /// `cancel()` cancels with ``PMKError/cancelled`` (PromiseKit 7's default for this parameter).
  ///
  /// - Parameters:
  ///   - error: the rejection error.
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  @inlinable
  public func cancel(
    error: Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    cancelContext.cancel(error: error, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// `cancel(error:)` as a function value (`let stop = chain.cancel(error:)`): a reference cannot
  /// pass the call site, so the record has none. A call, `cancel(error: e)`, records its site.
  ///
  /// - Parameter error: the rejection error.
  @inlinable
  @_disfavoredOverload
  public func cancel(error: Error) {
    cancelContext.cancel(error: error, origin: .unknown)
  }

  /// `cancel(with:)` as a function value; its record has no call site (see ``cancel(error:)``).
  ///
  /// - Parameter error: the rejection error.
  @inlinable
  @_disfavoredOverload
  public func cancel(with error: Error) {
    cancelContext.cancel(error: error, origin: .unknown)
  }

  /// PromiseKit 7's other spelling of ``cancel(error:fileID:line:function:)``.
  ///
  /// - Parameters:
  ///   - error: the rejection error.
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  @inlinable
  public func cancel(
    with error: Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    cancelContext.cancel(error: error, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// `CancellableWithReason`'s spelling of ``cancel(error:fileID:line:function:)``: what a token's
  /// `register(cancelable:)` calls, so the chain rejects with the token's reason (a
  /// `TimeoutError`, for instance, which `isCancelled` recognises and the default catch policy
  /// skips). Its record has no call site (a protocol requirement cannot capture its caller); it
  /// shows the token's path, through a link.
  ///
  /// - Parameter reason: the rejection error.
  @inlinable
  public func cancel(dueTo reason: any Error) {
    cancelContext.cancel(dueTo: reason)
  }

  /// Why, when, where from and along which chains and sources the chain was cancelled (see
  /// ``CancelContext/cancellationRecord``); `nil` while no cancel was attempted.
  public var cancellationRecord: CancellationRecord? { cancelContext.cancellationRecord }

  /// Whether a cancel rejected at least one member of the chain (`false` if the chain finished
  /// first, even if `cancel()` was called afterwards).
  public var isCancelled: Bool { cancelContext.isCancelled }

  /// Whether `cancel` was called on the chain.
  public var cancelAttempted: Bool { cancelContext.cancelAttempted }

  /// The first error the chain was cancelled with, or `nil`.
  public var cancelledError: Error? { cancelContext.cancelledError }

  /// Registers `task` (and `reject`) with the chain, for as long as this member is pending: a
  /// cancel calls `task.cancel()` once and then `reject` with the cancel error; at once if the
  /// chain's cancel already started.
  ///
  /// The task belongs to this member's work: once this member settled (before any cancel), the
  /// registration leaves the chain and a later cancel calls neither.
  ///
  /// - Parameters:
  ///   - task: the work to stop.
  ///   - reject: typically a resolver's `reject`.
  public func appendCancellableTask(_ task: (any CancellableTask)?, reject: (@Sendable (Error) -> Void)?) {
    cancelContext.append(task: task, reject: reject, whilePending: promise)
  }

  /// Links `other`'s chain to this one: cancelling this chain cancels `other`'s too (with the same
  /// error).
  ///
  /// - Parameter other: a member of the chain to link.
  public func appendCancelContext<Other: CancellableThenable>(from other: Other) {
    cancelContext.append(other.cancelContext)
  }

  // MARK: State

  /// The result once resolved; `nil` while pending.
  public var result: Result<T>? { promise.result }

  /// The value if fulfilled.
  public var value: T? { promise.value }

  /// The error if rejected.
  public var error: Error? { promise.error }

  /// Whether it has not resolved yet.
  public var isPending: Bool { promise.isPending }

  /// Whether it has resolved.
  public var isResolved: Bool { promise.isResolved }

  /// Whether it fulfilled.
  public var isFulfilled: Bool { promise.isFulfilled }

  /// Whether it was rejected (a cancel rejects).
  public var isRejected: Bool { promise.isRejected }

  // MARK: Chaining

  /// Runs `body` with the value and resolves the new member like the cancellable chain `body`
  /// returns. That chain is linked: cancelling this chain cancels it too.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: returns the next step; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  @_disfavoredOverload
  public func then<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> V
  ) -> CancellablePromise<V.T> {
    cancellableThen(on: on, flags: flags, body)
  }

  /// Runs `body` with the value and resolves the new member like the cancellable chain `body`
  /// returns (PromiseKit 7's explicit name). See `then(on:flags:_:)`.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: returns the next step; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  public func cancellableThen<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> V
  ) -> CancellablePromise<V.T> {
    if on == nil, let parent = promise.resultForCallbackNow {
      return cancelContext.thenSettled(parent, body, following: FollowingCancellable<V>.self)
    }
    return CancellableThenStage<T, FollowingCancellable<V>>(body)
      .attach(to: promise, in: cancelContext, on: on, flags: DispatchFlags(flags))
  }

  /// Runs `body` with the value and resolves the new member like the (not cancellable) thenable
  /// it returns. Cancelling the chain rejects the new member; the returned thenable keeps running.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: returns the next step; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  @_disfavoredOverload
  public func then<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> V
  ) -> CancellablePromise<V.T> {
    if on == nil, let parent = promise.resultForCallbackNow {
      return cancelContext.thenSettled(parent, body, following: FollowingThenable<V>.self)
    }
    return CancellableThenStage<T, FollowingThenable<V>>(body)
      .attach(to: promise, in: cancelContext, on: on, flags: DispatchFlags(flags))
  }

  /// Transforms the value.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the transformation; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  @_disfavoredOverload
  public func map<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T) throws -> U
  ) -> CancellablePromise<U> {
    if on == nil, let parent = promise.resultForCallbackNow { return cancelContext.mapSettled(parent, transform) }
    return CancellableMapStage(transform)
      .attach(to: promise, in: cancelContext, on: on, flags: DispatchFlags(flags))
  }

  /// Transforms the value; `nil` rejects with ``PMKError/compactMap(_:_:)``.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the transformation; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  @_disfavoredOverload
  public func compactMap<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T) throws -> U?
  ) -> CancellablePromise<U> {
    map(on: on, flags: flags, ChainingBodies.compactMap(transform))
  }

  /// Consumes the value.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: consumes the value; it does not start after a cancel.
  /// - Returns: a new `Void` member of this chain.
  @inlinable
  @_disfavoredOverload
  public func done(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> Void
  ) -> CancellablePromise<Void> {
    map(on: on, flags: flags, body)
  }

  /// Looks at the value and passes it on.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: looks at the value; it does not start after a cancel.
  /// - Returns: a new member of this chain with the same value.
  @inlinable
  @_disfavoredOverload
  public func get(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> Void
  ) -> CancellablePromise<T> {
    map(on: on, flags: flags, ChainingBodies.get(body))
  }

  /// Looks at the result, fulfilled or rejected, and passes it on.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread. (Without `on:`, the
  ///     `tap` whose body takes on the caller's isolation runs, on ``conf`` `.Q.map`: see
  ///     ``StageQueue``.)
  ///   - flags: the dispatch flags.
  ///   - body: looks at the result; it does not start after a cancel.
  /// - Returns: a new member of this chain resolved the same way.
  @inlinable
  public func tap(
    on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (Result<T>) -> Void
  ) -> CancellablePromise<T> {
    let flags = DispatchFlags(flags)
    let context = cancelContext.chain
    let member = CancellablePromise<T>(stageOf: cancelContext)
    let next = MemberSettler(member)  // not the member: see `ChainState`
    promise.pipe { result in
      on.dispatch(flags) {
        if !context.cancelStarted { body(Result(result)) }
        next.settle(result)
      }
    }
    return member
  }

  /// A `Void` member fulfilled when this one fulfils.
  @inlinable
  public func asVoid() -> CancellablePromise<Void> {
    map(on: nil) { _ in () }
  }
}
