import Dispatch

// PromiseKit 7's `catch(only:)` and `recover(only:)`: handle one error value (`Equatable`) or one
// error type; every other error passes on unchanged.

extension CancellableCatchMixin {
  /// Runs `body` if the chain is rejected with `only` (cancellation errors included); any other
  /// error passes on to the catches chained after the returned finalizer.
  ///
  /// - Parameters:
  ///   - only: the error to handle.
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: handles the error.
  /// - Returns: a finalizer that passes the other errors on, and can still cancel the chain.
  @discardableResult
  public func `catch`<E: Error & Equatable>(
    only: E, on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (E) -> Void
  ) -> CancellableCascadingFinalizer {
    CancellableCascadingFinalizer(
      asVoid().recover(on: on, flags: flags, policy: .allErrors) { error in
        try OnlyError.handle(error, only: only, body)
      })
  }

  /// Runs `body` if the chain is rejected with an error of type `only` that `policy` covers; any
  /// other error passes on to the catches chained after the returned finalizer.
  ///
  /// - Parameters:
  ///   - only: the error type to handle.
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: handles the error.
  /// - Returns: a finalizer that passes the other errors on, and can still cancel the chain.
  @discardableResult
  public func `catch`<E: Error>(
    only: E.Type, on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (E) -> Void
  ) -> CancellableCascadingFinalizer {
    CancellableCascadingFinalizer(
      asVoid().recover(on: on, flags: flags, policy: .allErrors) { error in
        try OnlyError.handle(error, only: E.self, policy: policy, body)
      })
  }

  /// Replaces a rejection with `only` (cancellation errors included) by the thenable `body`
  /// returns; any other error passes on. The result starts a branch, like
  /// `recover(on:flags:policy:_:)`.
  ///
  /// - Parameters:
  ///   - only: the error to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: returns the replacement.
  /// - Returns: the first member of the branch.
  public func recover<V: Thenable, E: Error & Equatable>(
    only: E, on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (E) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    recover(on: on, flags: flags, policy: .allErrors) { error -> V in
      try OnlyError.handle(error, only: only, body)
    }
  }

  /// Replaces a rejection with `only` (cancellation errors included) by the cancellable chain
  /// `body` returns; any other error passes on.
  ///
  /// - Parameters:
  ///   - only: the error to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: returns the replacement chain.
  /// - Returns: the first member of the branch.
  public func recover<V: CancellableThenable, E: Error & Equatable>(
    only: E, on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (E) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    cancellableRecover(on: on, flags: flags, policy: .allErrors) { error -> V in
      try OnlyError.handle(error, only: only, body)
    }
  }

  /// Replaces a rejection with an error of type `only` that `policy` covers by the thenable
  /// `body` returns; any other error passes on.
  ///
  /// - Parameters:
  ///   - only: the error type to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: returns the replacement.
  /// - Returns: the first member of the branch.
  public func recover<V: Thenable, E: Error>(
    only: E.Type, on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (E) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    recover(on: on, flags: flags, policy: .allErrors) { error -> V in
      try OnlyError.handle(error, only: E.self, policy: policy, body)
    }
  }

  /// Replaces a rejection with an error of type `only` that `policy` covers by the cancellable
  /// chain `body` returns; any other error passes on.
  ///
  /// - Parameters:
  ///   - only: the error type to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: returns the replacement chain.
  /// - Returns: the first member of the branch.
  public func recover<V: CancellableThenable, E: Error>(
    only: E.Type, on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (E) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    cancellableRecover(on: on, flags: flags, policy: .allErrors) { error -> V in
      try OnlyError.handle(error, only: E.self, policy: policy, body)
    }
  }
}

extension CancellableCatchMixin where T == Void {
  /// Handles a rejection with `only` (cancellation errors included) by running `body`; any other
  /// error passes on.
  ///
  /// - Parameters:
  ///   - only: the error to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: handles the error; may rethrow.
  /// - Returns: the first member of the branch.
  public func recover<E: Error & Equatable>(
    only: E, on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (E) throws -> Void
  ) -> CancellablePromise<Void> {
    recover(on: on, flags: flags, policy: .allErrors) { error in
      try OnlyError.handle(error, only: only, body)
    }
  }

