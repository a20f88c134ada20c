import CancelCore

/// The cancellation state shared by every member of one cancellable chain.
///
/// Every ``CancellablePromise`` made from another by chaining (`then`, `map`, `done`, `catch`,
/// and the rest) shares its context, so ``cancel(error:fileID:line:function:)`` on any member, on the context itself,
/// or on the finalizer `catch` returns cancels the whole chain:
///
/// - every member still pending is rejected with the error (``PMKError/cancelled`` by default),
///   **synchronously**, before `cancel` returns — including a stage whose body is running right
///   now (its eventual value or error is then ignored: the first resolution wins). One exception
///   nobody holding a member can see: a body that `map(on: nil)` or `then(on: nil)` runs inside
///   the call, because the member before it has already settled and run its handlers, belongs to
///   a member that does not exist yet; a cancel on another thread meanwhile rejects that member
///   when the body returns, before the call does (``isCancelled`` turns `true` then);
/// - every registered ``CancellableTask`` has its `cancel()` called exactly once, before the
///   members are rejected (oldest member first, so a chain's handlers see it in chain order);
/// - no body of the chain **starts** once `cancel` has begun (`ensure` and `finally` bodies, and
///   `catch`/`recover` bodies that handle the error, still run: they are how a cancelled chain
///   ends). A body checks just before it starts, so on another thread one that passed its check an
///   instant before may still begin as `cancel` returns; its member is rejected already and what
///   it returns is ignored;
/// - sub-chains that bodies returned, and the inputs of the combinators built without
///   `autoCancel:`, are linked to the context, so the cancel reaches them too;
/// - a task or cancel handler registered for a member whose work already settled is not called:
///   it left the context when the work settled.
///
/// The members after an `ensure`/`ensureThen` share a context of their own, linked both ways: a
/// cancel of either reaches the members before the clean-up at once and the members after it once
/// the clean-up finished (``cancelAttempted`` is `true` meanwhile). A `recover` branch or a
/// combinator's result that follows such stages while they are pending is held back the same way:
/// its cancel reaches its own members only once the stages it follows settled.
///
/// Cancelling twice changes nothing: the first error stays. The context is built on the core's
/// cancellation source: cancel handlers run on the cancelling thread, never under a lock.
///
/// While the context lives, every pending member of its chain waits in it (so a cancel reaches
/// it). The context lives as long as something that can cancel it does: a member, a finalizer or
/// the context itself held by your code, or a chain it is linked into (the context of the stages
/// after an `ensure` keeps the one before it). Once none is left, nobody can cancel the chain any
/// more: the context goes away and lets go of its pending members, and a pending chain nobody can
/// reach is freed (one still reachable, through a resolver for example, runs on as a chain that
/// can no longer be cancelled). The stages after a `recover` or a clean-up are the exception:
/// while the chain before them can still be cancelled, their pending members stay reachable by
/// its cancel (see `deinit`).
public final class CancelContext: CancellableWithReason, Sendable {
  /// The core source whose cancellation is the chain's cancellation: cancelling it rejects the
  /// pending members.
  @usableFromInline let source: CancelStorage
  /// For the stages after an `ensure`/`ensureThen` (see ``init(after:)``), and for a context that
  /// follows such stages (see `gated`): the cancel of this part of the chain, held back until the
  /// cleanup finished; `nil` for any other context.
  @usableFromInline let hold: CancelStorage?
  /// For the stages after an `ensure`/`ensureThen`: what ``cancel(error:fileID:line:function:)`` cancels, a core
  /// source whose children are `hold` and the chain before the clean-up (its source, or its own
  /// `entry` after an earlier `ensure`). Links rather than a reference to the context before: the
  /// core propagates through them without recursion, and no context keeps the one before alive.
  /// For a `gated` context: the same, with the chains it follows as the chain before.
  let entry: CancelStorage?
  /// Whether this is a context that follows pending members of chains with a clean-up in them (a
  /// recover branch or a combinator's result, see ``branch(of:from:unlessHandledBy:)``,
  /// ``init(resultOf:)`` and ``init(resultOfInputsToCome:)``): its cancel goes through `entry` to those chains at once (which starts
  /// their clean-ups) and to `hold`, and reaches `source` only once the members it follows settled
  /// (they settle only after their clean-ups finished), when `source` is linked to `hold`.
  /// Computed, not stored (every context would pay for it): the stages after an `ensure` are the
  /// only other contexts with a `hold`, and the only ones with an `upstreamSource` but no
  /// `upstream`.
  var gated: Bool { hold != nil && (upstream != nil || upstreamSource == nil) }
  /// For a context made from another (a branch after `recover`, the stages after an `ensure`):
  /// the source of the chain before it whose cancel reaches this context's source (a branch's
  /// upstream, followed once the recover's input settled) or its `hold` (after an `ensure`); `nil`
  /// for any other context, and for a branch that the chain before it never cancels. See
  /// `deinit`.
  @usableFromInline let upstreamSource: CancelStorage?
  /// After an `ensure` on the stages after an earlier one: the earlier context's `hold`, the
  /// other way a cancel reaches this context's `hold`.
  let upstreamHold: CancelStorage?
  /// A branch's upstream context, kept while the branch lives: cancelling the branch cancels the
  /// chain before it, which must therefore stay cancellable (a context that went away closes its
  /// source). Nothing of the chain before keeps the branch's context.
  let upstream: CancelContext?

