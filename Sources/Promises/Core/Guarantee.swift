import CancelCore
import Dispatch
import Foundation

/// A value that will arrive exactly once and can never fail: PromiseKit's `Guarantee`.
///
/// Like ``Promise`` it is one object hosting the core's lock and settle-once state machine.
/// Handlers run once, in registration order, on their `on:` queue (``conf`` `.Q` by default;
/// `nil` runs them synchronously on the resolving thread); the first resolution wins.
///
/// ```swift
/// after(seconds: 1).done { print("a second later") }
/// ```
public final class Guarantee<T: Sendable>: CoreLockHost, Thenable, SettleHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) @usableFromInline var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `state` is read and written only inside `lock.withLock`
  // (the core's lock, hosted inline under the documented hosting exception); callbacks run after
  // unlocking; `warnsIfPending` is written only inside `lock.withLock` (and read in `deinit`);
  // `storedTask` is read and replaced only inside `lock.withLock` once the guarantee is shared;
  // every other stored property is immutable.

  @usableFromInline typealias Machine = SettleStateMachine<T, PromiseCallback<T>>

  @exclusivity(unchecked) @usableFromInline var state: GuaranteeState<T>

  /// The settle-once state machine (stored in `state`, a struct generic over `T` alone).
  @inlinable var machine: Machine {
    _read { yield state.machine }
    _modify { yield &state.machine }
  }
  /// Set while a guarantee made by users is pending, cleared (under `lock`) when it settles, so
  /// that `deinit` need not inspect the generic machine.
  @exclusivity(unchecked) @usableFromInline var warnsIfPending: Bool
  /// Whether the guarantee has settled: `machine.isSettled`, in a field of a non-generic type, so
  /// that `deinit` (which runs unspecialized) skips a settled guarantee without looking up the
  /// machine's generic metadata. Guarded by `lock`.
  @exclusivity(unchecked) @usableFromInline var hasSettled = false
  /// Work this guarantee waits for that can be stopped (the timer of ``after(seconds:)``, or what
  /// `setCancellable(_:)` gave); a cancellable wrapper cancels it. Guarded by `lock`.
  @exclusivity(unchecked) @usableFromInline var storedTask: (any CancellableTask)?

  /// The work a cancellable wrapper made now would cancel (see `storedTask`).
  var task: (any CancellableTask)? { lock.withLock { storedTask } }

  /// Makes `task` the work this guarantee waits for (see `storedTask`).
  func replaceTask(with task: (any CancellableTask)?) {
    lock.withLock { storedTask = task }
  }

  /// A pending guarantee (an internal stage: no warning when it is deallocated pending).
  @inlinable init(pending: Void) {
    state = GuaranteeState(machine: Machine())
    warnsIfPending = false
    storedTask = nil
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  init(task: (any CancellableTask)?) {
    state = GuaranteeState(machine: Machine())
    warnsIfPending = false
    storedTask = task
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  @inlinable init(warnsIfPending: Bool) {
    state = GuaranteeState(machine: Machine())
    self.warnsIfPending = warnsIfPending
    storedTask = nil
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  @inlinable init(settled value: T) {
    state = GuaranteeState(machine: Machine(settled: value))
    warnsIfPending = false
    hasSettled = true
    storedTask = nil
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Creates a guarantee and calls `body` at once, on this thread, with the function that
  /// resolves it.
  ///
  /// - Parameter body: starts the work and calls `resolve` with the value, now or later, from
  ///   any thread. Only the first call counts.
  @inlinable
  public convenience init(resolver body: (@escaping @Sendable (T) -> Void) -> Void) {
    self.init(warnsIfPending: true)
    body { [self] value in self.settle(value) }
  }

  /// A guarantee that already has `value`.
  @inlinable
  public static func value(_ value: T) -> Guarantee<T> {
    Guarantee(settled: value)
  }

  /// A pending guarantee and the function that resolves it (first call wins).
  ///
  /// If the guarantee is deallocated while still pending, ``conf`` `.logHandler` receives
  /// ``LogEvent/pendingGuaranteeDeallocated``.
  @inlinable
  public static func pending() -> (guarantee: Guarantee<T>, resolve: @Sendable (T) -> Void) {
    let guarantee = Guarantee(warnsIfPending: true)
    return (guarantee, { guarantee.settle($0) })
  }

  deinit {
    if warnsIfPending {
      conf.logHandler(.pendingGuaranteeDeallocated)
    }
    // As in `Promise`: the stages still waiting are freed in a loop, not one inside the other.
    if !hasSettled, machine.hasWaiting { IterativeRelease.release(machine.takeWaiting()) }
  }

  /// The value once resolved; `nil` while pending.
  @inlinable
  public var value: T? {
    lock.withLock { machine.value }
  }

  /// `.success(value)` once resolved; `nil` while pending. Part of ``Thenable``.
  @inlinable
  public var result: Result<T>? {
    value.map { .fulfilled($0) }
  }

  // MARK: Settling and observing

  @inlinable @discardableResult
  func settle(_ value: T) -> Bool {
    let action = lock.withLock {
      warnsIfPending = false
      hasSettled = true
      return machine.settle(value)
    }
    switch action {
    case .deliver:
      deliverSettled()
      return true
    case .settled: return true
    case .alreadySettled: return false
    }
  }

  /// Adds `callback` (run at once if already resolved); returns the key that takes it back out
  /// while it waits (see ``removeCallback(_:)``), or `nil` if it ran at once.
  @inlinable @discardableResult
  func observe(_ callback: PromiseCallback<T>) -> RegistrationKey? {
    switch lock.withLock({ machine.observe(callback) }) {
    case .queued(let key): return key
    case .runNow(let callback, let value):
      _ = Self.run(callback, with: value, on: nil)
      return nil
    }
  }

  /// Takes out a callback that still waits (by the key ``observe(_:)`` returned); it is released
  /// after unlocking and never runs. Does nothing once it ran (or is running).
  @inlinable
  func removeCallback(_ key: RegistrationKey) {
    let removed = lock.withLock { machine.remove(key) }
    _ = removed
  }

  /// Part of the core's `SettleHost`.
  @inlinable
  package func takeNextCallbacks() -> (SettleCallbacks<PromiseCallback<T>>, T)? {
    lock.withLock {
      guard let callbacks = machine.takeNextCallbacks() else { return nil }
      return (callbacks, machine.value!)
    }
  }

  /// Part of the core's `SettleHost`.
  @inlinable
  package static func run(
    _ callback: consuming PromiseCallback<T>, with value: consuming T, on queue: ThreadDeliveryQueue?
  )
    -> ReadyDelivery?
  {
    callback(value, on: queue)
  }

  /// Calls `body` with `.success(value)` once resolved (synchronously on the resolving thread, or
  /// at once if already resolved). Part of ``Thenable``.
  @inlinable
  public func pipe(to body: @escaping @Sendable (Swift.Result<T, Error>) -> Void) {
    observe(.run { body(.success($0)) })
  }

  /// Calls `body` with the value once resolved, synchronously on the resolving thread (at once if
  /// already resolved).
  @inlinable
  public func pipe(to body: @escaping @Sendable (T) -> Void) {
    observe(.run(body))
  }

  /// Blocks the calling thread until the guarantee resolves and returns its value. See
  /// ``Promise/wait()`` for when this is safe.
  ///
  /// Called on the main thread, it reports ``LogEvent/waitOnMainThread`` first, as PromiseKit does.
  public func wait() -> T {
    if Thread.isMainThread { conf.logHandler(.waitOnMainThread) }
    if let value { return value }
    BlockingWait.wait { done in pipe { (_: T) in done() } }
    return value!
  }
}

extension Guarantee where T == Void {
  /// A guarantee already resolved with `()`.
  public convenience init() {
    self.init(settled: ())
  }
}

/// A guarantee's state machine, in a struct generic over `T` alone: a generic class's `deinit`
/// looks up at run time the metadata of each field of a composite generic type, and the bare
/// machine would cost three such lookups per guarantee, the struct one.
@usableFromInline
struct GuaranteeState<T: Sendable> {
  @usableFromInline var machine: SettleStateMachine<T, PromiseCallback<T>>

  @inlinable init(machine: SettleStateMachine<T, PromiseCallback<T>>) {
    self.machine = machine
  }
}
