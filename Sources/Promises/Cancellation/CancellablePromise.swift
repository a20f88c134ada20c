import CancelCore

/// A promise that belongs to a cancellable chain: PromiseKit 7's `CancellablePromise`, with
/// CancellablePromiseKit's initializers.
///
/// It wraps its own ``Promise`` (``promise``) and shares one ``CancelContext`` with every member
/// of its chain. ``cancel(error:fileID:line:function:)`` (on any member) rejects every pending member of the chain with
/// the error, synchronously, and cancels every registered ``CancellableTask`` exactly once; see
/// ``CancelContext`` for the precise rules.
///
/// ```swift
/// let download = CancellablePromise<Data>(task: urlTask) { resolver in ... }
/// download.map { parse($0) }.done { show($0) }.catch(policy: .allErrors) { print($0) }
/// download.cancel()   // rejects every pending member with PMKError.cancelled, now
/// ```
public final class CancellablePromise<T: Sendable>: CancellableThenable, CancellableCatchMixin, CancellableHandle,
  CancellableWithReason, Sendable
{
  /// The promise this member resolves; a cancel rejects it while pending.
  public let promise: Promise<T>
  /// The chain's shared cancellation state.
  public let cancelContext: CancelContext

  /// A member of `context` that resolves `promise`, which other code may already hold (and
  /// settle).
  @inlinable
  init(member promise: Promise<T>, context: CancelContext) {
    self.promise = promise
    cancelContext = context
    context.adopt(promise)
  }

  /// A member of `context` that resolves `promise`, a pending promise nobody else holds yet: it
  /// joins the context without taking the promise's lock.
  @inlinable
  init(unsharedMember promise: consuming Promise<T>, context: borrowing CancelContext) {
    // `promise` is moved in; `context` is borrowed (an initializer's default is owned, which costs
    // a retain and a release more of it when the caller keeps using its reference).
    self.promise = promise
    cancelContext = copy context
    self.promise.joinUnshared(source: context.source)
  }

  /// A member of `context` that resolves `promise`, a pending promise nobody else holds yet that
  /// has joined `context` itself (see ``FollowStage``).
  @inlinable
  init(joined promise: consuming Promise<T>, context: borrowing CancelContext) {
    self.promise = promise
    cancelContext = copy context
  }

  /// A member of `context` that resolves `promise`, which has already settled: nothing is left for
  /// a cancel to reject, so it joins no list.
  @inlinable
  init(settled promise: consuming Promise<T>, context: consuming CancelContext) {
    self.promise = promise
    cancelContext = context
  }

  /// A new pending member of `context`.
  @inlinable
  convenience init(stageOf context: CancelContext) {
    self.init(unsharedMember: Promise(pending: ()), context: context)
  }

  /// Wraps a promise or guarantee: the new member resolves like `bridge`, and cancelling it
  /// rejects the wrapper while `bridge` keeps running (a guarantee's own task, such as the timer
  /// of ``after(seconds:)``, is cancelled too).
  ///
  /// - Parameters:
  ///   - bridge: the thenable to wrap.
  ///   - cancelContext: the chain to join; a new context when `nil`.
  @inlinable
  public convenience init<U: Thenable>(_ bridge: U, cancelContext: CancelContext? = nil) where U.T == T {
    self.init(bridge, cancelContext: cancelContext, label: nil)
  }

  /// Wraps a promise or guarantee as the first member of a new chain named `label` in
  /// cancellation records (see ``CancellableThenable/cancellationRecord``), as
  /// ``init(_:cancelContext:)`` does for a new chain.
  ///
  /// - Parameters:
  ///   - bridge: the thenable to wrap.
  ///   - label: the chain's name in records: `"load profile"`, say.
  @inlinable
  public convenience init<U: Thenable>(_ bridge: U, label: String) where U.T == T {
    self.init(bridge, cancelContext: nil, label: label)
  }

  /// Wraps `bridge` into `cancelContext`, or into a new context named `label`.
  @inlinable
  convenience init<U: Thenable>(_ bridge: U, cancelContext: CancelContext?, label: String?) where U.T == T {
    // A settled promise in a new context (`Promise.value(x).cancellize()`, what a cancellable
    // chain's body often returns): nothing can cancel the context before the member settles, so
    // the member starts settled, without waiting in the context or on `bridge`. Its promise is
    // `bridge` itself: a settled promise never changes.
    if cancelContext == nil, let promise = bridge as? Promise<T>, promise.settledResult != nil {
      self.init(settled: promise, context: CancelContext(label: label))
      return
    }
    let context = cancelContext ?? CancelContext(label: label)
    // A pending promise in a new chain: one stage object follows it (see `FollowStage`).
    if cancelContext == nil, let promise = bridge as? Promise<T> {
      self.init(joined: FollowStage.following(promise, in: context), context: context)
      return
    }
    self.init(stageOf: context)
    if let guarantee = bridge as? Guarantee<T> { Self.stopOnCancel(guarantee, in: context) }
    let settler = MemberSettler(self)
    if let promise = bridge as? Promise<T> {
      leave(promise, key: promise.pipeRemovably { settler.settle($0) }, remove: { $0.removeCallback($1) })
    } else if let guarantee = bridge as? Guarantee<T> {
      follow(guarantee, with: settler)
    } else {
      bridge.pipe { settler.settle($0) }
    }
  }

  /// Settles this member through `settler` when `guarantee` resolves, and takes that callback back
  /// out of `guarantee` if this member is cancelled first (see ``leave(_:key:remove:)``).
  @inlinable
  func follow(_ guarantee: Guarantee<T>, with settler: MemberSettler<T>) {
    leave(guarantee, key: guarantee.observe(.run { settler.settle(.success($0)) }), remove: { $0.removeCallback($1) })
  }

  /// Takes the callback `key` names back out of `wrapped` (a pending promise or guarantee this
  /// member follows) when this member is rejected, which, `wrapped` not having settled it, only a
  /// cancel does: a long-lived pending promise or guarantee wrapped into a shared context, or a
  /// guarantee wrapped on its own, and cancelled many times keeps none of its cancelled wrappers.
  /// A callback of this member rather than a handler of the context: a shared context that is
  /// never cancelled would keep one handler per wrapper. `wrapped` is held weakly, so that it and
  /// this member do not keep each other alive while both are pending.
  @inlinable
  func leave<Wrapped: AnyObject & Sendable>(
    _ wrapped: Wrapped, key: RegistrationKey?, remove: @escaping @Sendable (Wrapped, RegistrationKey) -> Void
  ) {
    guard let key else { return }
    promise.pipe { [weak wrapped] result in
      if case .failure = result, let wrapped { remove(wrapped, key) }
    }
  }

  /// Registers `guarantee`'s own task (if any) with `context`, while the guarantee is pending.
  @inlinable
  static func stopOnCancel(_ guarantee: Guarantee<T>, in context: CancelContext) {
    if let task = guarantee.task { context.append(task: task, reject: nil, whilePending: guarantee) }
  }

  /// Creates a pending member, calls `body` at once with its resolver, and registers `task`:
  /// cancelling calls `task.cancel()` once and rejects the promise.
  ///
  /// The task belongs to this promise: once the promise settled, it leaves the chain and a later
  /// cancel does not touch it. Once the cancel started, the resolver cannot replace the cancel
  /// error (a task that fulfils or rejects when cancelled leaves the promise rejected with it).
  ///
  /// - Parameters:
  ///   - task: the work to stop on cancel.
  ///   - body: starts the work; throwing rejects the promise.
  @inlinable
  public convenience init(task: (any CancellableTask)? = nil, resolver body: (Resolver<T>) throws -> Void) {
    // The body runs before the promise joins its chain: nothing can cancel a chain nobody holds
    // yet, so work that settles inside `body` costs no membership (see `init(startedBy:in:)`).
    let promise = Promise<T>(pending: ())
    let resolver = Resolver(promise)
    do {
      try body(resolver)
    } catch {
      resolver.reject(error)
    }
    self.init(startedBy: promise, in: CancelContext())
    cancelContext.append(task: task, reject: nil, whilePending: promise)
  }

  /// The member of a new chain `context` for `promise`, whose work has just started and which no
  /// cancel could reach yet: settled, it joins nothing; pending, it joins (and may settle on
  /// another thread meanwhile: see ``init(member:context:)``).
  @inlinable
  convenience init(startedBy promise: Promise<T>, in context: CancelContext) {
    if promise.settledResult != nil {
      self.init(settled: promise, context: context)
    } else {
      self.init(member: promise, context: context)
    }
  }

  /// Makes `promise` (resolved by `resolver`) the member: cancelling rejects it and calls
  /// `task.cancel()` once, unless `promise` settled first (the task then left the chain). Once
  /// the cancel started, `resolver` cannot replace the cancel error.
  ///
  /// - Parameters:
  ///   - task: the work to stop on cancel.
  ///   - promise: the pending promise.
  ///   - resolver: its resolver.
  @inlinable
  public convenience init(task: (any CancellableTask)? = nil, promise: Promise<T>, resolver: Resolver<T>) {
    self.init(member: promise, context: CancelContext())
    cancelContext.append(task: task, reject: nil, whilePending: promise)
  }

  /// A member already rejected with `error`.
  ///
  /// - Parameters:
  ///   - task: accepted for PromiseKit 7 compatibility; the member has already settled, so the task
  ///     is never cancelled by this chain.
  ///   - error: the error.
  @inlinable
  public convenience init(task: (any CancellableTask)? = nil, error: Error) {
    self.init(member: Promise(error: error), context: CancelContext())
    cancelContext.append(task: task, reject: nil, whilePending: promise)
  }

  /// CancellablePromiseKit's form: `body` starts the work and returns its cancel handler, which
  /// runs once (on the cancelling thread) when the chain is cancelled while the promise is
  /// pending, before the promise is rejected. Once the promise settled (`body` may settle it
  /// before it returns), the handler leaves the chain and never runs; once the cancel started,
  /// the resolver cannot replace the cancel error.
  ///
  /// - Parameter body: starts the work and returns how to stop it.
  ///
  /// Disfavored, so a body that returns nothing (PromiseKit 7's form) is never ambiguous.
  @inlinable
  @_disfavoredOverload
  public convenience init(resolver body: (Resolver<T>) throws -> (@Sendable () -> Void)) {
    // As in `init(task:resolver:)`: the body runs before the promise joins its chain.
    let promise = Promise<T>(pending: ())
    let resolver = Resolver(promise)
    var cancel: (@Sendable () -> Void)?
    do {
      cancel = try body(resolver)
    } catch {
      resolver.reject(error)
    }
    self.init(startedBy: promise, in: CancelContext())
    // A handler of the context: the core runs it exactly once, before the members are rejected.
    if let cancel { cancelContext.append(task: nil, reject: { _ in cancel() }, whilePending: promise) }
  }

  /// CancellablePromiseKit's form: resolves like `promise`; cancelling calls `cancel` once and
  /// rejects this member (`promise` itself is left to `cancel`). Once `promise` settled, `cancel`
  /// leaves the chain and never runs.
  ///
  /// - Parameters:
  ///   - promise: the promise to follow.
  ///   - cancel: stops the work behind `promise`.
  @inlinable
  public convenience init(using promise: Promise<T>, cancel: @escaping @Sendable () -> Void) {
    self.init(promise, cancelContext: CancelContext())
    cancelContext.append(task: nil, reject: { _ in cancel() }, whilePending: promise)
  }

  /// CancellablePromiseKit's wrapper form: `body` gets a `cancelPromise` that **rejects** (with
  /// the cancel error) when this promise is cancelled, and **fulfils** when it ends any other
  /// way, or when it is released without having been cancelled; the work it returns is followed.
  ///
  /// Typical use: `CancellablePromise(wrapper: { cancelPromise in when(work(), while: cancelPromise) })`.
  ///
  /// - Parameter body: starts the work; throwing rejects the promise.
  @inlinable
  public convenience init(wrapper body: (_ cancelPromise: Promise<Void>) throws -> Promise<T>) {
    self.init(stageOf: CancelContext())
    let cancelPromise = Promise<Void>(pending: ())
    // A handler: a cancel runs it before it rejects the members, so `cancelPromise` is rejected
    // before the member's rejection could fulfil it below.
    cancelContext.append(task: nil, reject: { cancelPromise.settle(.failure($0)) }, whilePending: promise)
    let release = WrapperRelease(cancelPromise)
    promise.pipe { _ in release.fulfil() }
    do {
      let settler = MemberSettler(self)
      try body(cancelPromise).pipe { settler.settle($0) }
    } catch {
      settle(.failure(error))
    }
  }

  /// A pending member and the resolver that settles it; cancelling rejects it.
  @inlinable
  public static func pending() -> (promise: CancellablePromise<T>, resolver: Resolver<T>) {
    let member = CancellablePromise(stageOf: CancelContext())
    return (member, Resolver(member.promise))
  }

  /// The result once resolved; `nil` while pending.
  public var result: Result<T>? { promise.result }

  /// Settles this member with `result`, or with the cancel error if the chain's cancel has
  /// started (see `CancelContext.settle(_:with:)`).
  @inlinable
  func settle(_ result: Swift.Result<T, Error>) {
    cancelContext.settle(promise, with: result)
  }

  /// The underlying promise (the member itself: cancelling the chain rejects it).
  @inlinable
  public func asPromise() -> Promise<T> { promise }

  /// Runs `body` once this member's promise has settled (at once if it already has), on the
  /// settling thread. A token registration holding this member uses it to let go of it.
  ///
  /// - Parameter body: what to do then.
  @inlinable
  public func whenWorkEnds(_ body: @escaping @Sendable () -> Void) {
    promise.pipe { _ in body() }
  }
}

extension CancellablePromise where T == Void {
  /// A member already fulfilled with `()`.
  ///
  /// - Parameter task: accepted for PromiseKit 7 compatibility; the member has already settled,
  ///   so the task is never cancelled by this chain.
  @inlinable
  public convenience init(task: (any CancellableTask)? = nil) {
    self.init(member: Promise<Void>(), context: CancelContext())
    cancelContext.append(task: task, reject: nil, whilePending: promise)
  }
}
