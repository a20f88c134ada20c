import Dispatch

extension Resolver {
  /// Resolves from a completion-handler pair in the `(error, value)` order: rejects with `error`
  /// if it is not `nil`, else fulfils with `value`; rejects with
  /// ``PMKError/invalidCallingConvention`` if both are `nil`.
  public func resolve(_ error: Error?, _ value: T?) {
    resolve(value, error)
  }

  /// Resolves the promise with the standard library's `result` of any error type, unless it
  /// already resolved: the shape of a `(Result<T, E>) -> Void` completion handler.
  @inlinable @_disfavoredOverload
  public func resolve<E: Error>(_ result: Swift.Result<T, E>) {
    promise.resolve(result.mapError { $0 })
  }
}

extension Resolver where T == Void {
  /// Fulfils the `Void` promise (PromiseKit's spelling for use as a `() -> Void` handler).
  public func fulfill_() {
    fulfill(())
  }
}

extension Promise where T == Void {
  /// A new promise already fulfilled with `()`.
  public static var value: Promise<Void> { Promise() }
}

extension Guarantee where T == Void {
  /// A new guarantee already fulfilled with `()`.
  public static var value: Guarantee<Void> { Guarantee() }
}

extension Guarantee where T: Sequence, T.Element: Sendable {
  /// The elements sorted by `areInIncreasingOrder`.
  ///
  /// - Parameters:
  ///   - on: the queue the sort runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags.
  ///   - areInIncreasingOrder: whether its first argument belongs before its second.
  /// - Returns: a guarantee of the sorted elements.
  public func sortedValues(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ areInIncreasingOrder: @escaping @Sendable (T.Element, T.Element) -> Bool
  ) -> Guarantee<[T.Element]> {
    map(on: on, flags: flags) { $0.sorted(by: areInIncreasingOrder) }
  }
}