  /// Handles a rejection with an error of type `only` that `policy` covers by running `body`;
  /// any other error passes on.
  ///
  /// - Parameters:
  ///   - only: the error type to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: handles the error; may rethrow.
  /// - Returns: the first member of the branch.
  public func recover<E: Error>(
    only: E.Type, on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (E) throws -> Void
  ) -> CancellablePromise<Void> {
    recover(on: on, flags: flags, policy: .allErrors) { error in
      try OnlyError.handle(error, only: E.self, policy: policy, body)
    }
  }
}

/// What `catch(only:)` returns: the rest of the chain, rejected with the errors it did not handle,
/// so more catches can follow; it can still cancel the whole chain.
public final class CancellableCascadingFinalizer: Cancellable, Sendable {
  /// Fulfils when the chain fulfilled or the error was handled; rejects with any other error.
  let rest: CancellablePromise<Void>

  init(_ rest: CancellablePromise<Void>) {
    self.rest = rest
  }

  /// The chain's shared cancellation state.
  public var cancelContext: CancelContext { rest.cancelContext }

  /// Handles the errors the previous catches did not; see
  /// ``CancellableCatchMixin/catch(on:flags:policy:_:)-(_,_,_,(Error)->Void)``.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: handles the error.
  /// - Returns: a finalizer that can still cancel the chain.
  @discardableResult
  public func `catch`(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) -> Void
  ) -> CancellableFinalizer {
    rest.catch(on: on, flags: flags, policy: policy, body)
  }

  /// Handles `only` if the previous catches did not handle the error; see
  /// `CancellableCatchMixin/catch(only:on:flags:_:)`.
  ///
  /// - Parameters:
  ///   - only: the error to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: handles the error.
  /// - Returns: a finalizer for the errors left.
  @discardableResult
  public func `catch`<E: Error & Equatable>(
    only: E, on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (E) -> Void
  ) -> CancellableCascadingFinalizer {
    rest.catch(only: only, on: on, flags: flags, body)
  }

  /// Handles an error of type `only` if the previous catches did not handle the error.
  ///
  /// - Parameters:
  ///   - only: the error type to handle.
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: handles the error.
  /// - Returns: a finalizer for the errors left.
  @discardableResult
  public func `catch`<E: Error>(
    only: E.Type, on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    policy: CatchPolicy = conf.catchPolicy, _ body: @escaping @Sendable (E) -> Void
  ) -> CancellableCascadingFinalizer {
    rest.catch(only: only, on: on, flags: flags, policy: policy, body)
  }

  /// Ends the chain, logging an error no catch handled (see ``LogEvent/cauterized(_:)``).
  public func cauterize() {
    rest.cauterize()
  }

  /// Cancels the chain with ``PMKError/cancelled``.
  ///
  /// - Parameters:
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
    rest.cancel(fileID: fileID, line: line, function: function)
  }

  /// Cancels the chain with ``PMKError/cancelled``; its record has no call site (what a call
  /// through the `Cancellable` protocol runs).
  @_disfavoredOverload
  public func cancel() {
    rest.cancel()
  }

  /// Cancels the chain with `error`.
  ///
  /// - Parameters:
  ///   - error: the rejection error.
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(
    error: Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    rest.cancel(error: error, fileID: fileID, line: line, function: function)
  }

  /// Why, when, where from and along which chains and sources the chain was cancelled; `nil`
  /// while no cancel was attempted.
  public var cancellationRecord: CancellationRecord? { rest.cancellationRecord }

  /// Whether a cancel rejected at least one member of the chain.
  public var isCancelled: Bool { rest.isCancelled }

  /// Whether `cancel` was called on the chain.
  public var cancelAttempted: Bool { rest.cancelAttempted }
}

/// The one test every `catch(only:)` and `recover(only:)` makes, for errors given by value or by
/// type.
enum OnlyError {
  /// `body`'s answer if `error` is `only`; rethrows `error` otherwise.
  static func handle<E: Error & Equatable, R>(_ error: Error, only: E, _ body: (E) throws -> R) throws -> R {
    guard let match = error as? E, match == only else { throw error }
    return try body(match)
  }

  /// `body`'s answer if `error` is of type `only` and `policy` covers it; rethrows `error`
  /// otherwise.
  static func handle<E: Error, R>(_ error: Error, only: E.Type, policy: CatchPolicy, _ body: (E) throws -> R) throws
    -> R
  {
    guard let match = error as? E, policy.handles(error) else { throw error }
    return try body(match)
  }
}
