import Dispatch

// The chaining methods whose body takes on its caller's isolation (see `StageQueue`): what lets
// a `@MainActor` class write `.done { self.label = $0 }`.
//
// Swift ranks overloads without regard to the caller's isolation (a non-`Sendable` use is
// diagnosed after the choice), so no pair of a `@Sendable` and a `@MainActor` overload can pick by
// context. Instead one overload takes an `@isolated(any)` body marked `@_inheritActorContext` (as
// `Task.init`'s is): a closure written in an isolated context takes that isolation, one written
// elsewhere stays nonisolated and `@Sendable`, and `IsolatedBody` runs each where its isolation
// holds. These methods are chosen whenever the queue is the default one or `.main` (the methods
// taking a `DispatchQueue?` are disfavored), and run a body that is not isolated to an actor
// exactly as those methods do.

extension Thenable {
  /// Runs `body` with the value once fulfilled and resolves the returned promise like the
  /// thenable `body` returns; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: returns the next step; throwing rejects the returned promise.
  /// - Returns: a promise resolved like the thenable `body` returned.
  @inlinable
  public func then<U: Thenable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> U
  ) -> Promise<U.T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return then(on: nil) { value in IsolatedBody.promise { try await body(value) } }.then(on: nil) { $0 }
    }
    return then(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Transforms the value once fulfilled; `transform` takes on the caller's isolation (see
  /// ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `transform`.
  ///   - transform: the transformation; throwing rejects the returned promise.
  /// - Returns: a promise of the transformed value.
  @inlinable
  public func map<U: Sendable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ transform: @escaping @Sendable @isolated(any) (T) throws -> U
  ) -> Promise<U> {
    guard let queue = IsolatedBody.queue(for: transform.isolation, on: on) else {
      return then(on: nil) { value in IsolatedBody.promise { try await transform(value) } }
    }
    return map(on: queue, flags: flags, IsolatedBody.synchronous(transform))
  }

  /// Transforms the value once fulfilled; `nil` rejects the returned promise with
  /// ``PMKError/compactMap(_:_:)``. `transform` takes on the caller's isolation (see
  /// ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `transform`.
  ///   - transform: the transformation.
  /// - Returns: a promise of the non-`nil` transformed value.
  @inlinable
  public func compactMap<U: Sendable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ transform: @escaping @Sendable @isolated(any) (T) throws -> U?
  ) -> Promise<U> {
    guard let queue = IsolatedBody.queue(for: transform.isolation, on: on) else {
      return then(on: nil) { value in
        IsolatedBody.promise { try await transform(value) }.map(on: nil) { (transformed: U?) in
          guard let transformed else { throw PMKError.compactMap(value, U.self) }
          return transformed
        }
      }
    }
    return compactMap(on: queue, flags: flags, IsolatedBody.synchronous(transform))
  }

  /// Runs `body` with the value once fulfilled; `body` takes on the caller's isolation (see
  /// ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: consumes the value; throwing rejects the returned promise.
  /// - Returns: a `Void` promise resolved when `body` has run.
  @inlinable
  public func done(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> Void
  ) -> Promise<Void> {
    map(on: on, flags: flags, body)
  }

  /// Runs `body` with the value once fulfilled and passes the value on; `body` takes on the
  /// caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the value; throwing rejects the returned promise.
  /// - Returns: a promise of the same value.
  @inlinable
  public func get(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) throws -> Void
  ) -> Promise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return then(on: nil) { value in IsolatedBody.promise { try await body(value) }.map(on: nil) { value } }
    }
    return get(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Runs `body` with the result, fulfilled or rejected, and passes the result on; `body` takes
  /// on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the result.
  /// - Returns: a promise resolved like this one, after `body` ran.
  public func tap(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Result<T>) -> Void
  ) -> Promise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let next = Promise<T>(pending: ())
      pipe { result in
        IsolatedBody.guarantee { await body(Result(result)) }.pipe { (_: Void) in next.settle(result) }
      }
      return next
    }
    return tap(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }
}

