// Every method here has a form whose block takes on the caller's isolation (Future+Isolation.swift,
// taking a `BlockExecutor`); that form is chosen without an executor and with `.main`, `.primary`
// or `.current`, so these are disfavored.

extension Future {
  /// Runs `block` with the result once this future completes, and returns a future of the
  /// block's completion.
  ///
  /// The block runs exactly once, on `executor`, for every kind of result. Returning
  /// ``Completion/completeUsing(_:)`` completes the returned future with another future's result;
  /// a thrown error fails it. A cancel request on the returned future travels to this one, or to
  /// the future the block handed over (see the "Cancellation trees" article).
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the continuation.
  /// - Returns: a future completed by `block`.
  @inlinable @discardableResult @_disfavoredOverload
  public final func onComplete<S: Sendable>(
    _ executor: Executor = .primary, block: @escaping @Sendable (FutureResult<T>) throws -> Completion<S>
  ) -> Future<S> {
    ResultStage<T, S>(executor: executor.resolvedForRegistration, block: block).attach(to: self)
  }

  /// Runs `block` with the result once this future completes.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the observer; a thrown error fails the returned future.
  /// - Returns: a future that succeeds once `block` returned.
  @inlinable @discardableResult @_disfavoredOverload
  public final func onComplete(
    _ executor: Executor = .primary, block: @escaping @Sendable (FutureResult<T>) throws -> Void
  ) -> Future<Void> {
    ResultStage<T, Void>(
      executor: executor.resolvedForRegistration,
      block: { result in
        try block(result)
        return .success(())
      }
    ).attach(to: self)
  }

  /// Runs `block` with the value if this future succeeds, and returns a future of its result.
  ///
  /// A failure or cancellation of this future passes to the returned future without running
  /// `block`.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the continuation; a thrown error fails the returned future.
  /// - Returns: a future of `block`'s value.
  @inlinable @discardableResult @_disfavoredOverload
  public final func onSuccess<S: Sendable>(
    _ executor: Executor = .primary, block: @escaping @Sendable (T) throws -> S
  ) -> Future<S> {
    ValueStage<T, S>(executor: executor.resolvedForRegistration, block: block).attach(to: self)
  }

  /// Runs `block` with the value if this future succeeds; the returned future completes with the
  /// future `block` returns.
  ///
  /// A cancel request on the returned future reaches the future `block` returned once it exists.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the continuation; a thrown error fails the returned future.
  /// - Returns: a future of the result of `block`'s future.
  @inlinable @discardableResult @_disfavoredOverload
  public final func onSuccess<S: Sendable>(
    _ executor: Executor = .primary, block: @escaping @Sendable (T) throws -> Future<S>
  ) -> Future<S> {
    FutureStage<T, S>(executor: executor.resolvedForRegistration, block: block).attach(to: self)
  }

  /// Transforms the value: the same as ``onSuccess(_:block:)-(_,(T)->S)``.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the transform; a thrown error fails the returned future.
  /// - Returns: a future of the transformed value.
  @inlinable @_disfavoredOverload
  public final func map<S: Sendable>(
    _ executor: Executor = .primary, block: @escaping @Sendable (T) throws -> S
  ) -> Future<S> {
    onSuccess(executor, block: block)
  }

  /// Runs `block` with the error if this future fails.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the observer.
  /// - Returns: a future that completes with this future's result after the stage ran on `executor`.
  @inlinable @discardableResult @_disfavoredOverload
  public final func onFail(
    _ executor: Executor = .primary, block: @escaping @Sendable (any Error) -> Void
  ) -> Future<T> {
    ResultStage<T, T>(
      executor: executor.resolvedForRegistration,
      block: { result in
        if case .fail(let error) = result { block(error) }
        return Completion(result)
      }
    ).attach(to: self)
  }

  /// Runs `block` if this future is cancelled.
  ///
  /// - Parameters:
  ///   - executor: where `block` runs. Without it, and with `.main`, `.primary` or `.current`, the
  ///     form taking a ``BlockExecutor`` is chosen (it runs a block not isolated to an actor alike).
  ///   - block: the observer.
  /// - Returns: a future that completes with this future's result after the stage ran on `executor`.
  @inlinable @discardableResult @_disfavoredOverload
  public final func onCancel(
    _ executor: Executor = .primary, block: @escaping @Sendable () -> Void
  ) -> Future<T> {
    ResultStage<T, T>(
      executor: executor.resolvedForRegistration,
      block: { result in
        if case .cancelled = result { block() }
        return Completion(result)
      }
    ).attach(to: self)
  }

  /// A token that asks for this future's cancellation.
  ///
  /// Each call returns a new token; each token requests at most once. A live token is not a
  /// consumer: holding one does not stop a shared parent from being requested by its last
  /// pending derived future.
  public final func getCancelToken() -> CancelToken {
    CancelToken(target: self)
  }
}