  /// A new context, not cancelled, with no members (PromiseKit 7 code creates one directly).
  public init() {
    source = CancelStorage()
    hold = nil
    entry = nil
    upstreamSource = nil
    upstreamHold = nil
    upstream = nil
  }

  /// A new context, not cancelled, with no members, named `label` in cancellation records (see
  /// ``cancellationRecord``): `"load profile"`, say. No label, and nothing stored for one, when
  /// `label` is `nil`. The parts of the chain made later (after a `recover` or an `ensure`) carry
  /// the same label.
  ///
  /// - Parameter label: the chain's name in records.
  public init(label: String?) {
    source = CancelStorage(label: label)
    hold = nil
    entry = nil
    upstreamSource = nil
    upstreamHold = nil
    upstream = nil
  }

  /// A context for a branch that continues from `input`, a member of `upstream` (after a recover
  /// with `policy`): cancelling the branch also cancels `upstream`; a cancel of `upstream` cancels
  /// the branch too, unless the recover handles that cancel: linked once `input` settled, except
  /// when the cancel of `upstream` itself rejected it and `policy` is `.allErrors` (the body gets
  /// the error and the branch goes on); with another policy that covers the cancel error, linked
  /// once the recover's result settled (``followUpstream(after:unlessHandledBy:)``); a `.allErrors`
  /// recover added to a chain already cancelled is never linked. The follow is registered on
  /// `input` before the recover's own callback. Nothing of the chain before keeps this context.
  /// If `input` is a pending stage after a clean-up (`upstream` has an `entry`), the branch is
  /// `gated`: its cancel reaches the chain before at once and the branch's members once `input`
  /// settled (which it does only after the clean-up finished).
  /// Why: docs/architecture.md, "One cancel's path" (a recover's branch).
  @inlinable
  static func branch<T>(of upstream: CancelContext, from input: Promise<T>, unlessHandledBy policy: CatchPolicy)
    -> CancelContext
  {
    let branch = CancelContext(branchOf: upstream, inputIsPending: input.isPending, unlessHandledBy: policy)
    branch.follow(input, unlessHandledBy: policy)
    return branch
  }

  /// The part of ``branch(of:from:unlessHandledBy:)`` that does not depend on the input's type: the
  /// sources and links. Not generic, so that what is generic (the input's callbacks) is specialized
  /// in the caller.
  @usableFromInline init(branchOf upstream: CancelContext, inputIsPending: Bool, unlessHandledBy policy: CatchPolicy) {
    // A part of the chain it branches from, as records show it.
    source = CancelStorage(partOf: upstream.source)
    self.upstream = upstream
    upstreamHold = nil
    let upstreamSource = upstream.source
    let follows = !(policy == .allErrors && upstreamSource.isCancelled)
    self.upstreamSource = follows ? upstreamSource : nil
    // Through the entry after an `ensure`: a cancel of the branch reaches the whole chain before
    // it, as `upstream.cancel(error:)` would, not only the stages after the clean-up.
    let upstreamEntry = upstream.entry ?? upstreamSource
    let branch = source
    if upstream.entry != nil, inputIsPending {
      // The input follows a clean-up that may not have finished: the branch's own stages see a
      // cancel of the branch only once the input settled, after the clean-up (see `gated`).
      let (entry, hold) = (CancelStorage(partOf: branch), CancelStorage(partOf: branch))
      (self.entry, self.hold) = (entry, hold)
      _ = upstreamEntry.link(to: entry)
      // Last: handlers run newest first, so the cancel is recorded before the chain before sees
      // it.
      _ = hold.link(to: entry)
    } else {
      (entry, hold) = (nil, nil)
      _ = upstreamEntry.link(to: branch)
    }
  }