extension CatchMixin {
  /// Runs `body` with the error if this promise is rejected (and `policy` covers the error) and
  /// ends the chain; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - policy: whether cancellations reach `body`; by default (``conf`` `.catchPolicy`) they do
  ///     not.
  ///   - body: handles the error.
  /// - Returns: a finalizer whose `finally` runs after the chain ended either way.
  @discardableResult
  public func `catch`(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) -> Void
  ) -> PMKFinalizer {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      let finalizer = PMKFinalizer()
      pipe { result in
        guard case .failure(let error) = result, policy.handles(error) else {
          return _ = finalizer.guarantee.settle(())
        }
        IsolatedBody.guarantee { await body(error) }.pipe { (_: Void) in finalizer.guarantee.settle(()) }
      }
      return finalizer
    }
    return self.catch(on: queue, flags: flags, policy: policy, IsolatedBody.synchronous(body))
  }

  /// Replaces a rejection (that `policy` covers) with the thenable `body` returns; `body` takes
  /// on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - policy: whether cancellations reach `body` (``conf`` `.catchPolicy` by default: they do
  ///     not).
  ///   - body: returns the replacement; throwing rejects with the thrown error.
  /// - Returns: a promise resolved like this one, or like the replacement.
  public func recover<U: Thenable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) throws -> U
  ) -> Promise<T> where U.T == T {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return recover(on: nil, policy: policy) { error in
        IsolatedBody.promise { try await body(error) }.then(on: nil) { $0 }
      }
    }
    return recover(on: queue, flags: flags, policy: policy, IsolatedBody.synchronous(body))
  }

  /// Replaces any rejection, cancellations included, with the guarantee `body` returns; `body`
  /// takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: returns the replacement value's guarantee.
  /// - Returns: a guarantee of this promise's value or the replacement.
  public func recover(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) -> Guarantee<T>
  ) -> Guarantee<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return recover(on: nil) { error in IsolatedBody.guarantee { await body(error) }.then(on: nil) { $0 } }
    }
    return recover(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Runs `body` when this promise resolves, either way, and then resolves the returned promise
  /// like this one; `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: the clean-up.
  /// - Returns: a promise resolved like this one, after `body` ran.
  public func ensure(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Void
  ) -> Promise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return ensureThen(on: nil) { IsolatedBody.guarantee { await body() } }
    }
    return ensure(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Runs `body` when this promise resolves, either way, waits for the guarantee it returns, then
  /// resolves the returned promise like this one; `body` takes on the caller's isolation (see
  /// ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: starts the asynchronous clean-up.
  /// - Returns: a promise resolved like this one, after the clean-up finished.
  public func ensureThen(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Guarantee<Void>
  ) -> Promise<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return ensureThen(on: nil) { IsolatedBody.guarantee { await body() }.then(on: nil) { $0 } }
    }
    return ensureThen(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Runs `body` when this promise resolves, either way, and ends the chain; `body` takes on the
  /// caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: the final step.
  public func finally(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Void
  ) {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return pipe { _ in _ = IsolatedBody.guarantee { await body() } }
    }
    finally(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }
}

extension CatchMixin where T == Void {
  /// Handles a rejection (that `policy` covers) by running `body`; `body` takes on the caller's
  /// isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - policy: whether cancellations reach `body`.
  ///   - body: handles the error; may rethrow.
  /// - Returns: a `Void` promise.
  public func recover(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) throws -> Void
  ) -> Promise<Void> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return recover(on: nil, policy: policy) { error -> Promise<Void> in IsolatedBody.promise { try await body(error) }
      }
    }
    return recover(on: queue, flags: flags, policy: policy, IsolatedBody.synchronous(body))
  }

  /// Handles any rejection, cancellations included, by running `body`, which cannot fail; `body`
  /// takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: handles the error.
  /// - Returns: a `Void` guarantee.
  public func recover(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (Error) -> Void
  ) -> Guarantee<Void> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return recover(on: nil) { error in IsolatedBody.guarantee { await body(error) } }
    }
    return recover(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }
}

extension PMKFinalizer {
  /// Runs `body` once the chain ended, whatever the outcome; `body` takes on the caller's
  /// isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: the final step.
  public func finally(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) () -> Void
  ) {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return guarantee.pipe { (_: Void) in _ = IsolatedBody.guarantee { await body() } }
    }
    finally(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }
}

extension Guarantee {
  /// Runs `body` with the value and resolves the returned guarantee with `()` afterwards; `body`
  /// takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: consumes the value.
  /// - Returns: a guarantee resolved when `body` has run.
  @discardableResult
  public func done(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) -> Void
  ) -> Guarantee<Void> {
    map(on: on, flags: flags, body)
  }

  /// Runs `body` with the value and passes the value on; `body` takes on the caller's isolation
  /// (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.return` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the value.
  /// - Returns: a guarantee of the same value.
  public func get(
    on: StageQueue = .returnDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) -> Void
  ) -> Guarantee<T> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return then(on: nil) { value in IsolatedBody.guarantee { await body(value) }.map(on: nil) { value } }
    }
    return get(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }

  /// Transforms the value; `transform` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `transform`.
  ///   - transform: the transformation.
  /// - Returns: a guarantee of the transformed value.
  public func map<U: Sendable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ transform: @escaping @Sendable @isolated(any) (T) -> U
  ) -> Guarantee<U> {
    guard let queue = IsolatedBody.queue(for: transform.isolation, on: on) else {
      return then(on: nil) { value in IsolatedBody.guarantee { await transform(value) } }
    }
    return map(on: queue, flags: flags, IsolatedBody.synchronous(transform))
  }

  /// Runs `body` with the value and resolves the returned guarantee like the one `body` returns;
  /// `body` takes on the caller's isolation (see ``StageQueue``).
  ///
  /// - Parameters:
  ///   - on: ``StageQueue/main``, or ``conf`` `.Q.map` by default.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: returns the next step.
  /// - Returns: a guarantee resolved like the one `body` returned.
  public func then<U: Sendable>(
    on: StageQueue = .mapDefault, flags: DispatchWorkItemFlags? = nil,
    @_inheritActorContext _ body: @escaping @Sendable @isolated(any) (T) -> Guarantee<U>
  ) -> Guarantee<U> {
    guard let queue = IsolatedBody.queue(for: body.isolation, on: on) else {
      return then(on: nil) { value in IsolatedBody.guarantee { await body(value) } }.then(on: nil) { $0 }
    }
    return then(on: queue, flags: flags, IsolatedBody.synchronous(body))
  }
}
