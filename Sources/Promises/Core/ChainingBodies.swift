/// The bodies of the chaining methods that ``Thenable`` and ``CancellableThenable`` both offer,
/// written once.
///
/// The two protocols return different kinds of promise (`Promise<U>` and a member of the same
/// chain, `CancellablePromise<U>`), which Swift cannot name with one generic signature, so each
/// declares its methods; what those methods do is a transformation run by the protocol's own
/// `map` or `then`, and that transformation lives here. Inlinable, so a caller's `map` is
/// specialized with the closure as before.
@usableFromInline
enum ChainingBodies {
  /// `compactMap`: the transformed value, or ``PMKError/compactMap(_:_:)`` for `nil`.
  @inlinable
  static func compactMap<T: Sendable, U: Sendable>(
    _ transform: @escaping @Sendable (T) throws -> U?
  ) -> @Sendable (T) throws -> U {
    { value in
      guard let transformed = try transform(value) else { throw PMKError.compactMap(value, U.self) }
      return transformed
    }
  }

  /// `get`: runs `body` with the value and passes the value on.
  @inlinable
  static func get<T: Sendable>(_ body: @escaping @Sendable (T) throws -> Void) -> @Sendable (T) throws -> T {
    { value in
      try body(value)
      return value
    }
  }
}

/// The bodies of the sequence methods that ``Thenable`` and ``CancellableThenable`` both offer
/// (`mapValues`, `filterValues`, `firstValue`, …), written once (see ``ChainingBodies``).
@usableFromInline
enum SequenceBodies {
  /// `mapValues`.
  @inlinable static func mapValues<S: Sequence & Sendable, U: Sendable>(
    _ transform: @escaping @Sendable (S.Element) throws -> U
  ) -> @Sendable (S) throws -> [U] {
    { try $0.map(transform) }
  }

  /// `flatMapValues`.
  @inlinable static func flatMapValues<S: Sequence & Sendable, U: Sequence & Sendable>(
    _ transform: @escaping @Sendable (S.Element) throws -> U
  ) -> @Sendable (S) throws -> [U.Element] {
    { try $0.flatMap(transform) }
  }

  /// `compactMapValues`.
  @inlinable static func compactMapValues<S: Sequence & Sendable, U: Sendable>(
    _ transform: @escaping @Sendable (S.Element) throws -> U?
  ) -> @Sendable (S) throws -> [U] {
    { try $0.compactMap(transform) }
  }

  /// `filterValues`.
  @inlinable static func filterValues<S: Sequence & Sendable>(
    _ isIncluded: @escaping @Sendable (S.Element) -> Bool
  ) -> @Sendable (S) -> [S.Element] {
    { $0.filter(isIncluded) }
  }

  /// `firstValue(where:)` (and `firstValue`, which accepts every element): the first element
  /// `test` accepts, or ``PMKError/emptySequence``.
  @inlinable static func firstValue<S: Sequence & Sendable>(
    where test: @escaping @Sendable (S.Element) -> Bool
  ) -> @Sendable (S) throws -> S.Element {
    { sequence in
      guard let first = sequence.first(where: test) else { throw PMKError.emptySequence }
      return first
    }
  }

  /// `lastValue`: the last element, or ``PMKError/emptySequence``.
  static func lastValue<C: Collection>(_ collection: C) throws -> C.Element {
    guard !collection.isEmpty else { throw PMKError.emptySequence }
    return collection[collection.index(collection.startIndex, offsetBy: collection.count - 1)]
  }

  /// `sortedValues`.
  @inlinable static func sortedValues<S: Sequence>(_ sequence: S) -> [S.Element] where S.Element: Comparable {
    sequence.sorted()
  }

  /// `thenFlatMap`: the results of every element's work, concatenated.
  @inlinable static func concatenated<S: Sequence>(_ results: [S]) -> [S.Element] {
    results.flatMap { $0 }
  }

  /// `thenMap` with a body returning a (not cancellable) thenable: starts the work for every
  /// element and waits for all of it (``when(fulfilled:)-([U])->Promise<[U.T]>``).
  @inlinable static func whenAll<S: Sequence & Sendable, U: Thenable>(
    _ transform: @escaping @Sendable (S.Element) throws -> U
  ) -> @Sendable (S) throws -> Promise<[U.T]> {
    { when(fulfilled: try $0.map(transform)) }
  }
}
