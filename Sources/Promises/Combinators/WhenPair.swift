import CancelCore

/// The promise `when(fulfilled:_:)` of two thenables returns: it holds the two values as they
/// arrive and waits in each input's callbacks as itself.
///
/// One object, instead of a stage per input erasing its value, an array of them, a gathering, a
/// closure per input and a last stage casting the values back: no allocation besides itself when
/// the inputs are promises, and no dynamic cast. It holds the values, not the inputs, so pending
/// inputs dropped together are freed (each input's callback holds this promise, not the other
/// input).
@usableFromInline
final class WhenPair<A: Sendable, B: Sendable>: Promise<(A, B)>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `first`, `second` and `remaining` are read and written only
  // inside `lock.withLock` (the promise's own lock, the core's, hosted inline); the state
  // inherited from `Promise` is guarded by the same lock.

  /// The first input's value, once it arrived.
  @usableFromInline @exclusivity(unchecked) var first: A?
  /// The second input's value, once it arrived.
  @usableFromInline @exclusivity(unchecked) var second: B?
  /// How many values have yet to arrive.
  @usableFromInline @exclusivity(unchecked) var remaining = 2

  @inlinable
  init() {
    super.init(pending: ())
  }

  /// Registers on both inputs and returns this promise.
  @inlinable
  func attach<U: Thenable, V: Thenable>(_ pu: U, _ pv: V) -> Promise<(A, B)> where U.T == A, V.T == B {
    // (The casts fold away where this is specialized.)
    if let promise = pu as? Promise<A> {
      promise.observe(
        .stage(self) { join, result, queue in
          let join = unsafeDowncast(consume join, to: WhenPair<A, B>.self)
          guard join.arrive(consume result, store: { $0.first = $1 }, handingBackOn: queue) else { return nil }
          return Promise<(A, B)>.readyDelivery(of: join)
        })
    } else {
      pu.pipe { [self] result in _ = arrive(result, store: { $0.first = $1 }, handingBackOn: nil) }
    }
    if let promise = pv as? Promise<B> {
      promise.observe(
        .stage(self) { join, result, queue in
          let join = unsafeDowncast(consume join, to: WhenPair<A, B>.self)
          guard join.arrive(consume result, store: { $0.second = $1 }, handingBackOn: queue) else { return nil }
          return Promise<(A, B)>.readyDelivery(of: join)
        })
    } else {
      pv.pipe { [self] result in _ = arrive(result, store: { $0.second = $1 }, handingBackOn: nil) }
    }
    return self
  }

  /// One input's result: a rejection rejects the pair at once; a value is stored with `store`
  /// (under the lock), and the last one fulfils the pair. Returns whether the caller hands this
  /// promise's delivery back (see `Promise.settle(_:handingBackOn:)`).
  @inlinable
  func arrive<Value>(
    _ result: consuming Swift.Result<Value, Error>, store: (WhenPair, Value) -> Void,
    handingBackOn queue: ThreadDeliveryQueue?
  ) -> Bool {
    let value: Value
    switch consume result {
    case .failure(let error): return settle(.failure(consume error), handingBackOn: queue)
    case .success(let arrived): value = arrived
    }
    let both = lock.withLock { () -> (A, B)? in
      store(self, value)
      remaining -= 1
      guard remaining == 0, let first, let second else { return nil }
      return (first, second)
    }
    guard let both else { return false }
    return settle(.success(both), handingBackOn: queue)
  }
}
