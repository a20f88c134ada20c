/// A future's rarely used state, out of line so that a derived stage stays small.
///
/// Only its `FutureRequestStateMachine` holds it, so it is guarded by its future's lock (see
/// `_FutureCore`), except `executor`, which never changes.
final class FutureExtras {
  /// A derived stage's executor, when `StageExecutor` has no case for it.
  let executor: Executor
  /// The producer's request handlers, in registration order. They stay until the future
  /// completes (so that a future whose producer went away still counts as answerable: see
  /// `onlyProducerCanComplete`), but each runs once.
  @exclusivity(unchecked) var handlers: ContiguousArray<RequestHandler> = []
  /// How many of `handlers`, from the first, have run (or been handed out to run).
  @exclusivity(unchecked) var handlersRun = 0
  /// Whether every request that reached the future so far was both forced and not forwarded, so
  /// none told the producer: a handler registered meanwhile (the future is about to complete
  /// cancelled) waits like one registered before any request.
  @exclusivity(unchecked) var onlyUntoldRequests = false
  /// Requests that found no running stage to forward to yet (a block is running, or a producer
  /// has not handed the future over): forwarded when the future binds to another one.
  @exclusivity(unchecked) var unforwarded: CancellationOptions?
  /// The requests that reached the future, when `PackedOptions` cannot hold them.
  @exclusivity(unchecked) var requested: CancellationOptions?
  /// What runs once the future completes without being a consumer of it (see
  /// `_FutureCore.whenCompleted(_:)`).
  @exclusivity(unchecked) var endObservers: ContiguousArray<@Sendable () -> Void> = []
  /// The label given when the future was made (see `Future.label`).
  @exclusivity(unchecked) var label: String?
  /// The first request that stopped here (the producer's future, or a stage whose block runs),
  /// for the record of a cancel its producer answers later.
  @exclusivity(unchecked) var firstRequest: RequestFacts?
  /// How the future ended cancelled, if the cancel started here (see `FutureEnding`).
  @exclusivity(unchecked) var ending: FutureEnding?

  init(executor: Executor) {
    self.executor = executor
  }

  /// The handlers that have not run yet, marked as run.
  func takeHandlersToRun() -> ContiguousArray<RequestHandler> {
    let start = handlersRun
    handlersRun = handlers.count
    if start == 0 { return handlers }  // shared, not copied: the common case
    return ContiguousArray(handlers[start...])
  }
}
