import Dispatch

/// The error-handling half of PromiseKit's chaining API: `catch`, `recover`, `ensure`,
/// `ensureThen`, `finally` and `cauterize`. ``Promise`` conforms.
public protocol CatchMixin: Thenable {}

extension CatchMixin {
  /// Runs `body` with the error if this promise is rejected (and `policy` covers the error) and
  /// ends the chain.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - policy: whether cancellations reach `body`; by default (``conf`` `.catchPolicy`) they do
  ///     not.
  ///   - body: handles the error.
  /// - Returns: a finalizer whose ``PMKFinalizer/finally(on:flags:_:)-(_,_,()->Void)`` runs after the chain ended
  ///   either way.
  @inlinable
  @discardableResult
  @_disfavoredOverload
  public func `catch`(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) -> Void
  ) -> PMKFinalizer {
    CatchStage<T>(on: on, flags: DispatchFlags(flags), policy: policy, body).attach(to: self)
  }

  /// Replaces a rejection (that `policy` covers) with the thenable `body` returns; a fulfilment
  /// passes through.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - policy: whether cancellations reach `body` (``conf`` `.catchPolicy` by default: they do
  ///     not, and the chain stays rejected).
  ///   - body: returns the replacement; throwing rejects with the thrown error.
  /// - Returns: a promise resolved like this one, or like the replacement.
  @inlinable
  @_disfavoredOverload
  public func recover<U: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> U
  ) -> Promise<T> where U.T == T {
    // Without a queue the stage waits as itself, on this promise and then on the one returned.
    guard let on else { return RecoverStage(policy: policy, body).attach(to: self) }
    let flags = DispatchFlags(flags)
    let next = Promise<T>(pending: ())
    pipe { result in
      guard case .failure(let error) = result, policy.handles(error) else { return _ = next.settle(result) }
      on.async(flags) {
        do {
          let returned = try body(error)
          guard returned !== next else { throw PMKError.returnedSelf }
          returned.pipe { next.settle($0) }
        } catch {
          next.settle(.failure(error))
        }
      }
    }
    return next
  }

  /// Replaces any rejection, cancellations included, with the guarantee `body` returns: the
  /// chain can no longer fail.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: returns the replacement value's guarantee.
  /// - Returns: a guarantee of this promise's value or the replacement.
  @inlinable
  @_disfavoredOverload
  public func recover(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (Error) -> Guarantee<T>
  ) -> Guarantee<T> {
    let flags = DispatchFlags(flags)
    let next = Guarantee<T>(pending: ())
    pipe { result in
      switch result {
      case .success(let value): next.settle(value)
      case .failure(let error): on.dispatch(flags) { body(error).pipe { (value: T) in next.settle(value) } }
      }
    }
    return next
  }

  /// Runs `body` when this promise resolves, either way, and then resolves the returned promise
  /// like this one.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: the clean-up.
  /// - Returns: a promise resolved like this one, after `body` ran.
  @inlinable
  @_disfavoredOverload
  public func ensure(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Void
  ) -> Promise<T> {
    // Without a queue the stage waits as itself and runs the body in its callback.
    guard let on else { return PassThroughStage(.ensure(body)).attach(to: self) }
    let next = Promise<T>(pending: ())
    let flags = DispatchFlags(flags)
    pipe { result in
      on.async(flags) {
        body()
        next.settle(result)
      }
    }
    return next
  }

  /// Runs `body` when this promise resolves, either way, waits for the guarantee it returns, then
  /// resolves the returned promise like this one.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: starts the asynchronous clean-up.
  /// - Returns: a promise resolved like this one, after the clean-up finished.
  @inlinable
  @_disfavoredOverload
  public func ensureThen(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Guarantee<Void>
  ) -> Promise<T> {
    let flags = DispatchFlags(flags)
    let next = Promise<T>(pending: ())
    pipe { result in
      on.dispatch(flags) {
        body().pipe { (_: Void) in next.settle(result) }
      }
    }
    return next
  }

  /// Runs `body` when this promise resolves, either way, and ends the chain.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: the final step.
  @inlinable
  @_disfavoredOverload
  public func finally(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Void
  ) {
    let flags = DispatchFlags(flags)
    pipe { _ in on.dispatch(flags, body) }
  }

  /// Ends the chain, sending a rejection (other than a cancellation) to ``conf`` `.logHandler` as
  /// ``LogEvent/cauterized(_:)``.
  @inlinable
  public func cauterize() {
    self.catch(on: nil) { conf.logHandler(.cauterized($0)) }
  }
}

extension CatchMixin where T == Void {
  /// Handles a rejection (that `policy` covers) by running `body`; the returned promise fulfils
  /// when `body` returns and rejects if it throws.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - policy: whether cancellations reach `body`.
  ///   - body: handles the error; may rethrow.
  /// - Returns: a `Void` promise.
  @inlinable
  @_disfavoredOverload
  public func recover(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> Void
  ) -> Promise<Void> {
    let flags = DispatchFlags(flags)
    let next = Promise<Void>(pending: ())
    pipe { result in
      guard case .failure(let error) = result, policy.handles(error) else { return _ = next.settle(result) }
      on.dispatch(flags) {
        do {
          try body(error)
          next.settle(.success(()))
        } catch {
          next.settle(.failure(error))
        }
      }
    }
    return next
  }
}

extension CatchPolicy {
  /// Whether a handler with this policy sees `error`.
  @inlinable
  func handles(_ error: Error) -> Bool {
    self == .allErrors || !error.isCancelled
  }
}

/// What `catch` returns: the end of a chain, whose ``finally(on:flags:_:)-(_,_,()->Void)`` runs once the chain
/// ended either way (after the `catch` handler, if it ran).
public final class PMKFinalizer: Sendable {
  @usableFromInline let guarantee: Guarantee<Void>

  @inlinable
  init() {
    guarantee = Guarantee<Void>(pending: ())
  }

  /// A finalizer that ends with `guarantee` (a ``CatchStage``).
  @inlinable
  init(guarantee: Guarantee<Void>) {
    self.guarantee = guarantee
  }

  /// Runs `body` once the chain ended, whatever the outcome.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     thread that ended the chain.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: the final step.
  @_disfavoredOverload
  public func finally(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable () -> Void
  ) {
    let flags = DispatchFlags(flags)
    guarantee.pipe { (_: Void) in on.dispatch(flags, body) }
  }

  /// Does nothing: a chain that ends in `catch` has already handled its errors. Present for
  /// source compatibility.
  public func cauterize() {}
}
