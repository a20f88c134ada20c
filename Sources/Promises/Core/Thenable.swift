import Dispatch

/// Something that resolves once with a `Result`: ``Promise``, ``Guarantee`` and the library's
/// chaining methods.
///
/// Every method that takes a closure also takes `on:` (the queue the closure runs on; `nil` runs
/// it synchronously on the resolving thread) and `flags:` (the `DispatchWorkItemFlags` of that
/// dispatch). Closures run at most once.
public protocol Thenable<T>: AnyObject, Sendable {
  /// The type of the value.
  associatedtype T: Sendable

  /// Calls `body` with the result once resolved: synchronously on the resolving thread, or at
  /// once on this thread if already resolved.
  func pipe(to body: @escaping @Sendable (Swift.Result<T, Error>) -> Void)

  /// The result once resolved; `nil` while pending.
  var result: Result<T>? { get }
}

extension Thenable {
  /// Runs `body` with the value once fulfilled and resolves the returned promise like the
  /// thenable `body` returns. A rejection skips `body` and passes through.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: returns the next step. Returning the promise that `then` itself returned rejects it
  ///     with ``PMKError/returnedSelf``; throwing rejects it with the error.
  /// - Returns: a promise resolved like the thenable `body` returned.
  @inlinable
  @_disfavoredOverload
  public func then<U: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> U
  ) -> Promise<U.T> {
    // (The cast folds away where this is specialized.) After a settled promise the body runs
    // now, as the callback would, and nothing waits.
    if on == nil, let promise = self as? Promise<T> {
      if let settled = promise.resultForCallbackNow { return thenSettled(settled, body) }
      return ThenStage(body).attach(to: promise)
    }
    let flags = DispatchFlags(flags)
    let next = Promise<U.T>(pending: ())
    pipe { result in
      switch result {
      case .success(let value):
        // `on: nil` runs inline: no second closure is made for it.
        if let queue = on {
          queue.async(flags) { runThen(body, value, next) }
        } else {
          runThen(body, value, next)
        }
      case .failure(let error):
        next.settle(.failure(error))
      }
    }
    return next
  }

  /// Transforms the value once fulfilled. A rejection passes through; a throwing `transform`
  /// rejects the returned promise.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `transform`.
  ///   - transform: the transformation.
  /// - Returns: a promise of the transformed value.
  @inlinable
  @_disfavoredOverload
  public func map<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T) throws -> U
  ) -> Promise<U> {
    MapStage(transform).attach(to: self, on: on, flags: DispatchFlags(flags))
  }

  /// Transforms the value once fulfilled; `nil` rejects the returned promise with
  /// ``PMKError/compactMap(_:_:)``.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `transform`.
  ///   - transform: the transformation.
  /// - Returns: a promise of the non-`nil` transformed value.
  @inlinable
  @_disfavoredOverload
  public func compactMap<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T) throws -> U?
  ) -> Promise<U> {
    map(on: on, flags: flags, ChainingBodies.compactMap(transform))
  }

  /// Runs `body` with the value once fulfilled; the returned promise fulfils with `()` when `body`
  /// returns, or rejects with the error it throws or the error this one rejected with.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: consumes the value.
  /// - Returns: a `Void` promise resolved when `body` has run.
  @inlinable
  @_disfavoredOverload
  public func done(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> Void
  ) -> Promise<Void> {
    map(on: on, flags: flags, body)
  }

  /// Runs `body` with the value once fulfilled and passes the value on.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the value; throwing rejects the returned promise.
  /// - Returns: a promise of the same value.
  @inlinable
  @_disfavoredOverload
  public func get(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> Void
  ) -> Promise<T> {
    map(on: on, flags: flags, ChainingBodies.get(body))
  }

  /// Runs `body` with the result, fulfilled or rejected, and passes the result on unchanged.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread. (Without `on:`, the
  ///     `tap` whose body takes on the caller's isolation runs, on ``conf`` `.Q.map`: see
  ///     ``StageQueue``.)
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the result.
  /// - Returns: a promise resolved like this one, after `body` ran.
  @inlinable
  public func tap(
    on: DispatchQueue?, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (Result<T>) -> Void
  ) -> Promise<T> {
    // Without a queue the stage waits as itself and runs the body in its callback.
    guard let on else { return PassThroughStage(.tap(body)).attach(to: self) }
    let flags = DispatchFlags(flags)
    let next = Promise<T>(pending: ())
    pipe { result in
      on.async(flags) {
        body(Result(result))
        next.settle(result)
      }
    }
    return next
  }

  /// A promise fulfilled with `()` when this one fulfils (synchronously), rejected like it.
  @inlinable
  public func asVoid() -> Promise<Void> {
    map(on: nil) { _ in () }
  }

  /// The error if rejected; `nil` while pending or if fulfilled.
  public var error: Error? {
    if case .rejected(let error)? = result { return error }
    return nil
  }

  /// Whether it has not resolved yet.
  public var isPending: Bool { result == nil }

  /// Whether it has resolved, either way.
  public var isResolved: Bool { !isPending }

  /// Whether it fulfilled.
  public var isFulfilled: Bool {
    if case .fulfilled? = result { return true }
    return false
  }

  /// Whether it was rejected.
  public var isRejected: Bool {
    if case .rejected? = result { return true }
    return false
  }

  /// The value if fulfilled; `nil` while pending or if rejected.
  public var value: T? {
    if case .fulfilled(let value)? = result { return value }
    return nil
  }
}

/// `then(on: nil)` after a promise settled with `parent`: the body runs now, and the promise
/// returned is the one made settled when the thenable the body returned has settled.
@inlinable
func thenSettled<V, U: Thenable>(_ parent: consuming Swift.Result<V, Error>, _ body: (V) throws -> U) -> Promise<U.T> {
  switch consume parent {
  case .success(let value):
    do {
      let returned = try body(value)
      if let promise = returned as? Promise<U.T>, let settled = promise.resultForCallbackNow {
        return Promise(settled: settled)
      }
      let next = Promise<U.T>(pending: ())
      returned.pipe { next.settle($0) }
      return next
    } catch {
      return Promise(settled: .failure(error))
    }
  case .failure(let error):
    return Promise(settled: .failure(error))
  }
}

/// Runs a `then` body and resolves `next` like the thenable it returns.
@inlinable
func runThen<V, U: Thenable>(_ body: (V) throws -> U, _ value: V, _ next: Promise<U.T>) {
  do {
    let returned = try body(value)
    guard returned !== next else { throw PMKError.returnedSelf }
    returned.pipe { next.settle($0) }
  } catch {
    next.settle(.failure(error))
  }
}