  /// The callbacks of ``branch(of:from:unlessHandledBy:)`` on its input, registered before the
  /// recover's own callback.
  @inlinable
  func follow<T>(_ input: Promise<T>, unlessHandledBy policy: CatchPolicy) {
    let branch = source
    // Before the follow below and the recover's own callback: a cancel of the branch made before
    // the input settled has cancelled the branch before anything of it sees the result.
    if let hold { input.pipe { _ in _ = branch.link(to: hold) } }
    // `nil` when a `.allErrors` recover is added to a chain already cancelled: never linked.
    guard let upstreamSource else { return }
    input.pipe { result in
      if case .failure(let error) = result, upstreamSource.isCancelled(by: ErrorIdentity(error)),
        policy.handles(error)
      {
        // The recover's body gets the cancel error; with `.allErrors` the branch goes on, and
        // nothing can cancel it any more from before (if its context went away, its source goes).
        // Otherwise `followUpstream(after:unlessHandledBy:)` links it once the body's result settled.
        if policy == .allErrors { _ = branch.closeIfReleased() }
        return
      }
      Self.follow(upstreamSource, by: branch)
    }
  }

  /// Links `branch` to `upstreamSource` (cancelled at once if that was), or closes it if released
  /// when `upstreamSource` ended without a cancel: nothing before it can cancel it any more.
  @usableFromInline static func follow(_ upstreamSource: CancelStorage, by branch: CancelStorage) {
    if !branch.link(to: upstreamSource), !upstreamSource.isCancelled { _ = branch.closeIfReleased() }
  }

  /// Completes ``branch(of:from:unlessHandledBy:)`` for a recover with `policy` whose result
  /// is `output`: when the cancel of the chain before the recover rejected the recover's input with
  /// an error the policy covers but the policy is not `.allErrors` (a cancel with an error of the
  /// caller's own), the body ran with that error and the branch is cancelled once `output`
  /// settled, so the stages after the recover are rejected with the cancel. Called before
  /// anything can be chained on `output`, so its handler runs before theirs.
  ///
  /// The handler holds the two sources only (holding the input would keep the chain before alive
  /// through the branch). A chain before that is cancelled when `output` settles is all it needs
  /// to know: in every other case of a cancel the branch is linked already and is cancelled, so
  /// linking again changes nothing.
  @inlinable func followUpstream<U>(after output: Promise<U>, unlessHandledBy policy: CatchPolicy) {
    guard policy != .allErrors, let upstreamSource else { return }
    let branch = source
    output.pipe { _ in
      guard upstreamSource.isCancelled else { return }
      Self.follow(upstreamSource, by: branch)
    }
  }

  /// The context of the stages after an `ensure`/`ensureThen` on a member of `upstream`: the
  /// chain goes on, but a cancel reaches these stages only once the cleanup finished
  /// (``settlingAfterCleanup(_:)``), so that no stage after the cleanup sees the rejection before it.
  ///
  /// A cancel of `upstream` (or of any part before it) and a cancel of this context are both
  /// recorded at once in `hold` (``cancelAttempted`` is `true`); a cancel of this context also
  /// cancels `upstream` at once, which rejects the members before the cleanup and so starts it.
  @usableFromInline init(after upstream: CancelContext) {
    // Parts of the chain before the clean-up, as records show it.
    source = CancelStorage(partOf: upstream.source)
    let hold = CancelStorage(partOf: upstream.source)
    let entry = CancelStorage(partOf: upstream.source)
    _ = hold.link(to: upstream.source)
    if let upstreamHold = upstream.hold { _ = hold.link(to: upstreamHold) }
    _ = hold.link(to: entry)
    self.hold = hold
    self.entry = entry
    upstreamSource = upstream.source
    upstreamHold = upstream.hold
    self.upstream = nil
    // The entry's link to the chain before keeps that chain's context alive while this one can
    // cancel it (see `ChainState.append(_:through:)`).
    ChainState(source: entry).append(upstream, through: upstream.entry ?? upstream.source)
  }

