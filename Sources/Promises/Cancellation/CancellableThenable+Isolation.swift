import Dispatch

// The chaining methods of a cancellable chain whose body takes on its caller's isolation (see
// `StageQueue` and Core/Thenable+Isolation.swift): chosen whenever the queue is the default one or
// `.main`; a body that is not isolated to an actor runs exactly as with the methods that take a
// `DispatchQueue?`, which are disfavored.

extension CancellableThenable {
  /// Runs `body` with the value and resolves the new member like the cancellable chain `body`
  /// returns, which is linked to this one; `body` takes on the caller's isolation (see
  /// ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - body: returns the next step; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  public func then<V: CancellableThenable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> V
  ) -> CancellablePromise<V.T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let chain = cancelContext.chain
      return then(on: nil) { value in IsolatedBody.promise(body, value, unlessCancelled: chain) }.then(on: nil) { $0 }
    }
    return then(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Runs `body` with the value and resolves the new member like the (not cancellable) thenable
  /// it returns; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - body: returns the next step; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  public func then<V: Thenable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> V
  ) -> CancellablePromise<V.T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let chain = cancelContext.chain
      return then(on: nil) { value in IsolatedBody.promise(body, value, unlessCancelled: chain) }.then(on: nil) { $0 }
    }
    return then(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Transforms the value; `transform` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - transform: the transformation; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  public func map<U: Sendable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ transform: @escaping @Sendable @isolated(any) (T) throws -> U
  ) -> CancellablePromise<U> {
    guard let queue = IsolatedBody.queue(for: transform.isolation, on: on) else {
      let chain = cancelContext.chain
      return then(on: nil) { value in IsolatedBody.promise(transform, value, unlessCancelled: chain) }
    }
    return map(on: queue, flags: flags, IsolatedBody.synchronous(transform))
  }

  /// Transforms the value; `nil` rejects with ``PMKError/compactMap(_:_:)``. `transform` takes on
  /// the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - transform: the transformation; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  @inlinable
  public func compactMap<U: Sendable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ transform: @escaping @Sendable @isolated(any) (T) throws -> U?
  ) -> CancellablePromise<U> {
    guard let queue = IsolatedBody.queue(for: transform.isolation, on: on) else {
      let chain = cancelContext.chain
      return then(on: nil) { value in
        IsolatedBody.promise(transform, value, unlessCancelled: chain).map(on: nil) { (transformed: U?) in
          guard let transformed else { throw PMKError.compactMap(value, U.self) }
          return transformed
        }
      }
    }
    return compactMap(on: queue, flags: flags, IsolatedBody.synchronous(transform))
  }

  /// Consumes the value; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - body: consumes the value; it does not start after a cancel.
  /// - Returns: a new `Void` member of this chain.
  @inlinable
  public func done(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> Void
  ) -> CancellablePromise<Void> {
    map(on: on, flags: flags, body)
  }

  /// Looks at the value and passes it on; `body` takes on the caller's isolation (see
  /// ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - body: looks at the value; it does not start after a cancel.
  /// - Returns: a new member of this chain with the same value.
  @inlinable
  public func get(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> Void
  ) -> CancellablePromise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let chain = cancelContext.chain
      return then(on: nil) { value in IsolatedBody.promise(body, value, unlessCancelled: chain).map(on: nil) { value } }
    }
    return get(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Looks at the result, fulfilled or rejected, and passes it on; `body` takes on the caller's
  /// isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - body: looks at the result; it does not start after a cancel.
  /// - Returns: a new member of this chain resolved the same way.
  public func tap(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Result<T>) -> Void
  ) -> CancellablePromise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let context = cancelContext.chain
      let member = CancellablePromise<T>(stageOf: cancelContext)
      let next = MemberSettler(member)  // not the member: see `ChainState`
      promise.pipe { result in
        guard !context.cancelStarted else { return next.settle(result) }
        IsolatedBody.promise(body, Result(result), unlessCancelled: context).pipe { _ in next.settle(result) }
      }
      return member
    }
    return tap(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }
}

extension CancellableCatchMixin {
  /// Runs `body` with the error if the chain is rejected (and `policy` covers the error) and ends
  /// the chain; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`; by default they do not.
  ///   - body: handles the error.
  /// - Returns: a finalizer that can still cancel the chain and whose `finally` always runs.
  @discardableResult
  public func `catch`(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) -> Void
  ) -> CancellableFinalizer {
    CancellableFinalizer(promise.catch(on: on, flags: flags, policy: policy, body), context: cancelContext)
  }

  /// Replaces a rejection (that `policy` covers) with the thenable `body` returns, starting a
  /// branch of the chain as `recover` with a queue does; `body` takes on the caller's isolation
  /// (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body` (not by default).
  ///   - body: returns the replacement.
  /// - Returns: the first member of the branch.
  public func recover<V: Thenable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return recover(on: nil, policy: policy) { error -> Promise<T> in
        IsolatedBody.promise { try await body(error) }.then(on: nil) { $0 }
      }
    }
    return recover(on: queue, flags: flags, policy: policy, IsolatedBody.synchronous(body))
  }

  /// Runs `body` when this member resolves, either way (also after a cancel), then resolves the
  /// new member like this one, as `ensure` with a queue does; `body` takes on the caller's
  /// isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - body: the clean-up; it always runs.
  /// - Returns: a new member of this chain.
  public func ensure(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Void
  ) -> CancellablePromise<T> {
    Self.afterCleanup(promise.ensure(on: on, flags: flags, body), of: cancelContext)
  }

  /// Runs `body` when this member resolves, either way (also after a cancel), waits for the
  /// cancellable chain it returns, then resolves the new member like this one, as `ensureThen`
  /// with a queue does; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - body: starts the clean-up; it always runs.
  /// - Returns: a new member of this chain.
  public func ensureThen(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> CancellablePromise<Void>
  ) -> CancellablePromise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let ensured = promise.ensureThen(on: nil) { () -> Guarantee<Void> in
        let done = Guarantee<Void>(pending: ())
        Task { await body().promise.pipe { _ in done.settle(()) } }
        return done
      }
      return Self.afterCleanup(ensured, of: cancelContext)
    }
    return ensureThen(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Runs `body` when this member resolves, either way (also after a cancel), and ends the chain;
  /// `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - body: the final step; it always runs.
  public func finally(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Void
  ) {
    promise.finally(on: on, flags: flags, body)
  }
}

extension CancellableCatchMixin where T == Void {
  /// Handles a rejection (that `policy` covers) by running `body`, starting a branch as
  /// `recover` with a queue does; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body`.
  ///   - body: handles the error; may rethrow.
  /// - Returns: the first member of the branch.
  public func recover(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) throws -> Void
  ) -> CancellablePromise<Void> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return recover(on: nil, policy: policy) { error -> Promise<Void> in
        IsolatedBody.promise { try await body(error) }
      }
    }
    return recover(on: queue, flags: flags, policy: policy, IsolatedBody.synchronous(body))
  }
}

extension CancellableFinalizer {
  /// Runs `body` once the chain ended, cancelled or not; `body` takes on the caller's isolation
  /// (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags.
  ///   - body: the final step.
  /// - Returns: this finalizer, which can still cancel the chain.
  @discardableResult
  public func finally(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Void
  ) -> CancellableFinalizer {
    finalizer.finally(on: on, flags: flags, body)
    return self
  }
}
