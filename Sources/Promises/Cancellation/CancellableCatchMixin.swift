import CancelCore
import Dispatch

/// The error-handling half of a cancellable chain: PromiseKit 7's `CancellableCatchMixin`.
///
/// `catch` returns a ``CancellableFinalizer`` that can still cancel the chain. `ensure`,
/// `ensureThen` and `finally` bodies **always** run, cancelled or not, so a cancelled chain never
/// silently disappears. A `recover` starts its own branch: when it handles a cancellation, the
/// branch after it continues, while the rest of the chain stays cancelled.
public protocol CancellableCatchMixin: CancellableThenable {}

extension CancellableCatchMixin {
  /// Runs `body` with the error if the chain is rejected (and `policy` covers the error) and ends
  /// the chain.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: handles the error.
  /// - Returns: a finalizer that can still cancel the chain and whose `finally` always runs.
  @inlinable
  @discardableResult
  @_disfavoredOverload
  public func `catch`(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) -> Void
  ) -> CancellableFinalizer {
    CancellableFinalizer(promise.catch(on: on, flags: flags, policy: policy, body), context: cancelContext)
  }

  /// Replaces a rejection (that `policy` covers) with the thenable `body` returns.
  ///
  /// The result starts a branch of the chain: cancelling the branch also cancels the chain before
  /// it. A cancel of the chain before it cancels the branch too, unless the recover handles that
  /// very cancel: when this member was still pending (so the cancel rejected it) and `policy` is
  /// `.allErrors`, `body` gets the error and the branch goes on with what it returns (it never
  /// un-cancels the rest of the chain, unlike PromiseKit 7); a recover with policy `.allErrors`
  /// added to a chain already cancelled starts its branch anew. A cancel with an error of your own
  /// (not a cancellation) reaches `body` under the default policy too, but the branch is then
  /// cancelled once `body`'s result settled, as in PromiseKit 7. Once the branch itself was
  /// cancelled, `body` never starts (the branch is already rejected with the cancel error).
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body` (not by default).
  ///   - body: returns the replacement.
  /// - Returns: the first member of the branch.
  @inlinable
  @_disfavoredOverload
  public func recover<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    let branch = CancelContext.branch(of: cancelContext, from: promise, unlessHandledBy: policy)
    let branchChain = branch.chain  // not the context: see `ChainState`
    let recovered = promise.recover(on: on, flags: flags, policy: policy) { error -> V in
      try branchChain.checkNotCancelled()
      return try body(error)
    }
    let result = CancellablePromise(recovered, cancelContext: branch)
    branch.followUpstream(after: result.promise, unlessHandledBy: policy)
    return result
  }

  /// Replaces a rejection (that `policy` covers) with the cancellable chain `body` returns, which
  /// is linked to the branch (cancelling the branch cancels it). See
  /// `recover(on:flags:policy:_:)`.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body` (not by default).
  ///   - body: returns the replacement chain.
  /// - Returns: the first member of the branch.
  @inlinable
  public func cancellableRecover<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    let branch = CancelContext.branch(of: cancelContext, from: promise, unlessHandledBy: policy)
    let result = CancellablePromise<T>(stageOf: branch)
    let resultPromise = result.promise  // compared by identity only; not the member: see `ChainState`
    let branchChain = branch.chain  // not the context: see `ChainState`
    let recovered = promise.recover(on: on, flags: flags, policy: policy) { error -> Promise<T> in
      try branchChain.checkNotCancelled()
      let returned = try body(error)
      // Returning the very member this call returned would wait for itself.
      guard returned.promise !== resultPromise else { throw PMKError.returnedSelf }
      branchChain.append(returned.cancelContext)
      return returned.promise
    }
    branch.followUpstream(after: result.promise, unlessHandledBy: policy)
    let settler = MemberSettler(result)
    recovered.pipe { settler.settle($0) }
    return result
  }

  /// Runs `body` when this member resolves, either way (also after a cancel), then resolves the
  /// new member like this one.
  ///
  /// `body` finishes before any stage after it sees the result, cancelled or not: a cancel of the
  /// chain (from any member, before or after the `ensure`) rejects the members before it at once,
  /// which starts `body`, and reaches the stages after it only once `body` returned. Meanwhile
  /// those stages' `cancelAttempted` is already `true`. (The stages after the `ensure` have a
  /// context of their own, linked to this one in both directions.)
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: the clean-up; it always runs.
  /// - Returns: a new member of this chain.
  @inlinable
  @_disfavoredOverload
  public func ensure(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Void
  ) -> CancellablePromise<T> {
    Self.afterCleanup(promise.ensure(on: on, flags: flags, body), of: cancelContext)
  }

  /// The member that resolves like `cleaned` (this member's promise after a cleanup) in a context
  /// that holds a cancel back until the cleanup finished (see `CancelContext.init(after:)`).
  @inlinable
  static func afterCleanup(_ cleaned: Promise<T>, of context: CancelContext) -> CancellablePromise<T> {
    let after = CancelContext(after: context)
    let member = CancellablePromise<T>(stageOf: after)
    cleaned.pipe(to: after.settlingAfterCleanup(member.promise, of: context))
    return member
  }

  /// Runs `body` when this member resolves, either way (also after a cancel), waits for the
  /// cancellable chain it returns, then resolves the new member like this one.
  ///
  /// The clean-up chain `body` returns is **not** linked to this chain: a cancel of this chain
  /// (which is often what started the clean-up) does not stop it; cancel it through its own
  /// members. The stages after the `ensureThen` see the result only once the clean-up chain
  /// settled, cancelled or not, as for ``ensure(on:flags:_:)-(_,_,()->Void)``. A clean-up chain that
  /// is rejected rejects them with its error (as in PromiseKit 7), unless a cancel of this chain was
  /// made first: they are then rejected with the cancel error.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: starts the clean-up; it always runs.
  /// - Returns: a new member of this chain.
  @inlinable
  @_disfavoredOverload
  public func ensureThen(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> CancellablePromise<Void>
  ) -> CancellablePromise<T> {
    let flags = DispatchFlags(flags)
    let ensured = Promise<T>(pending: ())
    promise.pipe { result in
      on.dispatch(flags) {
        // A rejected clean-up rejects the stages after it with its own error, as in PromiseKit 7
        // (a cancel held back meanwhile still wins: see `CancelContext.settlingAfterCleanup`).
        body().promise.pipe { cleanup in
          if case .failure(let error) = cleanup {
            ensured.settle(.failure(error))
          } else {
            ensured.settle(result)
          }
        }
      }
    }
    return Self.afterCleanup(ensured, of: cancelContext)
  }

  /// Runs `body` when this member resolves, either way (also after a cancel), and ends the chain.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: the final step; it always runs.
  @inlinable
  @_disfavoredOverload
  public func finally(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Void
  ) {
    promise.finally(on: on, flags: flags, body)
  }

  /// Ends the chain, logging a rejection that is not a cancellation (see ``CatchMixin/cauterize()``).
  @inlinable
  public func cauterize() {
    promise.cauterize()
  }
}

