import Dispatch

extension Thenable where T: Sequence, T.Element: Sendable {
  /// Transforms every element of the fulfilled sequence.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation; throwing rejects the result.
  /// - Returns: a promise of the transformed elements.
  @inlinable
  public func mapValues<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U
  ) -> Promise<[U]> {
    map(on: on, flags: flags, SequenceBodies.mapValues(transform))
  }

  /// Transforms every element into a sequence and concatenates them.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation; throwing rejects the result.
  /// - Returns: a promise of the concatenated elements.
  @inlinable
  public func flatMapValues<U: Sequence & Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U
  ) -> Promise<[U.Element]> where U.Element: Sendable {
    map(on: on, flags: flags, SequenceBodies.flatMapValues(transform))
  }

  /// Transforms every element, dropping `nil` results.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: the element transformation; throwing rejects the result.
  /// - Returns: a promise of the non-`nil` transformed elements.
  @inlinable
  public func compactMapValues<U: Sendable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U?
  ) -> Promise<[U]> {
    map(on: on, flags: flags, SequenceBodies.compactMapValues(transform))
  }

  /// Starts a thenable per element and waits for all of them (``when(fulfilled:)-([U])->Promise<[U.T]>``).
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a promise of every element's result, in order.
  @inlinable
  public func thenMap<U: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U
  ) -> Promise<[U.T]> {
    then(on: on, flags: flags, SequenceBodies.whenAll(transform))
  }

  /// Starts a thenable of a sequence per element, waits for all and concatenates the results.
  ///
  /// - Parameters:
  ///   - on: the queue `transform` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - transform: starts the work for one element.
  /// - Returns: a promise of the concatenated results, in order.
  @inlinable
  public func thenFlatMap<U: Thenable>(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ transform: @escaping @Sendable (T.Element) throws -> U
  ) -> Promise<[U.T.Element]> where U.T: Sequence, U.T.Element: Sendable {
    then(on: on, flags: flags, SequenceBodies.whenAll(transform)).map(on: nil, SequenceBodies.concatenated)
  }

  /// Keeps the elements `isIncluded` accepts.
  ///
  /// - Parameters:
  ///   - on: the queue `isIncluded` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - isIncluded: the filter.
  /// - Returns: a promise of the kept elements.
  @inlinable
  public func filterValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ isIncluded: @escaping @Sendable (T.Element) -> Bool
  ) -> Promise<[T.Element]> {
    map(on: on, flags: flags, SequenceBodies.filterValues(isIncluded))
  }

  /// The first element; rejects with ``PMKError/emptySequence`` if there is none.
  public var firstValue: Promise<T.Element> {
    map(on: nil, SequenceBodies.firstValue(where: { _ in true }))
  }

  /// The first element `test` accepts; rejects with ``PMKError/emptySequence`` if there is none.
  ///
  /// - Parameters:
  ///   - on: the queue `test` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - test: the condition.
  /// - Returns: a promise of the first matching element.
  @inlinable
  public func firstValue(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    where test: @escaping @Sendable (T.Element) -> Bool
  ) -> Promise<T.Element> {
    map(on: on, flags: flags, SequenceBodies.firstValue(where: test))
  }
}

extension Thenable where T: Collection, T.Element: Sendable {
  /// The last element; rejects with ``PMKError/emptySequence`` if there is none.
  public var lastValue: Promise<T.Element> {
    map(on: nil, SequenceBodies.lastValue)
  }
}

extension Thenable where T: Sequence, T.Element: Comparable & Sendable {
  /// The elements sorted in ascending order.
  ///
  /// - Parameters:
  ///   - on: the queue the sort runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  /// - Returns: a promise of the sorted elements.
  @inlinable
  public func sortedValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil
  ) -> Promise<[T.Element]> {
    map(on: on, flags: flags, SequenceBodies.sortedValues)
  }
}
