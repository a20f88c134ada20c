/// Asks for the cancellation of one ``Future``: get one with ``Future/getCancelToken()``.
///
/// A token requests at most once: only its first ``cancel(_:fileID:line:function:)`` does anything. The request goes
/// to the future's producer, or up the chain it was derived from (see the "Cancellation trees"
/// article). It conforms to the core's `Cancellable` (the `Cancelable` of the token spelling),
/// so anything that cancels a `Cancellable` can request it; as a `CancellableHandle`, a token
/// registration holds it until the future completes.
public final class CancelToken: OnceFlagHost, CancellableHandle, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the only variable is the storage of the core's atomic
  // `OnceFlag`, reached only through `onceFlag` after `init`; `target` never changes.
  /// The storage of `onceFlag`, taken by the first `cancel`, which makes "at most once" exact
  /// across threads. It must stay the first stored property (see `OnceFlagHost`).
  @exclusivity(unchecked) private var onceStorage = OnceFlagStorage()
  private let target: _FutureCore

  init(target: _FutureCore) {
    self.target = target
    precondition(hostsOnceFlag(at: &onceStorage), "the flag is not where OnceFlagHost.onceFlag looks")
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
  /// The call site is kept for the ``Future/cancellationRecord`` of every future the request
  /// ends.
  ///
  /// - Parameters:
  ///   - options: how the request travels; none by default.
  ///   - fileID: the caller's file, for the record; leave the default.
  ///   - line: the caller's line, for the record; leave the default.
  ///   - function: the caller's function, for the record; leave the default.
  public func cancel(
    _ options: CancellationOptions = [], fileID: StaticString = #fileID, line: Int = #line,
    function: StaticString = #function
  ) {
    guard onceFlag.take() else { return }  // each token requests at most once
    target.requestCancel(options, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// Requests cancellation, once, recording `origin` as the call that did (`.unknown` for the
  /// package's bridges, whose call site is not the user's); `byTask`: because a task awaiting the
  /// future was cancelled.
  package func cancel(_ options: CancellationOptions, origin: CancelOrigin, byTask: Bool = false) {
    guard onceFlag.take() else { return }
    target.requestCancel(options, origin: origin, byTask: byTask)
  }

  /// Requests cancellation with no options, recording no call site: the `Cancellable`
  /// requirement, for code that holds the token as a `Cancellable`. A direct `token.cancel()` calls
  /// ``cancel(_:fileID:line:function:)``, which records its caller.
  @_disfavoredOverload
  public func cancel() {
    cancel([], origin: .unknown)
  }

  /// Whether ``cancel(_:fileID:line:function:)`` would still do something: this token has not requested yet and the
  /// future has not completed.
  public var cancelCanBeRequested: Bool { !onceFlag.isTaken && !target.isCompleted }

  /// Runs `body` once the future has completed (at once if it already has), on the completing
  /// thread. It does not count as a consumer of the future: where requests go is unchanged.
  ///
  /// - Parameter body: what to do then.
  public func whenWorkEnds(_ body: @escaping @Sendable () -> Void) {
    target.whenCompleted(body)
  }
}
