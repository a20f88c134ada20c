import Dispatch

// PromiseKit 7 pairs each cancellable spelling with one kind of body in its documentation and
// overloads both in its code; here each spelling accepts both, delegating to its counterpart.

extension CancellableThenable {
  /// Runs `body` with the value and resolves the new member like the (not cancellable) thenable
  /// it returns: `then(on:flags:_:)` under PromiseKit 7's explicit name.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - body: returns the next step; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  public func cancellableThen<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (T) throws -> V
  ) -> CancellablePromise<V.T> {
    then(on: on, flags: flags, body)
  }
}

extension CancellableThenable where T: Sequence, T.Element: Sendable {
  /// Starts a cancellable chain per element (each linked to this chain) and waits for all:
  /// `cancellableThenMap(on:flags:_:)` under the plain name.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func thenMap<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T]> {
    cancellableThenMap(on: on, flags: flags, transform)
  }

  /// Starts a (not cancellable) thenable per element and waits for all:
  /// `thenMap(on:flags:_:)` under PromiseKit 7's explicit name.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func cancellableThenMap<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T]> {
    thenMap(on: on, flags: flags, transform)
  }

  /// Starts a cancellable chain of a sequence per element, waits for all and concatenates:
  /// `cancellableThenFlatMap(on:flags:_:)` under the plain name.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func thenFlatMap<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T.Element]> where V.T: Sequence, V.T.Element: Sendable {
    cancellableThenFlatMap(on: on, flags: flags, transform)
  }

  /// Starts a (not cancellable) thenable of a sequence per element, waits for all and
  /// concatenates: `thenFlatMap(on:flags:_:)` under PromiseKit 7's
  /// explicit name.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func cancellableThenFlatMap<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T.Element]> where V.T: Sequence, V.T.Element: Sendable {
    thenFlatMap(on: on, flags: flags, transform)
  }
}

extension CancellableCatchMixin {
  /// Replaces a rejection (that `policy` covers) with the cancellable chain `body` returns:
  /// `cancellableRecover(on:flags:policy:_:)` under the plain name.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body` (not by default).
  ///   - body: returns the replacement chain.
  /// - Returns: the first member of the branch.
  public func recover<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    cancellableRecover(on: on, flags: flags, policy: policy, body)
  }

  /// Replaces a rejection (that `policy` covers) with the (not cancellable) thenable `body`
  /// returns: `recover(on:flags:policy:_:)` under PromiseKit 7's explicit
  /// name.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - policy: whether cancellations reach `body` (not by default).
  ///   - body: returns the replacement.
  /// - Returns: the first member of the branch.
  public func cancellableRecover<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil, policy: CatchPolicy = conf.catchPolicy,
    _ body: @escaping @Sendable (Error) throws -> V
  ) -> CancellablePromise<T> where V.T == T {
    recover(on: on, flags: flags, policy: policy, body)
  }
}
