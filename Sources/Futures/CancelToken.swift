/// Asks for the cancellation of one ``Future``: get one with ``Future/getCancelToken()``.
///
/// A token requests at most once: only its first ``cancel(_:)`` does anything. The request goes
/// to the future's producer, or up the chain it was derived from (see the "Cancellation trees"
/// article). It conforms to the core's `Cancellable` (the `Cancelable` of the token spelling),
/// so anything that cancels a `Cancellable` can request it; as a `CancellableHandle`, a token
/// registration holds it until the future completes.
public final class CancelToken: CoreLockHost, CancellableHandle, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `used` is read and written only inside `lock.withLock`;
  // `target` never changes.
  /// Whether this token requested: set once, under the lock, by the first `cancel`, which makes
  /// "at most once" exact across threads. Second, in the lock's word.
  @exclusivity(unchecked) private var used = false
  private let target: _FutureCore

  init(target: _FutureCore) {
    self.target = target
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Requests cancellation of the future, once.
  ///
  /// Everything the request causes at once (forced completions, `.immediate` producer handlers,
  /// the forwarding up the chain) happens on this thread before this returns; no lock is held
  /// while producer code runs. Called while another request is being carried out on this thread
  /// (inside a request handler), it queues its request, carried out once the current step
  /// returns, before the outermost request returns: handlers that request each other run one
  /// after the other, in constant stack.
  ///
  /// - Parameter options: how the request travels; none by default.
  public func cancel(_ options: CancellationOptions = []) {
    guard takeTheRequest() else { return }
    target.requestCancel(options)
  }

  /// `true` for the first caller only: the once-flag of "each token requests at most once".
  private func takeTheRequest() -> Bool {
    lock.withLock {
      if used { return false }
      used = true
      return true
    }
  }

  /// Requests cancellation with no options. The same as `cancel([])`.
  public func cancel() {
    cancel([])
  }

  /// Whether ``cancel(_:)`` would still do something: this token has not requested yet and the
  /// future has not completed.
  public var cancelCanBeRequested: Bool { !lock.withLock { used } && !target.isCompleted }

  /// Runs `body` once the future has completed (at once if it already has), on the completing
  /// thread. It does not count as a consumer of the future: where requests go is unchanged.
  ///
  /// - Parameter body: what to do then.
  public func whenWorkEnds(_ body: @escaping @Sendable () -> Void) {
    target.whenCompleted(body)
  }
}
