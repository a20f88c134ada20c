import Dispatch

// Guarantee's own chaining methods: with closures that cannot throw they return guarantees (the
// chain still cannot fail). Closures that throw pick the `Thenable` methods, which return
// promises.
extension Guarantee {
  /// Runs `body` with the value and resolves the returned guarantee with `()` afterwards.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: consumes the value.
  /// - Returns: a guarantee resolved when `body` has run.
  @discardableResult
  @_disfavoredOverload
  @inlinable
  public func done(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) -> Void
  ) -> Guarantee<Void> {
    map(on: on, flags: flags, body)
  }

  /// Runs `body` with the value and passes the value on.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on (``conf`` `.Q.return` by default); `nil` runs it on the
  ///     resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: looks at the value.
  /// - Returns: a guarantee of the same value.
  @_disfavoredOverload
  @inlinable
  public func get(
    on: DispatchQueue? = conf.Q.return, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) -> Void
  ) -> Guarantee<T> {
    map(on: on, flags: flags) { value in
      body(value)
      return value
    }
  }

  /// Transforms the value.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `transform`.
  ///   - transform: the transformation.
  /// - Returns: a guarantee of the transformed value.
  @_disfavoredOverload
  @inlinable
  public func map<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T) -> U
  ) -> Guarantee<U> {
    // Without a queue the stage waits as itself (one allocation per stage).
    guard let on else { return GuaranteeMapStage(transform).attach(to: self) }
    let next = Guarantee<U>(pending: ())
    let flags = DispatchFlags(flags)
    pipe { (value: T) in on.async(flags) { next.settle(transform(value)) } }
    return next
  }

  /// Runs `body` with the value and resolves the returned guarantee like the one `body` returns.
  ///
  /// A guarantee cannot fail, so a `body` that returns the very guarantee this call returned
  /// (waiting for itself) is not rejected as `Promise.then`'s is: that guarantee never resolves.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: returns the next step.
  /// - Returns: a guarantee resolved like the one `body` returned.
  @_disfavoredOverload
  @inlinable
  public func then<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) -> Guarantee<U>
  ) -> Guarantee<U> {
    // Without a queue the stage waits as itself, on this guarantee and then on the returned one.
    guard let on else { return GuaranteeThenStage(body).attach(to: self) }
    let next = Guarantee<U>(pending: ())
    let flags = DispatchFlags(flags)
    pipe { (value: T) in on.async(flags) { body(value).pipe { (result: U) in next.settle(result) } } }
    return next
  }

  /// A guarantee resolved with `()` when this one resolves (synchronously).
  @inlinable
  public func asVoid() -> Guarantee<Void> {
    map(on: nil) { _ in () }
  }
}

extension Guarantee where T: Sequence, T.Element: Sendable {
  /// Transforms every element.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation.
  /// - Returns: a guarantee of the transformed elements.
  public func mapValues<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) -> U
  ) -> Guarantee<[U]> {
    map(on: on, flags: flags) { $0.map(transform) }
  }

  /// Keeps the elements `isIncluded` accepts.
  ///
  /// - Parameters:
  ///   - on: the queue `isIncluded` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - isIncluded: the filter.
  /// - Returns: a guarantee of the kept elements.
  public func filterValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ isIncluded: @escaping @Sendable (T.Element) -> Bool
  ) -> Guarantee<[T.Element]> {
    map(on: on, flags: flags) { $0.filter(isIncluded) }
  }
}

extension Guarantee where T: Sequence, T.Element: Comparable & Sendable {
  /// The elements sorted in ascending order.
  ///
  /// - Parameters:
  ///   - on: the queue the sort runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  /// - Returns: a guarantee of the sorted elements.
  public func sortedValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil
  ) -> Guarantee<[T.Element]> {
    map(on: on, flags: flags) { $0.sorted() }
  }
}
