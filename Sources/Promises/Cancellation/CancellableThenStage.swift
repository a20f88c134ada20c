/// What a cancellable `then` makes of the value its body returned: the thenable its stage follows,
/// after linking a returned cancellable chain to the stage's own. A type rather than a stored
/// closure, so that the stage stays as small as a ``CancellableMapStage``.
@usableFromInline
protocol CancellableThenFollowing: Sendable {
  /// What the body returns.
  associatedtype Returned: Sendable
  /// The thenable the stage follows.
  associatedtype Followed: Thenable
  /// The thenable `returned` resolves like; links `returned`'s chain to `chain` where it has one.
  static func follow(_ returned: Returned, linkingTo chain: ChainState) -> Followed
}

/// A body that returns a member of a cancellable chain: that chain is linked to the stage's, so
/// cancelling the stage's chain cancels it too, and the stage follows the member's promise.
@usableFromInline
enum FollowingCancellable<Returned: CancellableThenable>: CancellableThenFollowing {
  @inlinable
  static func follow(_ returned: Returned, linkingTo chain: ChainState) -> Promise<Returned.T> {
    chain.append(returned.cancelContext)
    return returned.promise
  }
}

/// A body that returns a plain thenable: the stage follows it, and a cancel rejects the stage
/// while the thenable keeps running.
@usableFromInline
enum FollowingThenable<Returned: Thenable>: CancellableThenFollowing {
  @inlinable
  static func follow(_ returned: Returned, linkingTo chain: ChainState) -> Returned { returned }
}

/// The promise behind a member that `then` adds to a cancellable chain: the member's promise and
/// its body in one object, which waits on its parent and then on the thenable the body returned.
///
/// Like ``CancellableMapStage``, it waits in its parent's callbacks as itself (see
/// ``CancellableChainStage``), and on a returned ``Promise`` as itself again.
@usableFromInline
final class CancellableThenStage<Input: Sendable, Follow: CancellableThenFollowing>: Promise<Follow.Followed.T>,
  CancellableChainStage, @unchecked Sendable
{
  // Safety of `@unchecked Sendable`: `body` and `context` are written before the stage is
  // registered on its parent. The parent's callback (run exactly once, after that registration,
  // through the parent's lock) takes `body`, and `context` unless the body's thenable is followed;
  // that thenable's callback (run once, after its registration, through its lock) takes
  // `context`. Nothing else touches them. The state inherited from `Promise` is guarded by its
  // lock.
  @usableFromInline typealias Value = Follow.Followed.T

  /// The body, until the parent's callback takes it (nothing it captures outlives the run).
  @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Input) throws -> Follow.Returned)?
  /// The chain's state (its source, not its context: see ``CancellableMapStage/context``), until
  /// the stage settles from its parent's rejection or from the thenable the body returned; no body
  /// starts once a cancel was attempted.
  @usableFromInline @exclusivity(unchecked) var context: ChainState?

  @inlinable
  init(_ body: @escaping @Sendable (Input) throws -> Follow.Returned) {
    self.body = body
    super.init(pending: ())
  }

  /// A stage whose body has already run (see `CancelContext.thenSettled(_:_:following:)`): it
  /// only waits for the thenable the body returned (``wait(for:in:)``).
  @inlinable
  init(followedBy: Void) {
    body = nil
    super.init(pending: ())
  }

  /// Makes this stage (pending, nobody else holds it yet, body already run) a member of `context`,
  /// waiting for `followed`, and returns the new member. It joins before it waits, so that a cancel
  /// rejects it whenever `followed` settles.
  @inlinable
  consuming func wait(for followed: Follow.Followed, in context: CancelContext) -> CancellablePromise<Value> {
    self.context = context.chain
    let member = CancellablePromise<Value>(unsharedMember: copy self, context: context)
    follow(followed)
    return member
  }

  @inlinable
  func receive(_ result: consuming Swift.Result<Input, Error>, handingBackOn queue: ThreadDeliveryQueue?) -> Bool {
    guard let body = body.take(), let context else { return false }
    switch consume result {
    case .success(let value):
      // The cancel's handler rejects this member: the body does not start.
      guard !context.cancelStarted else {
        self.context = nil
        return false
      }
      do {
        let followed = Follow.follow(try body(value), linkingTo: context)
        // Returning the very member this call returned would wait for itself.
        guard followed !== self else { throw PMKError.returnedSelf }
        follow(followed)
        return false
      } catch {
        self.context = nil
        return settle(.failure(error), handingBackOn: queue)
      }
    case .failure(let error):
      self.context = nil
      return settle(.failure(consume error), handingBackOn: queue)
    }
  }

  /// Waits for `followed`, then settles like it (with the cancel error once a cancel started).
  @inlinable
  func follow(_ followed: Follow.Followed) {
    if let promise = followed as? Promise<Value> {
      // (The cast folds away where this is specialized.) The stage waits as itself again.
      promise.observe(
        .stage(self) { stage, result, queue in
          let stage = unsafeDowncast(consume stage, to: CancellableThenStage<Input, Follow>.self)
          guard stage.receiveFollowed(consume result, handingBackOn: queue) else { return nil }
          return Promise<Value>.readyDelivery(of: stage)
        })
    } else {
      followed.pipe { [self] result in _ = receiveFollowed(result, handingBackOn: nil) }
    }
  }

  /// Called once with the result of the thenable the body returned.
  @inlinable
  func receiveFollowed(_ result: consuming Swift.Result<Value, Error>, handingBackOn queue: ThreadDeliveryQueue?)
    -> Bool
  {
    // The chain's state is only released here: the settle claims a cancel through the member.
    guard context.take() != nil else { return false }
    return settle(result, handingBackOn: queue)
  }
}
