import CancelCore

/// The promise of the member `cancellize()` (and `CancellablePromise(promise)`, in a new chain)
/// makes of a pending promise: it settles like that promise, waiting in its callbacks as itself,
/// and a cancel of its chain rejects it and takes that callback back out.
///
/// One object, instead of the member's promise, a closure following the wrapped promise and a
/// handler of the chain taking that closure back out on a cancel. It refers to the wrapped promise
/// (`followed`) only to take its callback back out: while it waits, or until its chain closes
/// (after which no cancel can come), whichever ends first, so that a wrapped promise and its
/// follower dropped together while pending do not keep each other alive. A long-lived pending
/// promise wrapped and cancelled many times keeps none of its cancelled followers.
@usableFromInline
final class FollowStage<T: Sendable>: Promise<T>, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `followed` and `key` are read and written only inside
  // `lock.withLock` (the promise's own lock, the core's, hosted inline), as is the state inherited
  // from `Promise`.

  /// The promise this stage follows, while a cancel could still have to take this stage's
  /// callback back out of it.
  @usableFromInline @exclusivity(unchecked) var followed: Promise<T>?
  /// The key of this stage's callback in `followed`.
  @usableFromInline @exclusivity(unchecked) var key = RegistrationKey.none

  @inlinable
  init() {
    super.init(pending: ())
  }

  /// A new stage, a member of `context` (a new chain nobody else holds yet), that settles like
  /// `promise`.
  @inlinable
  static func following(_ promise: Promise<T>, in context: CancelContext) -> FollowStage<T> {
    let stage = FollowStage<T>()
    stage.joinUnshared(source: context.source, action: FollowStage<T>.actAsFollowingMember)
    let key = promise.observe(
      .stage(stage) { stage, result, queue in
        // Captures nothing; `stage` is the callback's reference (see `MapStage`).
        let stage = unsafeDowncast(consume stage, to: FollowStage<T>.self)
        guard stage.receive(consume result, handingBackOn: queue) else { return nil }
        return Promise<T>.readyDelivery(of: stage)
      })
    if let key { stage.keep(promise, key: key) }
    return stage
  }

  /// Remembers where this stage's callback waits, unless the stage was settled meanwhile (a
  /// cancel that came first, which could not take the callback out yet): then takes it out now.
  @inlinable
  func keep(_ promise: Promise<T>, key: RegistrationKey) {
    let settled = lock.withLock { () -> Bool in
      if machine.isSettled { return true }
      followed = promise
      self.key = key
      return false
    }
    if settled { promise.removeCallback(key) }
  }

  /// Called once with the followed promise's result.
  @inlinable
  func receive(_ result: consuming Swift.Result<T, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    let released = lock.withLock { followed.take() }
    _ = released  // released after unlocking
    return settle(result, handingBackOn: queue)
  }

  /// This stage's side of its member (see `Promise.actAsMember`): a cancel rejects it and takes
  /// its callback out of the followed promise; a close makes it forget the member and the followed
  /// promise (it goes on waiting on it).
  @inlinable
  static func actAsFollowingMember(_ member: CancelMember, _ event: CancelMember.Event) {
    let stage = unsafeDowncast(member.target, to: FollowStage<T>.self)
    switch event {
    case .cancelled(let reason):
      ChainState(source: member.source).reject(stage, cancelledWith: reason)
      let (promise, key) = stage.lock.withLock { (stage.followed.take(), stage.key) }
      promise?.removeCallback(key)
    case .closed:
      let released = stage.lock.withLock { () -> Promise<T>? in
        stage.member.forget(member)
        return stage.followed.take()
      }
      _ = released  // released after unlocking
    }
  }
}
