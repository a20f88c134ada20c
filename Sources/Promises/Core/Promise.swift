import CancelCore
import Dispatch
import Foundation

/// A value that will be fulfilled or rejected exactly once: PromiseKit's `Promise`, built on the
/// core's settle-once state machine.
///
/// A promise is one object: it hosts the core's `CoreLock` and settle-once state machine inline,
/// so creating and fulfilling one costs a single allocation. Handlers added with `then`, `map`,
/// `done`, `catch` and the rest run **once**, in **registration order**, on the queue given as
/// `on:` (``conf`` `.Q` by default, the main queue as in PromiseKit; `on: nil` runs them
/// synchronously on the thread that resolves the promise). A handler added after the promise
/// resolved still runs, on its queue. Resolving a second time is ignored: the first resolution
/// wins.
///
/// ```swift
/// let (promise, resolver) = Promise<Int>.pending()
/// promise.map { $0 * 2 }.done { print($0) }.catch { print("failed: \($0)") }
/// resolver.fulfill(21)
/// ```
///
/// A long chain resolved synchronously never grows the stack: deliveries started from inside a
/// handler are queued on the resolving thread and run when the handler returns.
public class Promise<T: Sendable>: _PromiseValue<Swift.Result<T, Error>?>, Thenable, CatchMixin, SettleHost,
  CoreLockHost, @unchecked Sendable
{
  // Not `final` only so that the module's stage promises (`MapStage`) can carry their stage in
  // the promise object itself (one allocation per stage instead of two); it is not `open`, so no
  // other module can subclass it, and every member is `final`.
  // Safety of `@unchecked Sendable`: `machine`, `warnsIfPending`, `hasSettled`, `member` and the
  // inherited `stored` value are read and written only inside `lock.withLock` (the core's lock,
  // hosted inline under the documented hosting exception; `warnsIfPending` is also read in
  // `deinit`); callbacks run after unlocking; every other stored property is immutable.

  /// The core's settle-once machine; the promise stores its value itself, in the inherited
  /// `stored` (see `_PromiseValue`), so the machine's own value is `Void`.
  @usableFromInline typealias Machine = SettleStateMachine<Void, PromiseCallback<Swift.Result<T, Error>>>

  // Field order keeps the object small (a `map(on: nil)` stage of an `Int` promise fits the
  // allocator's 128-byte fast bins, see `PromiseObjectSizeTests`): the one-byte `warnsIfPending`
  // and `hasSettled` and the 4-byte lock share a word, then the machine.
  /// Whether deallocating this promise now would be logged: set for promises made by users while
  /// they are pending, cleared when they settle. Guarded by `lock`.
  @usableFromInline @exclusivity(unchecked) final var warnsIfPending: Bool
  /// Whether the promise has settled: `machine.isSettled`, in a field of a non-generic type, so
  /// that `deinit` (which runs unspecialized) skips a settled promise without looking up the
  /// machine's generic metadata. Guarded by `lock`.
  @usableFromInline @exclusivity(unchecked) final var hasSettled: Bool
  /// The storage of `lock`, in the word it shares with the two flags above: see `coreLockStorage`.
  @exclusivity(unchecked) @usableFromInline final var lockStorage = CoreLockStorage()
  /// The settle-once phase and the waiting callbacks; the value itself is the inherited `stored`.
  @usableFromInline @exclusivity(unchecked) final var machine: Machine
  /// For a member of a cancellable chain: the member waiting on the chain's context, which leaves
  /// the context when this promise settles (so a long-lived context stays small). Kept here rather
  /// than as a second callback, which would cost the callback list an array. Not retained (a
  /// retain and a release fewer per member): `UnretainedMember` owns the rules that make that
  /// safe. Guarded by `lock` once the promise is shared.
  @usableFromInline @exclusivity(unchecked) final var member = UnretainedMember()

  /// Where `lockStorage` is: after `stored` (the first stored property) and the two one-byte
  /// flags, at the lock's alignment, as Swift lays out a class (a subclass's fields start where its
  /// superclass's end). Every designated initializer checks it.
  ///
  /// Specialized code (a concrete `T`) folds this to a constant offset. Unspecialized code asks
  /// the object, whose metadata has `Stored`: the formula would look up the metadata of
  /// `Swift.Result<T, Error>?` on every call there.
  @inlinable @inline(__always)
  package final var coreLockStorage: UnsafeMutablePointer<CoreLockStorage> {
    let address =
      _isConcrete(T.self)
      ? _getUnsafePointerToStoredProperties(self)
        + promiseLockOffset(storedSize: MemoryLayout<Swift.Result<T, Error>?>.size)
      : unspecializedLockStorageAddress()
    return address.assumingMemoryBound(to: CoreLockStorage.self)
  }

  /// Checks, at the end of every initializer, that the lock is where `coreLockStorage` says, and
  /// (in debug builds, and in `PromiseLayoutTests` for many types) that the machine is where its
  /// erased view looks (see `ErasedCallbackMachine`). The second is an assertion because as a
  /// precondition it changed what the optimizer inlines.
  @inlinable @inline(__always)
  final func checkLayout() {
    precondition(hostsLock(at: &lockStorage), "Promise: the lock is not where coreLockStorage says")
    assert(erasedMachine(endsAt: &member, lockStorage: coreLockStorage), "Promise: the machine is misplaced")
  }

  /// A pending promise (an internal stage: no warning when it is deallocated pending).
  @inlinable init(pending: Void) {
    machine = Machine()
    warnsIfPending = false
    hasSettled = false
    super.init(stored: nil)
    checkLayout()
  }

  @inlinable init(warnsIfPending: Bool) {
    machine = Machine()
    self.warnsIfPending = warnsIfPending
    hasSettled = false
    super.init(stored: nil)
    checkLayout()
  }

  @inlinable init(settled result: Swift.Result<T, Error>) {
    machine = Machine(settled: ())
    warnsIfPending = false
    hasSettled = true
    super.init(stored: result)
    checkLayout()
  }

  /// Creates a promise and calls `body` at once, on this thread, with its resolver.
  ///
  /// If `body` throws, the promise is rejected with the error (unless `body` resolved it first).
  ///
  /// - Parameter body: starts the work and resolves the promise through the resolver, now or later.
  public convenience init(resolver body: (Resolver<T>) throws -> Void) {
    self.init(warnsIfPending: true)
    let resolver = Resolver(self)
    do {
      try body(resolver)
    } catch {
      resolver.reject(error)
    }
  }

  /// Creates a promise already rejected with `error`.
  public convenience init(error: Error) {
    self.init(settled: .failure(error))
  }

  /// A promise already fulfilled with `value`.
  @inlinable
  public static func value(_ value: T) -> Promise<T> {
    Promise(settled: .success(value))
  }

  /// A pending promise and the resolver that settles it.
  ///
  /// If the promise is deallocated while still pending, ``conf`` `.logHandler` receives
  /// ``LogEvent/pendingPromiseDeallocated``.
  @inlinable
  public static func pending() -> (promise: Promise<T>, resolver: Resolver<T>) {
    let promise = Promise(warnsIfPending: true)
    return (promise, Resolver(promise))
  }

  deinit {
    if warnsIfPending {
      conf.logHandler(.pendingPromiseDeallocated)
    }
    // A pending promise still holds the stages waiting on it, and they the stages after them:
    // freed here, one inside the other, a long chain would overflow the stack. The core frees
    // them in a loop instead. (A settled promise handed its callbacks out: nothing to do.)
    // Through the machine's erased view (`ErasedCallbackMachine`): this code runs unspecialized.
    if !hasSettled { releaseWaitingCallbacks(ofMachineAt: machineAddress(lockStorage: coreLockStorage)) }
  }

  // MARK: State

  /// The result once resolved; `nil` while pending.
  @inlinable
  public final var result: Result<T>? {
    settledResult.map(Result.init)
  }

  /// The result once resolved, as the standard library's result; `nil` while pending.
  @inlinable
  package final var settledResult: Swift.Result<T, Error>? {
    lock.withLock { stored }
  }

  /// The result, when a callback added now would run at once: settled, and every callback
  /// registered before was handed out; `nil` otherwise. What a stage that runs its body inside the
  /// call checks (`thenSettled`, `CancelContext.mapSettled`): while the promise's callbacks are
  /// still being delivered, a new stage waits behind them, in registration order.
  @inlinable
  package final var resultForCallbackNow: Swift.Result<T, Error>? {
    lock.withLock { machine.runsCallbacksAtOnce ? stored : nil }
  }

  // MARK: Settling and observing (the facade's two primitives)

  /// Settles with `result` unless already settled. Waiting callbacks run on this thread, in
  /// registration order, before this returns (or, inside another delivery, when it returns to the
  /// delivery loop). Returns whether this call settled the promise.
  @inlinable @discardableResult
  final func settle(_ result: consuming Swift.Result<T, Error>) -> Bool {
    finishSettle(settleLeavingDelivery(result))
  }

  /// Settles as a ``Resolver`` does: as `settle(_:)`, without reporting whether this call settled.
  @inlinable
  final func resolve(_ result: consuming Swift.Result<T, Error>) {
    if case .deliver = settleLeavingDelivery(result) { deliverSettled() }
  }

  /// Settles as `settle(_:)` does, from a stage's callback running in the delivery that owns
  /// `queue`: if callbacks wait and nothing is queued, leaves this promise's delivery for that
  /// delivery to run next (the tail call of a chain) instead of queueing it.
  ///
  /// - Returns: `true` if the caller must hand this promise's delivery back
  ///   (``readyDelivery(of:)``); `false` if it was delivered, queued, or nothing waits. (A flag
  ///   rather than the delivery itself: the stage's callback then moves the reference it owns into
  ///   the delivery, where a method would retain `self` for it.)
  @inlinable
  final func settle(_ result: consuming Swift.Result<T, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    handsBackDelivery(after: settleLeavingDelivery(result), on: queue)
  }

  /// The settle step, under the lock: the one way a promise settles. A member of a cancellable
  /// chain also claims the chain's cancel (once it started, the cancel error wins and is recorded)
  /// and leaves its context, see ``UnretainedMember``; the caller delivers on `.deliver`.
  ///
  /// `result` is moved into the promise, not copied: a rejection's error is reference counted, and
  /// a cancel that sweeps a long chain settles every stage with the same error, so each copy
  /// would be one more atomic operation on one shared object per stage.
  @inlinable @inline(__always)
  final func settleLeavingDelivery(_ result: consuming Swift.Result<T, Error>) -> Machine.SettleAction {
    var result = Optional(result)
    let (action, leftList) = lock.withLock { () -> (Machine.SettleAction, CancelMember?) in
      warnsIfPending = false
      // Not retained: the member is alive while this lock is held and the promise refers to it
      // (see `UnretainedMember`), and leaving is this thread's last access to it. Once it has left,
      // a cancel that took the context's list may free it on its own thread; this thread then
      // holds no reference whose release could be the last one, here under the lock.
      let held = self.member.takeUnretained()
      let action = machine.settle(())
      if action != .alreadySettled {
        hasSettled = true
        held?._withUnsafeGuaranteedRef { UnretainedMember.claimCancel(of: $0, for: &result) }
        stored = result.take()
      }
      return (action, held?._withUnsafeGuaranteedRef { $0.leaveSource() })
    }
    // Released after unlocking: the context list's reference to the member, if it still waited.
    // The last member of a context that went away while it waited closes its source now.
    if let leftList { leftList.closeSourceIfDrained() }
    return action
  }

  /// Adds a callback: it runs once settled, at once on this thread if already settled.
  ///
  /// - Returns: the key that takes the callback back out while it waits (`removeCallback(_:)`);
  ///   `nil` if it ran at once.
  @inlinable @discardableResult
  final func observe(_ callback: consuming PromiseCallback<Swift.Result<T, Error>>) -> RegistrationKey? {
    // Moved in and out of an optional: the callback may own a stage, and a copy would retain it.
    var offered = Optional(callback)
    let (key, ready) = lock.withLock { () -> (RegistrationKey?, Swift.Result<T, Error>?) in
      switch machine.observe(offered.take()!) {
      case .queued(let key): return (key, nil)
      case .runNow(let callback, _):
        offered = callback
        return (nil, stored)
      }
    }
    // Without the delivery's queue at hand, a stage run now delivers itself (at once, or queued
    // behind the delivery running on this thread): it hands nothing back.
    if let ready, let callback = offered.take() { _ = Self.run(callback, with: ready, on: nil) }
    return key
  }

  /// Part of the core's `SettleHost`: the next callbacks and the stored result, under the lock.
  @inlinable
  package final func takeNextCallbacks() -> (
    SettleCallbacks<PromiseCallback<Swift.Result<T, Error>>>, Swift.Result<T, Error>
  )? {
    lock.withLock {
      // Moved out, not mapped: `Optional.map` copies the callbacks (a retain and a release each).
      guard let callbacks = machine.takeNextCallbacks() else { return nil }
      return (callbacks, stored!)
    }
  }

  /// Part of the core's `SettleHost`: runs one callback, handing a stage the reference the
  /// callback owns and the value given.
  @inlinable
  package static func run(
    _ callback: consuming PromiseCallback<Swift.Result<T, Error>>, with value: consuming Swift.Result<T, Error>,
    on queue: ThreadDeliveryQueue?
  ) -> ReadyDelivery? {
    callback(consume value, on: queue)
  }

  /// Calls `body` with the result once this promise resolves: synchronously on the resolving
  /// thread, or at once on this thread if it already resolved. The primitive every other method
  /// is built on.
  @inlinable
  public final func pipe(to body: @escaping @Sendable (Swift.Result<T, Error>) -> Void) {
    observe(.run(body))
  }

  // MARK: Blocking

  /// Blocks the calling thread until the promise resolves, then returns its value or throws its
  /// error.
  ///
  /// Handlers run on their own queues, so `wait()` never deadlocks as long as it is not called on
  /// the queue that must resolve this promise. It is meant for command-line tools and tests; in
  /// an app prefer chaining.
  ///
  /// On the main thread it runs the main run loop while it waits instead of blocking, which runs
  /// the main queue's blocks (on Linux too): a chain whose handlers run on the main queue (the
  /// default queues, or bodies isolated to the main actor, as every body written in a program's
  /// top-level code is) settles meanwhile. Inside a block the main queue is running (an async
  /// `main`, a main-actor task), the main queue cannot run another block until that one returns:
  /// such a chain still waits for ever there.
  ///
  /// Called inside a handler (`on: nil`, or any callback this package is running), it first runs
  /// the deliveries this thread queued while the handler ran, so waiting for a stage that the
  /// handler itself settled (directly or by a cancel) returns at once instead of deadlocking.
  ///
  /// Called on the main thread, it reports ``LogEvent/waitOnMainThread`` first, as PromiseKit does.
  public final func wait() throws -> T {
    if Thread.isMainThread { conf.logHandler(.waitOnMainThread) }
    if let result { return try result.get() }
    BlockingWait.wait { done in pipe { _ in done() } }
    return try result!.get()
  }
}

