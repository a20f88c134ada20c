/// A future of both inputs' values.
///
/// It succeeds once every input succeeded; otherwise it ends like the first input that failed
/// or was cancelled, at that moment. A cancel request on it is forwarded to every input, each
/// under the tree rule (an input with other pending consumers is left running, and the combined
/// future then completes cancelled at once).
///
/// - Returns: a future of the values, in argument order.
@inlinable
public func combineFutures<A: Sendable, B: Sendable>(_ a: Future<A>, _ b: Future<B>) -> Future<(A, B)> {
  joinFutures([a, b]) { (a.value!, b.value!) }
}

/// A future of the three inputs' values. See ``combineFutures(_:_:)``.
///
/// - Returns: a future of the values, in argument order.
@inlinable
public func combineFutures<A: Sendable, B: Sendable, C: Sendable>(
  _ a: Future<A>, _ b: Future<B>, _ c: Future<C>
) -> Future<(A, B, C)> {
  joinFutures([a, b, c]) { (a.value!, b.value!, c.value!) }
}

/// A future of the four inputs' values. See ``combineFutures(_:_:)``.
///
/// - Returns: a future of the values, in argument order.
@inlinable
public func combineFutures<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(
  _ a: Future<A>, _ b: Future<B>, _ c: Future<C>, _ d: Future<D>
) -> Future<(A, B, C, D)> {
  joinFutures([a, b, c, d]) { (a.value!, b.value!, c.value!, d.value!) }
}

/// A future of the five inputs' values. See ``combineFutures(_:_:)``.
///
/// - Returns: a future of the values, in argument order.
@inlinable
public func combineFutures<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable>(
  _ a: Future<A>, _ b: Future<B>, _ c: Future<C>, _ d: Future<D>, _ e: Future<E>
) -> Future<(A, B, C, D, E)> {
  joinFutures([a, b, c, d, e]) { (a.value!, b.value!, c.value!, d.value!, e.value!) }
}
