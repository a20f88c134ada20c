/// Waits for every `Void` guarantee.
///
/// - Parameter guarantees: the guarantees to wait for.
/// - Returns: a `Void` guarantee fulfilled once all of them are.
public func when(_ guarantees: Guarantee<Void>...) -> Guarantee<Void> {
  when(guarantees: guarantees)
}

/// Waits for every guarantee.
///
/// - Parameter guarantees: the guarantees to wait for.
/// - Returns: a guarantee of every value, in argument order.
public func when<T: Sendable>(_ guarantees: Guarantee<T>...) -> Guarantee<[T]> {
  when(guarantees: guarantees)
}

/// Waits for every `Void` guarantee.
///
/// - Parameter guarantees: the guarantees to wait for.
/// - Returns: a `Void` guarantee fulfilled once all of them are.
public func when(guarantees: [Guarantee<Void>]) -> Guarantee<Void> {
  let values: Guarantee<[Void]> = when(guarantees: guarantees)
  return values.map(on: nil) { _ in () }
}

/// Waits for two guarantees of any types.
///
/// - Returns: a guarantee of both values.
public func when<U: Sendable, V: Sendable>(guarantees gu: Guarantee<U>, _ gv: Guarantee<V>) -> Guarantee<(U, V)> {
  when(guarantees: [gu.asVoid(), gv.asVoid()]).map(on: nil) { _ in (gu.value!, gv.value!) }
}

/// Waits for three guarantees of any types.
///
/// - Returns: a guarantee of the three values.
public func when<U: Sendable, V: Sendable, W: Sendable>(
  guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>
) -> Guarantee<(U, V, W)> {
  when(guarantees: [gu.asVoid(), gv.asVoid(), gw.asVoid()]).map(on: nil) { _ in (gu.value!, gv.value!, gw.value!) }
}

/// Waits for four guarantees of any types.
///
/// - Returns: a guarantee of the four values.
public func when<U: Sendable, V: Sendable, W: Sendable, X: Sendable>(
  guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, _ gx: Guarantee<X>
) -> Guarantee<(U, V, W, X)> {
  when(guarantees: [gu.asVoid(), gv.asVoid(), gw.asVoid(), gx.asVoid()]).map(on: nil) { _ in
    (gu.value!, gv.value!, gw.value!, gx.value!)
  }
}

/// Waits for five guarantees of any types.
///
/// - Returns: a guarantee of the five values.
public func when<U: Sendable, V: Sendable, W: Sendable, X: Sendable, Y: Sendable>(
  guarantees gu: Guarantee<U>, _ gv: Guarantee<V>, _ gw: Guarantee<W>, _ gx: Guarantee<X>, _ gy: Guarantee<Y>
) -> Guarantee<(U, V, W, X, Y)> {
  when(guarantees: [gu.asVoid(), gv.asVoid(), gw.asVoid(), gx.asVoid(), gy.asVoid()]).map(on: nil) { _ in
    (gu.value!, gv.value!, gw.value!, gx.value!, gy.value!)
  }
}

/// Waits for every thenable of any value type to fulfil; rejects as soon as one rejects.
///
/// - Parameter thenables: promises and guarantees of any value types.
/// - Returns: a promise of every value, in input order.
///
/// Disfavored: a call that also fits `when(fulfilled:)` (thenables of one
/// type) keeps meaning that one.
@_disfavoredOverload
public func when(fulfilled thenables: [any Thenable]) -> Promise<[any Sendable]> {
  guard !thenables.isEmpty else { return .value([]) }
  let result = Promise<[any Sendable]>(pending: ())
  let countdown = Countdown(count: thenables.count)
  for thenable in thenables {
    thenable.pipeAny { outcome in
      switch outcome {
      case .failure(let error):
        result.settle(.failure(error))
      case .success:
        guard countdown.arrive() else { return }
        // Every input has fulfilled: their values are settled for good.
        result.settle(.success(thenables.map { $0.anyValue! }))
      }
    }
  }
  return result
}

extension Thenable {
  /// Calls `body` with the result, its value as `any Sendable`, once resolved.
  fileprivate func pipeAny(_ body: @escaping @Sendable (Swift.Result<any Sendable, Error>) -> Void) {
    pipe { body($0.map { $0 as any Sendable }) }
  }

  /// The value as `any Sendable` if fulfilled.
  fileprivate var anyValue: (any Sendable)? {
    value.map { $0 as any Sendable }
  }
}
