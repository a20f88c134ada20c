/// The part of every ``Future`` that does not depend on its value type.
///
/// An implementation detail: use ``Future``. It cannot be created or subclassed outside this
/// module. It is public only because ``Future`` is its subclass, and a public class's superclass
/// must be public too.
///
/// All the state and synchronization of a future lives here, in non-generic types, so that
/// generic code running unspecialized (which is how a client module runs this module's generics)
/// does not look up the runtime metadata of composite generic types on every use: the result (a
/// scalar value inline, any other boxed: see `ErasedResult`) and the callbacks in a
/// `SettleStateMachine`, the cancel-request state in a `FutureRequestStateMachine`. Both are
/// called only under `lock`, and what they return is done after unlocking.
public class _FutureCore: CoreLockHost, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `requests` and `machine` are read and written only inside
  // `lock.withLock`, except a stage's first link upstream, written under its parent's lock before
  // anything else can reach the stage (see `attachStage`); values removed from them (callbacks,
  // handlers, upstream links) are released after unlocking, and every callback runs after
  // unlocking. `stageExecutor` never changes.
  //
  // Fields are ordered so that `stageExecutor` and the lock fill the word that ends with the
  // request machine's one-byte fields, which keeps a derived stage (this, plus its block) within
  // the allocation size docs/performance.md explains.
  /// The cancel-request state: where requests go, what reached the future, the handlers.
  @exclusivity(unchecked) final var requests: FutureRequestStateMachine
  /// Where a derived stage runs its block (`.immediate` for other futures).
  @usableFromInline final let stageExecutor: StageExecutor
  /// The storage of `lock`, where `coreLockStorage` says.
  @exclusivity(unchecked) final var lockStorage = CoreLockStorage()
  @exclusivity(unchecked) final var machine: SettleStateMachine<ErasedResult, FutureCallback>

  init(pending: ()) {
    requests = FutureRequestStateMachine()
    stageExecutor = .immediate
    machine = SettleStateMachine()
    precondition(hostsLock(at: &lockStorage), "Future: the lock is not where coreLockStorage says")
  }

  /// Where `lockStorage` is: after `requests` (at the start) and the one-byte `stageExecutor`, at
  /// the lock's alignment, as Swift lays out a class. Every initializer checks it.
  @usableFromInline
  package final var coreLockStorage: UnsafeMutablePointer<CoreLockStorage> {
    let executorEnd = MemoryLayout<FutureRequestStateMachine>.size + MemoryLayout<StageExecutor>.size
    let alignment = MemoryLayout<CoreLockStorage>.alignment
    let offset = (executorEnd + alignment - 1) / alignment * alignment
    return (_getUnsafePointerToStoredProperties(self) + offset).assumingMemoryBound(to: CoreLockStorage.self)
  }

  deinit {
    // A pending future still holds the stages waiting on it (and they theirs), and a stage its
    // link to the future it waits on (and that one its own): freed here, one inside the other, a
    // long chain would overflow the stack. The core frees them in a loop instead. A completed
    // future handed both out already: nothing to do.
    if machine.hasWaiting { IterativeRelease.release(machine.takeWaiting()) }
    if case .none = requests.upstream {
    } else if machine.isSettled {
      Self.releaseKeptPath(requests.takeUpstream())
    } else {
      // Moved out, not copied: the field's own reference would otherwise be released after this
      // body, outside the loop.
      IterativeRelease.release(requests.takeUpstream())
    }
  }

  /// Frees the link a cancelled future kept to the future whose cancel it passed on (see
  /// `SettleCause.upstream`), and that one's, and so on, in a loop: a future only this loop holds
  /// has its own kept link taken out before it is freed, so no `deinit` frees another inside it.
  /// Cheaper than `IterativeRelease`, which the cancel path of every stage would otherwise pay.
  private static func releaseKeptPath(_ kept: consuming Upstream) {
    guard case .one = kept else {
      IterativeRelease.release(kept)
      return
    }
    // Moved out of the link, so that `node` is the only reference this loop holds (a binding of
    // the enum's payload would be a second one, and no node would ever look uniquely held).
    var node = keptNode(consume kept)
    while isKnownUniquelyReferenced(&node) {
      // Nothing else holds `node`, so nothing else can reach its state.
      let next = node.lock.withLock { node.machine.isSettled ? node.requests.takeUpstream() : .none }
      guard case .one = next else {
        if case .many = next { IterativeRelease.release(next) }
        return
      }
      node = keptNode(consume next)  // frees the previous node, which holds no link any more
    }
  }

  /// The future of a `.one` link, moved out of it.
  private static func keptNode(_ link: consuming Upstream) -> _FutureCore {
    guard case .one(let node, _) = link else { preconditionFailure("not a link to one future") }
    return node
  }

  /// A pending derived stage whose block runs on `executor` (`stored` is that executor when
  /// `executor` is `.stored`).
  @usableFromInline
  init(pendingStage executor: StageExecutor, stored: Executor?) {
    requests = FutureRequestStateMachine(storedExecutor: stored)
    stageExecutor = executor
    machine = SettleStateMachine()
    precondition(hostsLock(at: &lockStorage), "Future: the lock is not where coreLockStorage says")
  }

  @usableFromInline
  init(settled result: ErasedResult) {
    requests = FutureRequestStateMachine()
    stageExecutor = .immediate
    machine = SettleStateMachine(settled: result)
    precondition(hostsLock(at: &lockStorage), "Future: the lock is not where coreLockStorage says")
    // Made cancelled: the record says so (nothing else can reach the future yet).
    if result.isCancelled { _ = requests.completed(cancel: .ending(FutureEnding(.block, origin: .unknown))) }
  }

  /// A derived stage's executor.
  @usableFromInline
  final var executor: Executor {
    switch stageExecutor {
    case .immediate: return .immediate
    case .main: return .main
    case .async: return .async
    case .stored: return lock.withLock { requests.storedExecutor }
    }
  }

  /// The erased result, once completed.
  @usableFromInline final var erasedResult: ErasedResult? { lock.withLock { machine.value } }

  /// Whether the future has completed (in any of the three ways).
  public final var isCompleted: Bool { lock.withLock { machine.isSettled } }

  /// Whether a cancel request has reached this future.
  final var isCancellationRequested: Bool { lock.withLock { requests.isRequested } }

  // MARK: - Settling and delivery

  /// Completes with `result` unless already completed.
  ///
  /// Waiting callbacks run on this thread before this returns (nested completions are queued by
  /// `SettleDelivery`, so a long chain completes in constant stack).
  ///
  /// - Parameter detachUpstream: remove this future's callbacks from the futures it was waiting
  ///   on (pass `false` when they already delivered to it).
  /// - Parameter unlessClaimed: fail (and change nothing) if the producer already handed the
  ///   future to another one.
  /// - Returns: whether this call completed the future.
  @discardableResult @usableFromInline
  final func settle(_ result: ErasedResult, detachUpstream: Bool, unlessClaimed: Bool = false) -> Bool {
    var released = ReleasedRequestState()
    let action = lockedSettle(result, unlessClaimed: unlessClaimed, released: &released) { $0.completed() }
    return finishSettle(action, released, detachUpstream: detachUpstream)
  }

  /// Completes cancelled unless already completed, as `settle(.cancelled, …)`, keeping `cause`
  /// for the record (see `SettleCause`). Only the cancel paths call it, so that `settle` stays as
  /// small as it was.
  ///
  /// - Returns: whether this call completed the future.
  @discardableResult
  final func settleCancelled(_ cause: SettleCause, detachUpstream: Bool, unlessClaimed: Bool = false) -> Bool {
    var released = ReleasedRequestState()
    let action = lockedSettle(.cancelled, unlessClaimed: unlessClaimed, released: &released) {
      $0.completed(cancel: cause)
    }
    if case .alreadySettled = action { return false }
    // Before the blocks waiting here run, as a source reports before its handlers; inside another
    // report or request on this thread (an observer that cancels), queued until it returns, so
    // observers never nest.
    if case .ending = cause, CancellationObservers.isObserving {
      ReentrantRun.run(self) { future in future.reportCancel() }
    }
    return finishSettle(action, released, detachUpstream: detachUpstream)
  }

  /// Ends like `input`, which did not succeed: a combinator whose input failed or was cancelled.
  @usableFromInline final func settle(passingOn input: _FutureCore) {
    let result = input.nonSuccessResult
    if result.isCancelled {
      settleCancelled(.input(input), detachUpstream: false)
    } else {
      settle(result, detachUpstream: false)
    }
  }

  /// The end of `settle` after unlocking: deliver, detach, run the end observers.
  @inline(__always)
  private func finishSettle(
    _ action: SettleStateMachine<ErasedResult, FutureCallback>.SettleAction, _ released: ReleasedRequestState,
    detachUpstream: Bool
  ) -> Bool {
    switch action {
    case .alreadySettled: return false
    case .settled: break
    case .deliver: deliverNow()
    }
    if detachUpstream { released.upstream.removeConsumers() }
    released.runEndObservers()
    return true
  }

  /// Completes with `result` unless already completed, as `settle(_:detachUpstream: false)`, but
  /// leaves the delivery of the waiting callbacks to the caller.
  ///
  /// A cancelled `result` is the one of the future this one waits on, passed on: the record
  /// follows it (see `SettleCause.upstream`).
  ///
  /// - Returns: `self` if callbacks wait and the caller must deliver them (hand it back from a
  ///   callback's run, or call `deliverNow()`); `nil` otherwise.
  @usableFromInline
  final func settleLeavingDelivery(_ result: ErasedResult) -> _FutureCore? {
    // The future this one waits on was abandoned: this one is not completed, it is handed back
    // to `abandon`, which abandons what waits on it in turn.
    if result.isAbandoned { return self }
    var released = ReleasedRequestState()
    let action = lockedSettle(result, unlessClaimed: false, released: &released) {
      result.isCancelled ? $0.completed(cancel: .upstream) : $0.completed()
    }
    released.runEndObservers()
    if case .deliver = action { return self }
    return nil
  }

  /// Delivers the waiting callbacks now (or queued behind the delivery running on this thread),
  /// for a caller of `settleLeavingDelivery(_:)` that cannot hand them back.
  @usableFromInline
  final func deliverNow() {
    deliverSettled()
  }

  /// The settle step under the lock; `completing` moves the upstream links and the request
  /// handlers to `released`, to be released (and the upstream callbacks removed if wanted) after
  /// unlocking.
  @inline(__always)
  private func lockedSettle(
    _ result: ErasedResult, unlessClaimed: Bool, released: inout ReleasedRequestState,
    completing: (inout FutureRequestStateMachine) -> ReleasedRequestState
  ) -> SettleStateMachine<ErasedResult, FutureCallback>.SettleAction {
    lock.withLock { () -> SettleStateMachine<ErasedResult, FutureCallback>.SettleAction in
      guard requests.allowsCompletion(unlessClaimed: unlessClaimed) else { return .alreadySettled }
      let action = machine.settle(result)
      if case .alreadySettled = action { return action }
      released = completing(&requests)
      return action
    }
  }

  /// Applies a completion: a result settles at once; `using` binds to the other future.
  ///
  /// - Parameter claim: whether this is the producer's completion, which loses once the producer
  ///   already handed the future to another one (``Completion/completeUsing(_:)``).
  /// - Parameter detachUpstream: remove this future's callbacks from the futures it was waiting
  ///   on; for `using`, the future it was handed over to before (a request handler's answer
  ///   replaces an earlier hand-over).
  @discardableResult @usableFromInline
  final func apply(_ completion: ErasedCompletion, claim: Bool, detachUpstream: Bool) -> Bool {
    switch completion {
    case .result(let result): return settle(result, detachUpstream: detachUpstream, unlessClaimed: claim)
    case .using(let other): return bind(to: other, claim: claim, replacing: detachUpstream)
    }
  }

  /// The producer completes the future cancelled (`how`: `.producer`, or `.block`), by a call at
  /// `origin`, started by `trigger`, or by another facade's cancel whose record `linkedRecord` reads
  /// (see `FutureEnding`); out of line, so that inlinable callers (`Promise.tryComplete`) need not
  /// see how the ending is kept.
  ///
  /// - Returns: whether this call completed the future.
  @usableFromInline
  final func applyProducerCancel(
    _ how: CancellationRecord.Hop.Ending, origin: CancelOrigin, trigger: CancellationRecord.Trigger = .call,
    linkedRecord: (@Sendable () -> CancellationRecord?)? = nil
  ) -> Bool {
    let ending = FutureEnding(how, origin: origin, trigger: trigger, linkedRecord: linkedRecord)
    return settleCancelled(.ending(ending), detachUpstream: true, unlessClaimed: true)
  }

  /// A request handler's answer (`facts`: the request it answers, if known): a cancelled
  /// completion is recorded as the handler's.
  @usableFromInline final func applyRequestAnswer(_ completion: ErasedCompletion, facts: RequestFacts?) {
    if case .result(.cancelled) = completion {
      settleCancelled(.ending(FutureEnding(.requestHandler, request: facts)), detachUpstream: true)
    } else {
      apply(completion, claim: false, detachUpstream: true)
    }
  }

  /// A block's completion of this stage (`onComplete` and its relatives), given `input`: a block
  /// that answers a cancelled input with a cancelled completion passes the cancel on (the record
  /// follows the parent); any other cancelled completion is the block's own.
  @usableFromInline
  final func applyBlockCompletion(_ completion: ErasedCompletion, input: ErasedResult) {
    guard case .result(.cancelled) = completion else {
      apply(completion, claim: false, detachUpstream: false)
      return
    }
    settleCancelled(
      input.isCancelled ? .upstream : .ending(FutureEnding(.block, origin: .unknown)), detachUpstream: false)
  }

  /// Offers a callback: it waits for the result, or runs now on this thread if the result was
  /// already delivered (then `nil` is returned).
  ///
  /// - Parameter consumer: the future `callback` completes, if it passes this one's result on: a
  ///   cancelled result delivered now first links it here, for its record (as a link made when the
  ///   callback waited would be kept).
  final func observe(_ callback: FutureCallback, consumer: _FutureCore? = nil) -> RegistrationKey? {
    switch lock.withLock({ machine.observe(callback) }) {
    case .queued(let key): return key
    case .runNow(let callback, let result):
      if let consumer, result.isCancelled { consumer.linkForRecord(to: self) }
      callback.run(result)?.deliverNow()
      return nil
    }
  }

  /// Links this future to `parent`, cancelled already, whose result it is about to pass on, so
  /// that its record follows `parent` (see `SettleCause.upstream`). What it waited on before is
  /// released after unlocking.
  final func linkForRecord(to parent: _FutureCore) {
    let replaced = lock.withLock { requests.linkForRecord(to: parent, isSettled: machine.isSettled) }
    _ = replaced
  }

  /// Called when this future's producer (its ``Promise``) went away. If nothing else can complete
  /// the future now, the futures waiting on it (its stages, and theirs) can never complete either:
  /// they are abandoned, so that a dropped pending chain is freed. (Each stage holds the future it
  /// waits on, for its requests, and each future its waiting stages: without this, a pending future
  /// whose producer went away and its stages would keep each other alive for ever.)
  final func producerReleased() {
    guard let waiting = takeWaitingIfAbandoned() else { return }
    Self.abandon(waiting)
  }

  /// The waiting callbacks, taken, if nothing but this future's producer (or parent) could
  /// complete it: not completed, not handed over to another future, no request handler that could
  /// answer a request with a completion. `nil` (and nothing taken) otherwise.
  final func takeWaitingIfAbandoned() -> SettleCallbackBatch<FutureCallback>? {
    lock.withLock { () -> SettleCallbackBatch<FutureCallback>? in
      guard !machine.isSettled, machine.hasWaiting, requests.onlyProducerCanComplete else { return nil }
      return machine.takeWaiting()
    }
  }

  /// Tells every callback in `waiting` that its future will never complete (see
  /// ``ErasedResult/abandoned``), and the futures waiting on those, and so on, in a loop: the
  /// callbacks are released (and with them what only they kept), no block runs, and a future
  /// that was abandoned stays pending.
  static func abandon(_ waiting: SettleCallbackBatch<FutureCallback>) {
    var work = [waiting]
    while var batch = work.popLast() {
      while let callback = batch.popOldest() {
        if let next = callback.run(.abandoned), let taken = next.takeWaitingIfAbandoned() { work.append(taken) }
      }
    }
  }

  /// Runs `body` once this future completed, on the completing thread (at once on this thread if
  /// it already has). Unlike a callback, `body` is no consumer: it changes nothing about where
  /// requests go (see the "Cancellation trees" article).
  final func whenCompleted(_ body: @escaping @Sendable () -> Void) {
    let added = lock.withLock { requests.addEndObserver(body, isSettled: machine.isSettled) }
    if !added { body() }
  }

  /// Removes a waiting callback (a consumer leaving); it is released after unlocking.
  final func removeConsumer(_ key: RegistrationKey) {
    let removed = lock.withLock { machine.remove(key) }
    _ = removed
  }

  /// Completes this future with whatever `source` ends with; requests made meanwhile are
  /// forwarded to `source`.
  ///
  /// A hand-over that would close a cycle (`source` is this future, or waits on it through other
  /// futures, at most `cycleSearchLimit` of them) fails this future with ``CompletionCycleError``
  /// instead, and with it every future of the would-be cycle that waits on this one: nothing else
  /// could ever complete them. The check runs after the link is made, so of two hand-overs racing
  /// to close a cycle, the later one to finish linking sees it.
  ///
  /// - Parameter replacing: remove this future's callback from the future it was handed over to
  ///   before, and forward the requests it got to `source` (a request handler's answer, which
  ///   replaces an earlier hand-over).
  /// - Returns: `false` if `claim` and the producer had already completed or handed the future
  ///   over.
  @usableFromInline
  final func bind(to source: _FutureCore, claim: Bool, replacing: Bool = false) -> Bool {
    if claim {
      guard lock.withLock({ requests.claim(isSettled: machine.isSettled) }) else { return false }
    }
    if source === self {
      settle(.fail(CompletionCycleError()), detachUpstream: true)
      return true
    }
    guard let key = source.observe(.forward(to: self), consumer: self) else { return true }
    let action = lock.withLock {
      requests.bind(to: source, key: key, replacing: replacing, isSettled: machine.isSettled)
    }
    switch action {
    case .completed:
      source.removeConsumer(key)
    case .bound(let replaced, let forward, let facts):
      if replacing { replaced.removeConsumers() }
      if source.waitsOn(self) {
        settle(.fail(CompletionCycleError()), detachUpstream: true)
      } else if let forward {
        // Queued behind the request running on this thread, if any (a request handler's
        // `.completeUsing` answer): see `requestCancel(_:)`.
        let facts = facts ?? RequestFacts(origin: .unknown, start: self)
        ReentrantRun.run(RequestHop(from: self, to: source, key: key, options: forward, facts: facts)) { hop in
          driveRequest(hop, processed: hop.from)
        }
      }
    }
    return true
  }

  /// Whether this future is `target` or waits on it, directly or through other futures (the
  /// links requests travel along). Call it outside any lock.
  ///
  /// It looks at most `cycleSearchLimit` futures upstream, so that handing a future over
  /// stays cheap however long the line of pending futures behind the other one (a line of
  /// hand-overs built one by one would otherwise cost quadratic time); a cycle longer than that
  /// is not refused, but a request still never goes round it (see `driveRequest`).
  ///
  /// A hand-over usually meets a short line of pending futures, walked without allocating; a
  /// combinator's inputs take the general walk, which visits each future once.
  final func waitsOn(_ target: _FutureCore) -> Bool {
    var node = self
    for _ in 0..<Self.cycleSearchLimit {
      if node === target { return true }
      switch node.lock.withLock({ node.requests.upstream }) {
      case .none: return false
      case .one(let next, _): node = next
      case .many: return node.waitsOnAnyPath(target)
      }
    }
    return false
  }

  /// How many futures upstream a hand-over looks at for a cycle.
  static var cycleSearchLimit: Int { 64 }

  /// `waitsOn(_:)` over every path, each future visited once, up to `cycleSearchLimit` futures.
  private func waitsOnAnyPath(_ target: _FutureCore) -> Bool {
    var next: [_FutureCore] = [self]
    var visited = Set<ObjectIdentifier>()
    while let node = next.popLast(), visited.count < Self.cycleSearchLimit {
      if node === target { return true }
      guard visited.insert(ObjectIdentifier(node)).inserted else { continue }
      switch node.lock.withLock({ node.requests.upstream }) {
      case .none: break
      case .one(let parent, _): next.append(parent)
      case .many(let links): for link in links { next.append(link.node) }
      }
    }
    return false
  }

  /// Registers this derived stage on `parent` with `callback` (which runs the stage) and links
  /// it upstream to `parent`. Call it once, on a stage not yet handed out.
  ///
  /// The link is written inside the parent's lock section that queues the callback, without
  /// taking this stage's lock (one lock section less per stage): until that section ends, nothing
  /// else can reach the stage (it is not handed out yet, and its callback is not in the parent
  /// yet), and whoever reaches it later through the callback took the parent's lock first, so it
  /// sees the link. Every later access to the link is under this stage's lock, as usual.
  @usableFromInline
  final func attachStage(to parent: _FutureCore, _ callback: FutureCallback) {
    let action = parent.lock.withLock {
      () -> SettleStateMachine<ErasedResult, FutureCallback>.ObserveAction in
      let action = parent.machine.observe(callback)
      if case .queued(let key) = action { requests.waitOnParent(parent, key: key) }
      return action
    }
    if case .runNow(let callback, let result) = action {
      if result.isCancelled { linkForRecord(to: parent) }
      callback.run(result)?.deliverNow()
    }
  }
}

extension _FutureCore: SettleHost {
  /// Part of the core's `SettleHost`: the next callbacks and the result, under the lock.
  @usableFromInline
  package final func takeNextCallbacks() -> (SettleCallbacks<FutureCallback>, ErasedResult)? {
    lock.withLock {
      guard let callbacks = machine.takeNextCallbacks() else { return nil }
      return (callbacks, machine.value!)
    }
  }

  /// Part of the core's `SettleHost`: runs one callback; a stage it completed whose callbacks
  /// wait is handed to the delivery loop (to run next if nothing is queued: the tail call of a
  /// chain).
  @usableFromInline
  package static func run(
    _ callback: consuming FutureCallback, with result: consuming ErasedResult, on queue: ThreadDeliveryQueue?
  )
    -> ReadyDelivery?
  {
    guard let ready = callback.run(result) else { return nil }
    return _FutureCore.readyDelivery(of: ready)
  }
}

extension _FutureCore {
  /// How many callbacks (derived stages, observers) wait for this future now. For the package's
  /// tests, which must know that a consumer has attached before they act.
  package final var waitingCount: Int { lock.withLock { machine.waitingCount } }
}
