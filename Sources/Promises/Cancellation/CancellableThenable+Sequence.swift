import Dispatch

extension CancellableThenable where T: Sequence, T.Element: Sendable {
  /// Transforms every element.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation.
  /// - Returns: a new member of this chain.
  public func mapValues<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U
  ) -> CancellablePromise<[U]> {
    map(on: on, flags: flags, SequenceBodies.mapValues(transform))
  }

  /// Transforms every element into a sequence and concatenates them.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation.
  /// - Returns: a new member of this chain.
  public func flatMapValues<U: Sequence & Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U
  ) -> CancellablePromise<[U.Element]> where U.Element: Sendable {
    map(on: on, flags: flags, SequenceBodies.flatMapValues(transform))
  }

  /// Transforms every element, dropping `nil` results.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation.
  /// - Returns: a new member of this chain.
  public func compactMapValues<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U?
  ) -> CancellablePromise<[U]> {
    map(on: on, flags: flags, SequenceBodies.compactMapValues(transform))
  }

  /// Starts a thenable per element and waits for all of them.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func thenMap<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T]> {
    then(on: on, flags: flags, SequenceBodies.whenAll(transform))
  }

  /// Starts a cancellable chain per element (each linked to this chain) and waits for all.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func cancellableThenMap<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T]> {
    cancellableThen(on: on, flags: flags) { elements in
      when(fulfilled: try elements.map { try transform($0).asCancellablePromise() })
    }
  }

  /// Starts a thenable of a sequence per element, waits for all and concatenates the results.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func thenFlatMap<V: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T.Element]> where V.T: Sequence, V.T.Element: Sendable {
    thenMap(on: on, flags: flags, transform).map(on: nil, SequenceBodies.concatenated)
  }

  /// Starts a cancellable chain of a sequence per element, waits for all and concatenates.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a new member of this chain.
  public func cancellableThenFlatMap<V: CancellableThenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> V
  ) -> CancellablePromise<[V.T.Element]> where V.T: Sequence, V.T.Element: Sendable {
    cancellableThenMap(on: on, flags: flags, transform).map(on: nil, SequenceBodies.concatenated)
  }

  /// Keeps the elements `isIncluded` accepts.
  ///
  /// - Parameters:
  ///   - on: the queue `isIncluded` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - isIncluded: the filter.
  /// - Returns: a new member of this chain.
  public func filterValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ isIncluded: @escaping @Sendable (T.Element) -> Bool
  ) -> CancellablePromise<[T.Element]> {
    map(on: on, flags: flags, SequenceBodies.filterValues(isIncluded))
  }

  /// The first element; rejects with ``PMKError/emptySequence`` if there is none.
  public var firstValue: CancellablePromise<T.Element> {
    map(on: nil, SequenceBodies.firstValue(where: { _ in true }))
  }

  /// The first element `test` accepts; rejects with ``PMKError/emptySequence`` if there is none.
  ///
  /// - Parameters:
  ///   - on: the queue `test` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - test: the condition; it does not start after a cancel.
  /// - Returns: a new member of this chain.
  public func firstValue(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    where test: @escaping @Sendable (T.Element) -> Bool
  ) -> CancellablePromise<T.Element> {
    map(on: on, flags: flags, SequenceBodies.firstValue(where: test))
  }
}

extension CancellableThenable where T: Collection, T.Element: Sendable {
  /// The last element; rejects with ``PMKError/emptySequence`` if there is none.
  public var lastValue: CancellablePromise<T.Element> {
    map(on: nil, SequenceBodies.lastValue)
  }
}

extension CancellableThenable where T: Sequence, T.Element: Comparable & Sendable {
  /// The elements sorted in ascending order.
  ///
  /// - Parameters:
  ///   - on: the queue the sort runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  /// - Returns: a new member of this chain.
  public func sortedValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil
  ) -> CancellablePromise<[T.Element]> {
    map(on: on, flags: flags, SequenceBodies.sortedValues)
  }
}

extension CancellableThenable {
  /// This member as a ``CancellablePromise`` (itself when it is one).
  func asCancellablePromise() -> CancellablePromise<T> {
    if let promise = self as? CancellablePromise<T> { return promise }
    return CancellablePromise(promise, cancelContext: cancelContext)
  }
}
