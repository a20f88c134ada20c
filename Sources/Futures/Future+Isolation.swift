// The APIs whose block takes on its caller's isolation (see `BlockExecutor`): what lets a
// `@MainActor` class write `future.onSuccess(.main) { self.label = $0 }`.
//
// Swift ranks overloads without regard to the caller's isolation, so no pair of a `@Sendable` and
// a `@MainActor` overload can pick by context. Instead one overload takes an `@isolated(any)` block
// marked `@_inheritActorContext` (as `Task.init`'s is): a closure written in an isolated context
// takes that isolation, one written elsewhere stays nonisolated and `@Sendable`, and
// `BlockExecutor.executor(for:)` says where each runs. These overloads are chosen whenever the
// executor is the default one, `.main`, `.primary` or `.current` (the forms taking an `Executor`
// are disfavored), and run a block that is not isolated to an actor exactly as those forms do.

extension Future {
  /// Runs `block` with the result once this future completes, and returns a future of the
  /// block's completion; `block` takes on the caller's isolation (see ``BlockExecutor``).
  ///
  /// Otherwise as ``onComplete(_:block:)-(_,(FutureResult<T>)->Completion<S>)``.
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the continuation; a thrown error fails the returned future.
  /// - Returns: a future completed by `block`.
  @inlinable @discardableResult
  public final func onComplete<S: Sendable>(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) (FutureResult<T>) throws -> Completion<S>
  ) -> Future<S> {
    guard let runner = executor.executor(for: block.isolation) else {
      return onComplete(.immediate) { result -> Completion<S> in
        .completeUsing(IsolatedBlock.future { try await block(result) })
      }
    }
    return onComplete(runner, block: IsolatedCall.synchronous(block))
  }

  /// Runs `block` with the result once this future completes; `block` takes on the caller's
  /// isolation (see ``BlockExecutor``).
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the observer; a thrown error fails the returned future.
  /// - Returns: a future that succeeds once `block` returned.
  @inlinable @discardableResult
  public final func onComplete(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) (FutureResult<T>) throws -> Void
  ) -> Future<Void> {
    guard let runner = executor.executor(for: block.isolation) else {
      return onComplete(.immediate) { result -> Completion<Void> in
        .completeUsing(
          IsolatedBlock.future {
            try await block(result)
            return .success(())
          })
      }
    }
    return onComplete(runner, block: IsolatedCall.synchronous(block))
  }

  /// Runs `block` with the value if this future succeeds, and returns a future of its result;
  /// `block` takes on the caller's isolation (see ``BlockExecutor``).
  ///
  /// A failure or cancellation of this future passes to the returned future without running
  /// `block`.
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the continuation; a thrown error fails the returned future.
  /// - Returns: a future of `block`'s value.
  @inlinable @discardableResult
  public final func onSuccess<S: Sendable>(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) (T) throws -> S
  ) -> Future<S> {
    guard let runner = executor.executor(for: block.isolation) else {
      return onSuccess(.immediate) { value -> Future<S> in
        IsolatedBlock.future { .success(try await block(value)) }
      }
    }
    return onSuccess(runner, block: IsolatedCall.synchronous(block))
  }

  /// Runs `block` with the value if this future succeeds; the returned future completes with the
  /// future `block` returns. `block` takes on the caller's isolation (see ``BlockExecutor``).
  ///
  /// A cancel request on the returned future reaches the future `block` returned once it exists.
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the continuation; a thrown error fails the returned future.
  /// - Returns: a future of the result of `block`'s future.
  @inlinable @discardableResult
  public final func onSuccess<S: Sendable>(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) (T) throws -> Future<S>
  ) -> Future<S> {
    guard let runner = executor.executor(for: block.isolation) else {
      return onSuccess(.immediate) { value -> Future<S> in
        IsolatedBlock.future { .completeUsing(try await block(value)) }
      }
    }
    return onSuccess(runner, block: IsolatedCall.synchronous(block))
  }

  /// Transforms the value: the same as `onSuccess` with a ``BlockExecutor``; `block` takes on the
  /// caller's isolation.
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the transform; a thrown error fails the returned future.
  /// - Returns: a future of the transformed value.
  @inlinable
  public final func map<S: Sendable>(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) (T) throws -> S
  ) -> Future<S> {
    onSuccess(executor, block: block)
  }

  /// Runs `block` with the error if this future fails; `block` takes on the caller's isolation
  /// (see ``BlockExecutor``).
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the observer.
  /// - Returns: a future that completes with this future's result after `block` ran (at once if
  ///   this future did not fail).
  @inlinable @discardableResult
  public final func onFail(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) (any Error) -> Void
  ) -> Future<T> {
    guard let runner = executor.executor(for: block.isolation) else {
      return onComplete(.immediate) { result -> Completion<T> in
        guard case .fail(let error) = result else { return Completion(result) }
        return .completeUsing(
          IsolatedBlock.future {
            await block(error)
            return .fail(error)
          })
      }
    }
    return onFail(runner, block: IsolatedCall.synchronous(block))
  }

  /// Runs `block` if this future is cancelled; `block` takes on the caller's isolation (see
  /// ``BlockExecutor``).
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - block: the observer.
  /// - Returns: a future that completes with this future's result after `block` ran (at once if
  ///   this future was not cancelled).
  @inlinable @discardableResult
  public final func onCancel(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext block: @escaping @Sendable @isolated(any) () -> Void
  ) -> Future<T> {
    guard let runner = executor.executor(for: block.isolation) else {
      return onComplete(.immediate) { result -> Completion<T> in
        guard case .cancelled = result else { return Completion(result) }
        return .completeUsing(
          IsolatedBlock.future {
            await block()
            return .cancelled
          })
      }
    }
    return onCancel(runner, block: IsolatedCall.synchronous(block))
  }

  /// A future whose value `block` computes at once, on this thread, before the initializer
  /// returns; `block` takes on the caller's isolation (see ``BlockExecutor``): a block isolated to
  /// the main actor runs on ``Executor/main`` (at once on the main queue), one isolated to another
  /// actor on that actor, in a task. A thrown error fails the future.
  ///
  /// Without an executor, the form taking an ``Executor`` runs `block` on ``Executor/immediate``;
  /// this one runs a block that is not isolated to an actor the same way.
  ///
  /// - Parameter block: the work.
  public convenience init(@_inheritActorContext block: @escaping @Sendable @isolated(any) () throws -> T) {
    // Not a public `BlockExecutor.immediate`: the handlers' forms do not take it, so that a block
    // written in a `@MainActor` class and given `.immediate` keeps its meaning (the completing
    // thread), through the form that takes an `Executor`.
    self.init(BlockExecutor(.immediate), isolatedBlock: block)
  }

  /// A future whose value `block` computes on `executor`; `block` takes on the caller's isolation
  /// (see ``BlockExecutor``). A thrown error fails the future.
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/primary`` or ``BlockExecutor/current``.
  ///   - block: the work.
  public convenience init(
    _ executor: BlockExecutor, @_inheritActorContext block: @escaping @Sendable @isolated(any) () throws -> T
  ) {
    self.init(executor, isolatedBlock: block)
  }

  /// The two initializers above.
  private convenience init(
    _ executor: BlockExecutor, isolatedBlock block: @escaping @Sendable @isolated(any) () throws -> T
  ) {
    self.init(pending: ())
    guard let runner = executor.executor(for: block.isolation) else {
      Task { [self] in
        do {
          settle(.success(try await block()), detachUpstream: false)
        } catch {
          settle(.fail(error), detachUpstream: false)
        }
      }
      return
    }
    complete(on: runner, IsolatedCall.synchronous(block))
  }
}