  /// The context of a combinator's result whose `inputs` are members of its chain: cancelling it
  /// cancels their chains (through their entries after an `ensure`).
  ///
  /// When an input still pending follows a clean-up (its context has an `entry`), the result
  /// follows it too: the context is `gated`, and a cancel of it reaches its own stages only once
  /// every such input settled (each only after its clean-up finished), or once the result's first
  /// member settled with the combination's outcome before any cancel. The result's first member
  /// must then not settle with the combination's outcome once a cancel was attempted (see
  /// `InputPolicy.result(_:inputs:)`): that outcome may come from one input before another's
  /// clean-up finished.
  init<Input: CancellableThenable>(resultOf inputs: [Input]) {
    source = CancelStorage()
    upstreamSource = nil
    upstreamHold = nil
    upstream = nil
    let held = inputs.filter { $0.cancelContext.entry != nil && $0.promise.isPending }
    guard !held.isEmpty else {
      (entry, hold) = (nil, nil)
      for input in inputs { append(input.cancelContext) }
      return
    }
    let (entry, hold) = (CancelStorage(partOf: source), CancelStorage(partOf: source))
    (self.entry, self.hold) = (entry, hold)
    let into = ChainState(source: entry)
    for input in inputs { into.append(input.cancelContext) }
    // Last: handlers run newest first, so the cancel is recorded before the inputs see it.
    _ = hold.link(to: entry)
    let (source, arrivals) = (source, Countdown(count: held.count))
    for input in held {
      input.promise.pipe { _ in
        if arrivals.arrive() { _ = source.link(to: hold) }
      }
    }
  }

  /// The context of a result whose inputs come later (`when(fulfilled:concurrently:)` pulls
  /// them): `gated` from the start, with nothing linked yet. The caller links each input to
  /// `entry` as it comes, and `source` to `hold` once the result settled before any cancel, or,
  /// once a cancel was attempted, when no input that follows a clean-up is pending any more (as
  /// ``init(resultOf:)`` does for inputs known at once).
  init(resultOfInputsToCome: Void) {
    source = CancelStorage()
    upstreamSource = nil
    upstreamHold = nil
    upstream = nil
    let (entry, hold) = (CancelStorage(partOf: source), CancelStorage(partOf: source))
    (self.entry, self.hold) = (entry, hold)
    _ = hold.link(to: entry)
  }

  /// What settles `promise`, the first member of this context (see ``init(after:)``), with the
  /// result of the cleanup: first lets a held cancel through (at once if one was made; later
  /// cancels then reach the stages directly), then settles the member, rejected with the held
  /// cancel's error if there was one. A cancel of the chain before the cleanup counts even when it
  /// has not reached the hold, so `upstream`'s own reason (or its hold's) is read here too.
  ///
  /// The closure holds this context's sources and `upstream`'s, not the contexts: the chain before
  /// the cleanup calls it, and that chain must not keep this context alive (see `ChainState`).
  /// Why: docs/architecture.md, "One cancel's path" (after an `ensure`).
  @inlinable func settlingAfterCleanup<T>(_ promise: Promise<T>, of upstream: CancelContext)
    -> @Sendable (
      Swift.Result<T, Error>
    ) -> Void
  {
    let (source, hold) = (source, hold)
    let (upstreamSource, upstreamHold) = (upstream.source, upstream.hold)
    return { result in
      let chain = ChainState(source: source)
      if let hold {
        // Through a link from the chain before the clean-up, for the record (see `cancellationRecord`).
        if let reason = upstreamSource.reason {
          _ = hold.cancel(reason: reason, cause: .link(upstreamSource))
        } else if let upstreamHold, let reason = upstreamHold.reason {
          _ = hold.cancel(reason: reason, cause: .link(upstreamHold))
        }
        _ = source.link(to: hold)
        if let reason = hold.reason ?? upstreamSource.reason ?? upstreamHold?.reason {
          chain.reject(promise, cancelledWith: reason)
          return
        }
      }
      chain.settle(promise, with: result)
    }
  }