extension Promise where T == Void {
  /// A promise already fulfilled with `()`.
  public convenience init() {
    self.init(settled: .success(()))
  }

  /// A pending `Void` promise and its resolver.
  public static func pending() -> (promise: Promise<Void>, resolver: Resolver<Void>) {
    let promise = Promise<Void>(warnsIfPending: true)
    return (promise, Resolver(promise))
  }
}

/// The value of a promise or guarantee, in a base class generic over the stored type itself.
///
/// Not for use outside the library: it is public only because ``Promise`` and ``Guarantee``
/// inherit from it. A generic class's `deinit` destroys its fields unspecialized; a field whose
/// type is a generic parameter of its own class is destroyed through that parameter's metadata,
/// which the object carries, while a field of a composite type (`Swift.Result<T, Error>?` in
/// `Promise<T>`) makes every deallocation look the composite type's metadata up at run time.
public class _PromiseValue<Stored: Sendable>: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the subclass reads and writes `stored` only under its lock.

  /// The result once settled; `nil` while pending (`Stored` is `Swift.Result<T, Error>?` in a
  /// promise, `T?` in a guarantee).
  @usableFromInline @exclusivity(unchecked) final var stored: Stored

  @inlinable init(stored: Stored) {
    self.stored = stored
  }

  /// Where `Promise` (and `Guarantee`, laid out the same way) keeps its lock storage when `Stored`
  /// is not known at compile time (see `Promise.coreLockStorage`): `Stored`'s size comes from this
  /// object's own metadata.
  @usableFromInline @inline(never)
  final func unspecializedLockStorageAddress() -> UnsafeMutableRawPointer {
    _getUnsafePointerToStoredProperties(self) + promiseLockOffset(storedSize: MemoryLayout<Stored>.size)
  }
}

/// The offset of a promise's lock storage from the start of its stored properties, after a stored
/// value of `storedSize` bytes and two one-byte flags (see `Promise.coreLockStorage`).
@inlinable @inline(__always)
func promiseLockOffset(storedSize: Int) -> Int {
  let flagsEnd = storedSize + 2
  let alignment = MemoryLayout<CoreLockStorage>.alignment
  return (flagsEnd + alignment - 1) / alignment * alignment
}
