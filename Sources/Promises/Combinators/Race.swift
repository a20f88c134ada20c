/// Resolves like the first thenable to resolve, fulfilled or rejected.
///
/// - Parameter thenables: the competitors; an empty array rejects with ``PMKError/badInput``.
/// - Returns: a promise resolved like the winner.
@inlinable
public func race<U: Thenable>(_ thenables: [U]) -> Promise<U.T> {
  guard !thenables.isEmpty else { return Promise(error: PMKError.badInput) }
  let result = Promise<U.T>(pending: ())
  for thenable in thenables {
    thenable.pipe { result.settle($0) }
  }
  return result
}

/// Resolves like the first thenable to resolve (variadic form of ``race(_:)-([U])``).
///
/// - Parameter thenables: the competitors; none rejects with ``PMKError/badInput``.
/// - Returns: a promise resolved like the winner.
@inlinable
public func race<U: Thenable>(_ thenables: U...) -> Promise<U.T> {
  race(thenables)
}

/// Resolves with the first guarantee to resolve.
///
/// - Parameter guarantees: the competitors. With none, nothing can win: the result never resolves
///   (a guarantee cannot reject; the promise forms reject with ``PMKError/badInput`` instead).
/// - Returns: a guarantee of the winner's value.
@inlinable
public func race<T: Sendable>(_ guarantees: Guarantee<T>...) -> Guarantee<T> {
  let result = Guarantee<T>(pending: ())
  for guarantee in guarantees {
    guarantee.pipe { (value: T) in result.settle(value) }
  }
  return result
}

/// Fulfils with the first thenable to fulfil; rejects with ``PMKError/noWinner`` once every one
/// was rejected.
///
/// - Parameter thenables: the competitors; an empty array rejects with ``PMKError/badInput``.
/// - Returns: a promise of the first value.
@inlinable
public func race<U: Thenable>(fulfilled thenables: [U]) -> Promise<U.T> {
  guard !thenables.isEmpty else { return Promise(error: PMKError.badInput) }
  let result = Promise<U.T>(pending: ())
  let rejections = Countdown(count: thenables.count)
  for thenable in thenables {
    thenable.pipe { outcome in
      switch outcome {
      case .success: result.settle(outcome)
      case .failure:
        if rejections.arrive() { result.settle(.failure(PMKError.noWinner)) }
      }
    }
  }
  return result
}
