import Dispatch

/// Waits for every thenable to fulfil; rejects as soon as one rejects, with its error.
///
/// Inputs resolve in any order on any thread; the values keep the input order. An empty input
/// fulfils at once with `[]`. A hundred thousand inputs need no deeper stack than one.
///
/// - Parameter thenables: the promises or guarantees to wait for.
/// - Returns: a promise of every value, in input order.
@inlinable
public func when<U: Thenable>(fulfilled thenables: [U]) -> Promise<[U.T]> {
  guard !thenables.isEmpty else { return .value([]) }
  let result = Promise<[U.T]>(pending: ())
  // The callbacks gather the values rather than read them from the inputs at the end: holding
  // the inputs, the pending ones would keep each other alive once dropped (see `Gathering`).
  let gathering = Gathering<U.T>(count: thenables.count)
  for (index, thenable) in thenables.enumerated() {
    thenable.pipe { outcome in
      switch outcome {
      case .failure(let error):
        result.settle(.failure(error))
      case .success(let value):
        guard let values = gathering.arrive(index, value) else { return }
        result.settle(.success(values))
      }
    }
  }
  return result
}

/// Waits for every thenable to fulfil (variadic form of ``when(fulfilled:)-([U])->Promise<[U.T]>``).
///
/// - Parameter thenables: the promises or guarantees to wait for.
/// - Returns: a promise of every value, in argument order.
///
/// Two to five arguments whose result could be either an array or a tuple get the tuple
/// (PromiseKit's `when(fulfilled:_:…)`); this form is disfavored so those calls are not ambiguous.
@inlinable
@_disfavoredOverload
public func when<U: Thenable>(fulfilled thenables: U...) -> Promise<[U.T]> {
  when(fulfilled: thenables)
}

/// Waits for every `Void` thenable to fulfil; rejects as soon as one rejects.
///
/// - Parameter thenables: the promises or guarantees to wait for.
/// - Returns: a `Void` promise.
@inlinable
public func when<U: Thenable>(fulfilled thenables: [U]) -> Promise<Void> where U.T == Void {
  let values: Promise<[Void]> = when(fulfilled: thenables)
  return values.map(on: nil) { _ in () }
}

/// Waits for every `Void` thenable to fulfil (variadic).
///
/// - Parameter thenables: the promises or guarantees to wait for.
/// - Returns: a `Void` promise.
@inlinable
public func when<U: Thenable>(fulfilled thenables: U...) -> Promise<Void> where U.T == Void {
  let values: Promise<[Void]> = when(fulfilled: thenables)
  return values.map(on: nil) { _ in () }
}

/// Waits for two thenables to fulfil; rejects as soon as one rejects.
///
/// - Returns: a promise of both values.
@inlinable
public func when<U: Thenable, V: Thenable>(fulfilled pu: U, _ pv: V) -> Promise<(U.T, V.T)> {
  // One promise holding the values as they arrive (see `WhenPair`).
  WhenPair<U.T, V.T>().attach(pu, pv)
}

/// Waits for three thenables to fulfil; rejects as soon as one rejects.
///
/// - Returns: a promise of the three values.
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable>(
  fulfilled pu: U, _ pv: V, _ pw: W
) -> Promise<(U.T, V.T, W.T)> {
  when(fulfilled: [pu.erased, pv.erased, pw.erased]).map(on: nil) { ($0[0] as! U.T, $0[1] as! V.T, $0[2] as! W.T) }
}

/// Waits for four thenables to fulfil; rejects as soon as one rejects.
///
/// - Returns: a promise of the four values.
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable>(
  fulfilled pu: U, _ pv: V, _ pw: W, _ px: X
) -> Promise<(U.T, V.T, W.T, X.T)> {
  when(fulfilled: [pu.erased, pv.erased, pw.erased, px.erased]).map(on: nil) {
    ($0[0] as! U.T, $0[1] as! V.T, $0[2] as! W.T, $0[3] as! X.T)
  }
}

/// Waits for five thenables to fulfil; rejects as soon as one rejects.
///
/// - Returns: a promise of the five values.
@inlinable
public func when<U: Thenable, V: Thenable, W: Thenable, X: Thenable, Y: Thenable>(
  fulfilled pu: U, _ pv: V, _ pw: W, _ px: X, _ py: Y
) -> Promise<(U.T, V.T, W.T, X.T, Y.T)> {
  when(fulfilled: [pu.erased, pv.erased, pw.erased, px.erased, py.erased]).map(on: nil) {
    ($0[0] as! U.T, $0[1] as! V.T, $0[2] as! W.T, $0[3] as! X.T, $0[4] as! Y.T)
  }
}

/// Waits for every promise to resolve, fulfilled or rejected; never rejects.
///
/// - Parameter promises: the promises to wait for.
/// - Returns: a guarantee of every result, in input order.
@inlinable
public func when<T: Sendable>(resolved promises: [Promise<T>]) -> Guarantee<[Result<T>]> {
  guard !promises.isEmpty else { return .value([]) }
  let result = Guarantee<[Result<T>]>(pending: ())
  let gathering = Gathering<Result<T>>(count: promises.count)  // not the inputs: see `when(fulfilled:)`
  for (index, promise) in promises.enumerated() {
    promise.pipe { (outcome: Swift.Result<T, Error>) in
      guard let outcomes = gathering.arrive(index, Result(outcome)) else { return }
      result.settle(outcomes)
    }
  }
  return result
}

/// Waits for every promise to resolve (variadic form of ``when(resolved:)-([Promise<T>])``).
///
/// - Parameter promises: the promises to wait for.
/// - Returns: a guarantee of every result, in argument order.
@inlinable
public func when<T: Sendable>(resolved promises: Promise<T>...) -> Guarantee<[Result<T>]> {
  when(resolved: promises)
}

/// Waits for every guarantee.
///
/// - Parameter guarantees: the guarantees to wait for.
/// - Returns: a guarantee of every value, in input order.
@inlinable
public func when<T: Sendable>(guarantees: [Guarantee<T>]) -> Guarantee<[T]> {
  guard !guarantees.isEmpty else { return .value([]) }
  let result = Guarantee<[T]>(pending: ())
  let gathering = Gathering<T>(count: guarantees.count)  // not the inputs: see `when(fulfilled:)`
  for (index, guarantee) in guarantees.enumerated() {
    guarantee.pipe { (value: T) in
      guard let values = gathering.arrive(index, value) else { return }
      result.settle(values)
    }
  }
  return result
}

extension Thenable {
  /// This thenable's value as `any Sendable`, so that thenables of different types can be
  /// gathered by one `when(fulfilled:)`.
  @inlinable var erased: Promise<any Sendable> {
    map(on: nil) { $0 as any Sendable }
  }
}
