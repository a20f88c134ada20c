import Synchronization

/// The baseline of the promise benchmarks: the simplest correct promise, a `Mutex`-guarded
/// optional value with an array of callbacks (each wrapped in a struct, so storing one costs no
/// extra allocation), resolved once, callbacks run after unlocking. No queues, no recursion guard:
/// it is what a careful hand-written promise costs, not a straw man.
final class MutexPromise<Value: Sendable>: Sendable {
  struct Callback {
    let body: @Sendable (Value) -> Void
  }

  struct State {
    var value: Value?
    var callbacks: [Callback] = []
  }

  let state = Mutex(State())

  init() {}

  init(value: Value) {
    state.withLock { $0.value = value }
  }

  /// Resolves once; later calls are ignored.
  func resolve(_ value: Value) {
    let callbacks: [Callback]? = state.withLock { state in
      guard state.value == nil else { return nil }
      state.value = value
      defer { state.callbacks = [] }
      return state.callbacks
    }
    for callback in callbacks ?? [] { callback.body(value) }
  }

  /// Runs `body` with the value once resolved (at once if it already is).
  func observe(_ body: @escaping @Sendable (Value) -> Void) {
    let value: Value? = state.withLock { state in
      if let value = state.value { return value }
      state.callbacks.append(Callback(body: body))
      return nil
    }
    if let value { body(value) }
  }

  /// A new promise resolved with `transform` of this one's value.
  func map<U: Sendable>(_ transform: @escaping @Sendable (Value) -> U) -> MutexPromise<U> {
    let next = MutexPromise<U>()
    observe { next.resolve(transform($0)) }
    return next
  }
}