  /// A context goes away once nothing that could cancel it is left (see the type's notes): its
  /// source then completes without cancellation. Observers of ``signal`` (a token made from the
  /// context) complete as not cancelled, the handlers still registered (tasks) are released, and
  /// so are the members still pending, which frees whatever of the chain nobody else holds.
  ///
  /// Except for a context made from another (a branch, the stages after an `ensure`) whose
  /// members still wait (or that such a context still needs) while the chain before it can still
  /// cancel them: its source (and its `hold`) is released rather than closed
  /// (`CancelStorage.release()`), so that a cancel of the chain before it still rejects them; it
  /// closes once they all settled, or once the chain before it can no longer be cancelled (its
  /// context went away), whichever comes first.
  deinit {
    if gated, let hold {
      if hold.isCancelled, !source.isCompleted {
        // A cancel waits for the members this context follows: when they settle, it rejects the
        // members still pending here (see `gated`), so they stay reachable until then.
        source.release()
      } else {
        if let upstreamSource, source.isNeeded {
          Self.release(source, cancellableThrough: [upstreamSource])
        } else {
          _ = source.close()
        }
        // Nothing cancels the hold any more (its entry closes below), but the hold of the stages
        // after a later `ensure` is linked to it: it stays open while this source can still be
        // cancelled, so that it does not close that one before the chain before does.
        Self.release(hold, cancellableThrough: [source])
      }
    } else if let upstreamSource, source.isNeeded {
      if let hold {
        Self.release(source, cancellableThrough: [hold])
        Self.release(hold, cancellableThrough: [upstreamSource] + (upstreamHold.map { [$0] } ?? []))
      } else {
        Self.release(source, cancellableThrough: [upstreamSource])
      }
    } else {
      _ = source.close()
      _ = hold?.close()
    }
    // Last: the entry keeps the context before the clean-up, whose own deinit may run now, and
    // must find the sources it still cancels pinned.
    _ = entry?.close()
  }

  /// Releases `source` (see `CancelStorage.release()`), which a cancel of one of `parents` reaches:
  /// each parent still open is pinned (a released parent stays open for it) and closes `source`
  /// when it closes (nothing can cancel `source` any more); `source`'s end removes both again. If
  /// no parent is open, `source` closes now, unless one was cancelled: its cancel may still be on
  /// its way (a branch is linked once the recover's input settled).
  private static func release(_ source: CancelStorage, cancellableThrough parents: [CancelStorage]) {
    var pinned = false
    for parent in parents where parent.pin() {
      pinned = true
      let hook = parent.register(.onComplete { cancelled in if !cancelled { _ = source.close() } })
      _ = source.register(
        .onComplete { _ in
          hook.unregister()
          parent.unpin()
        })
    }
    if !pinned, !parents.contains(where: \.isCancelled) {
      _ = source.close()
      return
    }
    source.release()
  }

  /// What the chain's stages use of it: the same source, without keeping this context alive.
  @inlinable var chain: ChainState { ChainState(source: source) }

  /// What ``cancel(error:fileID:line:function:)`` cancels, without keeping this context alive: after an `ensure`, the
  /// entry (the members before the clean-up at once, the stages after it once it finished), else
  /// the source. For code that cancels the chain from outside it (a combinator cancelling its
  /// inputs).
  var entryChain: ChainState { ChainState(source: entry ?? source) }