extension Promise {
  /// Registers a handler for cancel requests on the future; `handler` takes on the caller's
  /// isolation (see ``BlockExecutor``).
  ///
  /// Otherwise as ``onRequestCancel(_:handler:)-(Executor,_)``, except that a handler isolated to
  /// an actor other than the main actor runs on that actor, in a task: its
  /// ``CancelRequestResponse/complete(_:)`` answer is applied when it returned, and requests it
  /// makes are carried out in that task.
  ///
  /// - Parameters:
  ///   - executor: ``BlockExecutor/main``, ``BlockExecutor/current``, or ``BlockExecutor/primary``
  ///     by default.
  ///   - handler: the producer's answer, given the request's options.
  @inlinable
  public func onRequestCancel(
    _ executor: BlockExecutor = .primary,
    @_inheritActorContext handler: @escaping @Sendable @isolated(any) (CancellationOptions) -> CancelRequestResponse<T>
  ) {
    guard let runner = executor.executor(for: handler.isolation) else {
      let future = self.future
      future.addRequestHandler(
        RequestHandler(executor: .immediate) { options, _ in
          Task {
            if case .complete(let completion) = await handler(options) {
              future.applyRequestAnswer(completion.erased, facts: nil)
            }
          }
          return nil
        })
      return
    }
    onRequestCancel(runner, handler: IsolatedCall.synchronous(handler))
  }
}
