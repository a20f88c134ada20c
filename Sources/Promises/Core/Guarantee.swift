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
public class Guarantee<T: Sendable>: _PromiseValue<T?>, CoreLockHost, Thenable, SettleHost,
  @unchecked Sendable
{
  // Not `final` only so that a `map(on: nil)` stage (`GuaranteeMapStage`) can carry its transform
  // in the guarantee object itself, as `Promise`'s `MapStage` does; it is not `open`, so no other
  // module can subclass it, and every member is `final`.
  // Laid out as `Promise` is (see `Promise.coreLockStorage`): the value in the inherited `stored`,
  // then the two flags and the lock in one word, then the machine, whose own value is `Void`. A
  // generic class's `deinit` runs unspecialized: this way it destroys no field whose layout
  // depends on `T` other than `stored`, whose metadata the object carries, and looks no generic
  // metadata up (a machine holding the value cost each guarantee three such look-ups).
  // Safety of `@unchecked Sendable`: `machine`, `stored`, `hasSettled` and `warnsIfPending` are
  // read and written only inside `lock.withLock` (the core's lock, hosted inline under the
  // documented hosting exception; `warnsIfPending` and `hasSettled` are also read in `deinit`);
  // callbacks run after unlocking; `storedTask` is read and replaced only inside `lock.withLock`
  // once the guarantee is shared; every other stored property is immutable.

  @usableFromInline typealias Machine = SettleStateMachine<Void, PromiseCallback<T>>

  /// Set while a guarantee made by users is pending, cleared (under `lock`) when it settles, so
  /// that `deinit` need not inspect the generic machine.
  @exclusivity(unchecked) @usableFromInline final var warnsIfPending: Bool
  /// Whether the guarantee has settled (`machine.isSettled`, kept where `deinit` reads it without
  /// the machine). Guarded by `lock`.
  @exclusivity(unchecked) @usableFromInline final var hasSettled: Bool
  /// The storage of `lock`, in the word it shares with the two flags above (see `coreLockStorage`).
  @exclusivity(unchecked) @usableFromInline final var lockStorage = CoreLockStorage()
  /// The settle-once phase and the waiting callbacks; the value itself is the inherited `stored`.
  @exclusivity(unchecked) @usableFromInline final var machine: Machine
  /// Work this guarantee waits for that can be stopped (the timer of ``after(seconds:)``, or what
  /// `setCancellable(_:)` gave); a cancellable wrapper cancels it. Boxed, so that a guarantee
  /// without one (nearly every guarantee) stores one word for it instead of an existential's five
  /// (a `map(on: nil)` stage of an `Int` then stays within the allocator's 128-byte fast bins).
  /// Guarded by `lock`.
  @exclusivity(unchecked) @usableFromInline final var storedTask: GuaranteeTask?

  /// Where `lockStorage` is: as in `Promise.coreLockStorage`, after the stored value and the two
  /// flags. Specialized code folds it to a constant offset; unspecialized code asks the object.
  @inlinable @inline(__always)
  package final var coreLockStorage: UnsafeMutablePointer<CoreLockStorage> {
    let address =
      _isConcrete(T.self)
      ? _getUnsafePointerToStoredProperties(self) + promiseLockOffset(storedSize: MemoryLayout<T?>.size)
      : unspecializedLockStorageAddress()
    return address.assumingMemoryBound(to: CoreLockStorage.self)
  }

  /// The work a cancellable wrapper made now would cancel (see `storedTask`).
  @usableFromInline final var task: (any CancellableTask)? { lock.withLock { storedTask?.task } }

  /// Makes `task` the work this guarantee waits for (see `storedTask`). The one it replaces is
  /// released after unlocking (releasing it may run its `deinit`).
  final func replaceTask(with task: (any CancellableTask)?) {
    let box = task.map(GuaranteeTask.init)
    let replaced = lock.withLock {
      let replaced = storedTask
      storedTask = box
      return replaced
    }
    _ = replaced
  }

  /// Checks, at the end of every initializer, that the lock is where `coreLockStorage` says, and
  /// (in debug builds, and in `PromiseLayoutTests` for many types) that the machine is where its
  /// erased view looks (see `ErasedCallbackMachine`). The second is an assertion because as a
  /// precondition it changed what the optimizer inlines.
  @inlinable @inline(__always)
  final func checkLayout() {
    precondition(hostsLock(at: &lockStorage), "Guarantee: the lock is not where coreLockStorage says")
    assert(erasedMachine(endsAt: &storedTask, lockStorage: coreLockStorage), "Guarantee: the machine is misplaced")
  }

  /// A pending guarantee (an internal stage: no warning when it is deallocated pending).
  @inlinable init(pending: Void) {
    warnsIfPending = false
    hasSettled = false
    machine = Machine()
    storedTask = nil
    super.init(stored: nil)
    checkLayout()
  }

  init(task: (any CancellableTask)?) {
    warnsIfPending = false
    hasSettled = false
    machine = Machine()
    storedTask = task.map(GuaranteeTask.init)
    super.init(stored: nil)
    checkLayout()
  }

  @inlinable init(warnsIfPending: Bool) {
    self.warnsIfPending = warnsIfPending
    hasSettled = false
    machine = Machine()
    storedTask = nil
    super.init(stored: nil)
    checkLayout()
  }

  @inlinable init(settled value: T) {
    warnsIfPending = false
    hasSettled = true
    machine = Machine(settled: ())
    storedTask = nil
    super.init(stored: value)
    checkLayout()
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
    // Through the machine's erased view (`ErasedCallbackMachine`): this code runs unspecialized.
    if !hasSettled { releaseWaitingCallbacks(ofMachineAt: machineAddress(lockStorage: coreLockStorage)) }
  }

  /// The value once resolved; `nil` while pending.
  @inlinable
  public final var value: T? {
    lock.withLock { stored }
  }

  /// The value, when a callback added now would run at once (see
  /// `Promise.resultForCallbackNow`); `nil` otherwise.
  @inlinable
  package final var valueForCallbackNow: T? {
    lock.withLock { machine.runsCallbacksAtOnce ? stored : nil }
  }

  /// `.success(value)` once resolved; `nil` while pending. Part of ``Thenable``.
  @inlinable
  public final var result: Result<T>? {
    value.map { .fulfilled($0) }
  }

  // MARK: Settling and observing

  @inlinable @discardableResult
  final func settle(_ value: T) -> Bool {
    finishSettle(settleLeavingDelivery(value))
  }

  /// Settles as `settle(_:)` does, from a stage's callback running in the delivery that owns
  /// `queue`, as `Promise.settle(_:handingBackOn:)` does: returns `true` if the caller must hand
  /// this guarantee's delivery back (``readyDelivery(of:)``), `false` if it was delivered, queued,
  /// or nothing waits.
  @inlinable
  final func settle(_ value: consuming T, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    handsBackDelivery(after: settleLeavingDelivery(value), on: queue)
  }

  /// The settle step, under the lock; the caller delivers on `.deliver`.
  @inlinable @inline(__always)
  final func settleLeavingDelivery(_ value: consuming T) -> Machine.SettleAction {
    var value = Optional(value)
    return lock.withLock {
      warnsIfPending = false
      let action = machine.settle(())
      if action != .alreadySettled {
        hasSettled = true
        stored = value.take()
      }
      return action
    }
  }

  /// Adds `callback` (run at once if already resolved); returns the key that takes it back out
  /// while it waits (see ``removeCallback(_:)``), or `nil` if it ran at once.
  @inlinable @discardableResult
  final func observe(_ callback: consuming PromiseCallback<T>) -> RegistrationKey? {
    // Moved in and out of an optional, as in `Promise.observe(_:)`: the callback may own a stage,
    // and a copy would retain it.
    var offered = Optional(callback)
    let (key, ready) = lock.withLock { () -> (RegistrationKey?, T?) in
      switch machine.observe(offered.take()!) {
      case .queued(let key): return (key, nil)
      case .runNow(let callback, _):
        offered = callback
        return (nil, stored)
      }
    }
    if let ready, let callback = offered.take() { _ = Self.run(callback, with: ready, on: nil) }
    return key
  }

  /// Takes out a callback that still waits (by the key ``observe(_:)`` returned); it is released
  /// after unlocking and never runs. Does nothing once it ran (or is running).
  @inlinable
  final func removeCallback(_ key: RegistrationKey) {
    let removed = lock.withLock { machine.remove(key) }
    _ = removed
  }

  /// Part of the core's `SettleHost`.
  @inlinable
  package final func takeNextCallbacks() -> (SettleCallbacks<PromiseCallback<T>>, T)? {
    lock.withLock {
      guard let callbacks = machine.takeNextCallbacks() else { return nil }
      return (callbacks, stored!)
    }
  }

  /// Part of the core's `SettleHost`.
  @inlinable
  package static func run(
    _ callback: consuming PromiseCallback<T>, with value: consuming T, on queue: ThreadDeliveryQueue?
  )
    -> ReadyDelivery?
  {
    callback(consume value, on: queue)
  }

  /// Calls `body` with `.success(value)` once resolved (synchronously on the resolving thread, or
  /// at once if already resolved). Part of ``Thenable``.
  @inlinable
  public final func pipe(to body: @escaping @Sendable (Swift.Result<T, Error>) -> Void) {
    observe(.run { body(.success($0)) })
  }

  /// Calls `body` with the value once resolved, synchronously on the resolving thread (at once if
  /// already resolved).
  @inlinable
  public final func pipe(to body: @escaping @Sendable (T) -> Void) {
    observe(.run(body))
  }

  /// Blocks the calling thread until the guarantee resolves and returns its value. See
  /// ``Promise/wait()`` for when this is safe.
  ///
  /// Called on the main thread, it reports ``LogEvent/waitOnMainThread`` first, as PromiseKit does.
  public final func wait() -> T {
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

/// The work a ``Guarantee`` waits for that can be stopped, kept by reference (see
/// `Guarantee.storedTask`).
@usableFromInline
final class GuaranteeTask: Sendable {
  /// The work.
  @usableFromInline let task: any CancellableTask

  init(_ task: any CancellableTask) {
    self.task = task
  }
}