  /// Cancels the chain with ``PMKError/cancelled``. See ``cancel(error:fileID:line:function:)``.
  ///
  /// - Parameters:
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
    cancel(error: Self.defaultError, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Cancels the chain with ``PMKError/cancelled``, like ``cancel(fileID:line:function:)``, but its
  /// record has no call site: what a call through the `Cancellable` protocol runs (a protocol
  /// requirement cannot capture its caller).
  @_disfavoredOverload
  public func cancel() {
    cancel(error: Self.defaultError, origin: .unknown)
  }

  /// ``PMKError/cancelled`` boxed once: every `cancel()` would otherwise allocate a box for it.
  @usableFromInline package static let defaultError: any Error = PMKError.cancelled

  /// Cancels the chain with `error`: every pending member is rejected with it, synchronously, and
  /// every registered task is cancelled once. Does nothing if the chain was already cancelled.
  ///
  /// - Parameters:
  ///   - error: the rejection error (the first one given wins).
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(
    error: Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    cancel(error: error, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// `cancel(error:)` as a function value (`let stop = chain.cancel(error:)`): a reference cannot
  /// pass the call site, so the record has none. A call, `cancel(error: e)`, records its site.
  ///
  /// - Parameter error: the rejection error.
  @_disfavoredOverload
  public func cancel(error: Error) {
    cancel(error: error, origin: .unknown)
  }

  /// `cancel(with:)` as a function value; its record has no call site (see ``cancel(error:)``).
  ///
  /// - Parameter error: the rejection error.
  @_disfavoredOverload
  public func cancel(with error: Error) {
    cancel(error: error, origin: .unknown)
  }

  /// Cancels the chain with `error`, recording `origin` as where the cancel was asked for (for
  /// the package's bridges, which pass on the call site of what asked them).
  @usableFromInline package func cancel(error: any Error, origin: CancelOrigin) {
    // After an ensure, the entry: it cancels the stages before the cleanup at once and the hold,
    // which reaches this context's source once the cleanup finished.
    _ = (entry ?? source).cancel(reason: error, origin: origin)
  }

  /// PromiseKit 7's other spelling of ``cancel(error:fileID:line:function:)``.
  ///
  /// - Parameters:
  ///   - error: the rejection error.
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(
    with error: Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    cancel(error: error, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// `CancellableWithReason`'s spelling of ``cancel(error:fileID:line:function:)``; its record has
  /// no call site (see ``cancel()``). Called by a cancel handler of a token or source (a token's
  /// `register(cancelable:)` registers one), the record shows the cancel as arriving from it
  /// through a link.
  ///
  /// - Parameter reason: the rejection error.
  public func cancel(dueTo reason: any Error) {
    _ = (entry ?? source).cancel(dueTo: reason)
  }

  /// The label the chain was made with (see ``init(label:)``), shared by the parts of it made
  /// later; `nil` without one.
  public var label: String? { source.label }

  /// Why, when, where from and along which chains and sources this chain was cancelled: the record
  /// of its first cancel (see `CancellationRecord`), or `nil` while no cancel was attempted. A
  /// chain shows as one hop, however many parts its `recover` and `ensure` stages made; the hop
  /// is named by the chain's ``label``.
  ///
  /// After an `ensure`, while the cancel waits for the clean-up, the record is already there.
  public var cancellationRecord: CancellationRecord? {
    source.cancellationRecord ?? hold?.cancellationRecord
  }

  /// The chain's cancellation as a core signal: cancelled, with ``cancelledError``, when the
  /// chain is cancelled. Hand it to code written against `CancelCore` (or wrap it in a token).
  public var signal: CancelSignal { CancelSignal(storage: source) }

  /// Whether a cancel rejected at least one member. `false` on a chain that finished before it was
  /// cancelled (unlike PromiseKit 7, which reports `true`).
  public var isCancelled: Bool { source.hasCancelledMember }

  /// Whether ``cancel(error:fileID:line:function:)`` was called (even if the chain had already finished). After an
  /// `ensure`, also while the cancel waits for the cleanup.
  public var cancelAttempted: Bool { source.isCancelled || hold?.isCancelled == true }

  /// Whether this context's cancel started rejecting its members: what a stage checks before its
  /// body starts. One atomic load. (After an `ensure`, a held cancel counts once the cleanup
  /// finished; no stage after the cleanup starts before that anyway.)
  @inlinable var cancelStarted: Bool { source.isCancelled }

  /// This context's own cancel reason (the held one of a context after an `ensure` not included).
  @usableFromInline var cancelReason: (any Error)? { source.reason }

  /// Throws the cancel error if a cancel of this chain has started: a body about to start calls it
  /// (a `recover` body handling the error of the chain before its branch, for instance), so that
  /// no body starts once the cancel has begun. The member that body would resolve is already
  /// rejected with the same error.
  @usableFromInline func checkNotCancelled() throws {
    if cancelStarted, let reason = cancelReason { throw reason }
  }

  /// Whether the chain was cancelled with the error `error` identifies (that very error object).
  /// Lock-free: a stage passing a cancel down the chain checks that the error it was handed is the
  /// cancel error before keeping it.
  @inlinable func isCancelled(by error: ErrorIdentity) -> Bool { source.isCancelled(by: error) }

  /// The error the chain was cancelled with (the first one), or `nil`.
  public var cancelledError: Error? { source.reason ?? hold?.reason }

  // MARK: Members, tasks, links

  /// Makes `promise` a member: a cancel rejects it while it is pending. It leaves the context as
  /// soon as it settles, so a long-lived context stays small.
  @inlinable
  func adopt<T>(_ promise: Promise<T>) {
    let member = promise.makeMember(of: source)
    if source.addMember(member) { promise.attachMember(member) }
  }

  /// Settles `promise` (a member of this chain) with `result`, or with the cancel error if this
  /// chain's cancel has started: a cancel counts from the moment it flips the context, even before
  /// it reached this member (the tasks are cancelled first, and one may resolve the work the member
  /// follows, or a stage's body may return while the cancel runs).
  @inlinable
  func settle<T>(_ promise: Promise<T>, with result: Swift.Result<T, Error>) {
    chain.settle(promise, with: result)
  }

  /// Rejects `promise` (a member) with the cancel `reason`: records the rejection (what
  /// ``isCancelled`` reports) **before** delivering it, so a handler of the member that runs
  /// synchronously already sees ``isCancelled``. Returns whether this call settled the promise.
  @inlinable @discardableResult
  func reject<T>(_ promise: Promise<T>, cancelledWith reason: any Error) -> Bool {
    chain.reject(promise, cancelledWith: reason)
  }

  /// Records that a cancel rejected a member (what ``isCancelled`` reports), in the source's
  /// member group.
  @usableFromInline
  func markRejected() {
    chain.markRejected()
  }

  /// Calls `task.cancel()` (once) and `reject` when the chain is cancelled while `work` is
  /// pending; at once if the chain's cancel already started.
  ///
  /// Once `work` settled, nothing is left to stop: the registration leaves the context (its
  /// closures are released), and a later cancel runs neither. If `work` settles while the cancel
  /// runs, what the cancel reached first wins: the handler skips work that settled before the
  /// handler ran, unless the cancel itself rejected it (a member rejected by this very cancel).
  @usableFromInline
  func append<Work: Thenable>(
    task: (any CancellableTask)?, reject: (@Sendable (Error) -> Void)?, whilePending work: Work
  ) {
    guard task != nil || reject != nil else { return }
    guard cancelStarted || work.isPending else { return }
    // `work` is held weakly: its callback below holds the registration (and so the source), and a
    // strong reference back would keep both alive for as long as the work stays pending. Work that
    // nobody holds any more is treated as pending (its task is still stopped).
    let registration = source.register(
      .onCancelWithReason { [unowned source, weak work] reason in
        // (The source runs this handler, so it is alive; the context is not captured, so that a
        // registration never keeps its context alive.)
        if let work, !Self.isPending(work, orCancelledBy: source) { return }
        task?.cancel()
        reject?(reason)
      })
    // Leaves the context when the work settles (at once if it already has; after a cancel the
    // registration is already spent and this does nothing).
    if registration.isActive { work.pipe { _ in registration.unregister() } }
  }

  /// Runs `body` once if this context's own source is cancelled; it is released unrun when the
  /// source closes (nothing can cancel the chain any more).
  @usableFromInline
  func onCancel(_ body: @escaping @Sendable () -> Void) {
    _ = source.register(.onCancel(body))
  }

  /// Whether `work` is still pending, or was rejected by the cancel of `source`.
  private static func isPending<Work: Thenable>(_ work: Work, orCancelledBy source: CancelStorage) -> Bool {
    switch work.result {
    case nil: return true
    case .fulfilled: return false
    case .rejected(let error): return source.isCancelled(by: ErrorIdentity(error))
    }
  }

  /// Links `other` so that cancelling this context cancels it too (with the same error).
  func append(_ other: CancelContext) {
    guard other !== self else { return }
    chain.append(other)
  }
}
