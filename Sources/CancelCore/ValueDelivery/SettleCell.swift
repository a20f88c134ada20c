/// A settle-once value with callbacks, as a standalone object: `CoreLock` + `SettleStateMachine`
/// hosted the standard way, delivered by the `SettleHost` loop.
///
/// Facade objects on a hot path (a promise, a future) host the lock and the machine inline
/// instead, to stay one allocation; this class is the reference for how to do it and serves
/// everything else (aggregators, tests).
//
// Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`;
// callbacks run after unlocking.
package final class SettleCell<Value: Sendable>: CoreLockHost, SettleHost, DeferredDelivery, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  /// A callback waiting for the value.
  package struct Callback: Sendable {
    let run: @Sendable (Value) -> Void
  }

  @exclusivity(unchecked) private var machine = SettleStateMachine<Value, Callback>()

  /// A pending cell.
  package init() {
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// A settled cell.
  package init(settled value: Value) {
    machine = SettleStateMachine(settled: value)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// The value, once settled.
  package var value: Value? { lock.withLock { machine.value } }

  /// The number of callbacks waiting.
  package var waitingCount: Int { lock.withLock { machine.waitingCount } }

  /// Settles with `value`; `false` if already settled. Waiting callbacks run on this thread, in
  /// registration order, before this returns (nested settles are queued, not recursed).
  @discardableResult
  package func settle(_ value: Value) -> Bool {
    switch lock.withLock({ machine.settle(value) }) {
    case .deliver:
      SettleDelivery.deliver(self)
      return true
    case .settled: return true
    case .alreadySettled: return false
    }
  }

  /// Runs `run` with the value once settled: now on this thread if already delivered, else on the
  /// settling thread. Returns the key that removes it while it waits.
  @discardableResult
  package func observe(_ run: @escaping @Sendable (Value) -> Void) -> RegistrationKey? {
    switch lock.withLock({ machine.observe(Callback(run: run)) }) {
    case .queued(let key): return key
    case .runNow(let callback, let value):
      callback.run(value)
      return nil
    }
  }

  /// Removes a waiting callback; `true` if it was still waiting.
  package func remove(_ key: RegistrationKey) -> Bool {
    lock.withLock { machine.remove(key) } != nil
  }

  /// See `SettleStateMachine.removeUnlessLast`.
  package func removeUnlessLast(_ key: RegistrationKey) -> SettleStateMachine<Value, Callback>.RemoveUnlessLastResult {
    lock.withLock { machine.removeUnlessLast(key) }
  }

  /// Part of `SettleHost`.
  package func takeNextCallbacks() -> (SettleCallbacks<Callback>, Value)? {
    lock.withLock {
      guard let callbacks = machine.takeNextCallbacks() else { return nil }
      return (callbacks, machine.value!)
    }
  }

  /// Part of `SettleHost`.
  package static func run(_ callback: consuming Callback, with value: consuming Value, on queue: ThreadDeliveryQueue?)
    -> ReadyDelivery?
  {
    callback.run(value)
    return nil
  }
}