extension CancellableCatchMixin where T == Void {
  /// Handles a rejection (that `policy` covers) by running `body`; starts a branch like
  /// `recover(on:flags:policy:_:)`.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`.
  ///   - body: handles the error; may rethrow.
  /// - Returns: the first member of the branch.
  @inlinable
  @_disfavoredOverload
  public func recover(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> Void
  ) -> CancellablePromise<Void> {
    let branch = CancelContext.branch(of: cancelContext, from: promise, unlessHandledBy: policy)
    let recovered = promise.recover(on: on, flags: flags, policy: policy) { error in
      try branch.checkNotCancelled()
      try body(error)
    }
    let result = CancellablePromise(recovered, cancelContext: branch)
    branch.followUpstream(after: result.promise, unlessHandledBy: policy)
    return result
  }
}

/// What a cancellable chain's `catch` returns: it ends the chain, can still cancel it, and runs
/// ``finally(on:flags:_:)-(_,_,()->Void)`` once the chain ended, however it ended.
public final class CancellableFinalizer: CancellableHandle, CancellableWithReason, Sendable {
  let finalizer: PMKFinalizer
  /// The chain's shared cancellation state.
  public let cancelContext: CancelContext

  @usableFromInline init(_ finalizer: PMKFinalizer, context: CancelContext) {
    self.finalizer = finalizer
    cancelContext = context
  }

  /// Cancels the chain with ``PMKError/cancelled``.
  ///
  /// - Parameters:
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
    cancelContext.cancel(
      error: CancelContext.defaultError, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Cancels the chain with ``PMKError/cancelled``; its record has no call site (what a call
  /// through the `Cancellable` protocol runs).
  @_disfavoredOverload
  public func cancel() {
    cancelContext.cancel(error: CancelContext.defaultError, origin: .unknown)
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
    cancelContext.cancel(error: error, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// `cancel(error:)` as a function value (`let stop = chain.cancel(error:)`): a reference cannot
  /// pass the call site, so the record has none. A call, `cancel(error: e)`, records its site.
  ///
  /// - Parameter error: the rejection error.
  @_disfavoredOverload
  public func cancel(error: Error) {
    cancelContext.cancel(error: error, origin: .unknown)
  }

  /// Cancels the chain with `reason` (`CancellableWithReason`; the same as
  /// ``cancel(error:fileID:line:function:)``, with no call site in its record).
  ///
  /// - Parameter reason: the rejection error.
  public func cancel(dueTo reason: any Error) {
    cancelContext.cancel(dueTo: reason)
  }

  /// Why, when, where from and along which chains and sources the chain was cancelled (see
  /// ``CancelContext/cancellationRecord``); `nil` while no cancel was attempted.
  public var cancellationRecord: CancellationRecord? { cancelContext.cancellationRecord }

  /// Whether a cancel rejected at least one member of the chain.
  public var isCancelled: Bool { cancelContext.isCancelled }

  /// Whether `cancel` was called on the chain.
  public var cancelAttempted: Bool { cancelContext.cancelAttempted }

  /// Runs `body` once the chain has ended, after its `catch` (at once if it already has), on the
  /// thread that ended it. A token registration holding this finalizer uses it to let go of it.
  ///
  /// - Parameter body: what to do then.
  public func whenWorkEnds(_ body: @escaping @Sendable () -> Void) {
    finalizer.guarantee.pipe { (_: Void) in body() }
  }

  /// Runs `body` once the chain ended, cancelled or not.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     thread that ended the chain.
  ///   - flags: the dispatch flags.
  ///   - body: the final step.
  /// - Returns: this finalizer, which can still cancel the chain (PromiseKit 7 code cancels the
  ///   result of `finally`).
  @discardableResult
  @_disfavoredOverload
  public func finally(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Void
  ) -> CancellableFinalizer {
    finalizer.finally(on: on, flags: flags, body)
    return self
  }
}
