/// A producer's request handler with its executor (resolved at registration); its answer is a
/// completion to apply, or `nil` to continue.
struct RequestHandler: Sendable {
  let executor: Executor
  let body: @Sendable (CancellationOptions) -> ErasedCompletion?
}

/// The futures a future waits on, each with the key of its callback there.
enum Upstream: Sendable {
  /// Nothing: a producer's own future, a stage whose block is running, or a completed future.
  case none
  /// One future (a parent, or the future a block or producer handed over).
  case one(_FutureCore, RegistrationKey)
  /// Several (the inputs of a combinator).
  case many(ContiguousArray<UpstreamLink>)

  /// Removes this future's callbacks from every upstream future. Call it outside any lock.
  func removeConsumers() {
    switch self {
    case .none: break
    case .one(let node, let key): node.removeConsumer(key)
    case .many(let links): for link in links where !link.direct { link.node.removeConsumer(link.key) }
    }
  }
}

/// One upstream future and the key of the callback there.
struct UpstreamLink: Sendable {
  let node: _FutureCore
  let key: RegistrationKey
  /// A direct link (a batch's input): requests reach the input as its own token's would, without
  /// the tree rule, and the link's callback belongs to the batch, so it is never removed.
  var direct = false
}

/// What `consumerRequest` decided under the lock.
private enum ConsumerDecision {
  case stale, detached, process
}

/// One forward: `from`, a consumer waiting on `to` under `key`, passes a request on.
struct RequestHop {
  let from: _FutureCore
  let to: _FutureCore
  let key: RegistrationKey
  let options: CancellationOptions
  /// Skip the tree rule: the request goes to `to` as its own token's would.
  var direct = false
}

/// Follows requests up a chain iteratively, so a request through a very long chain does not grow
/// the stack: each step returns the next hop, usually the only one; further hops (a combinator's
/// inputs) wait in `waiting`, newest first.
///
/// A request processes each future at most once: a hop to a future it already processed is
/// dropped. Hand-overs that would close a cycle are refused (see `_FutureCore.bind`), but one
/// racing another, or found only beyond that check's reach, could still close one; the request
/// then stops where it started instead of going round forever.
///
/// The hops travel as plain optionals and an array passed `inout`, not in a result enum, which a
/// chain's request step copied and destroyed (measured: ~30 instructions per stage).
func driveRequest(_ first: RequestHop?, waiting: [RequestHop] = [], processed start: _FutureCore) {
  var current = first
  var waiting = waiting
  var visited = ProcessedFutures(start)
  // `take()` moves the hop out (a copy would retain and release both of its futures).
  while let hop = current.take() ?? waiting.popLast() {
    if visited.contains(hop.to) { continue }
    if hop.direct {
      current = hop.to.processRequest(hop.options, more: &waiting)
      visited.insert(hop.to)
    } else {
      var processed = false
      current = hop.to.consumerRequest(
        from: hop.from, key: hop.key, options: hop.options, more: &waiting, processed: &processed)
      if processed { visited.insert(hop.to) }
    }
  }
}

/// The futures one request processed. The first one is kept inline, so a request that stops at
/// its own future allocates nothing; the others are held strongly, so that no future freed during
/// the request can lend its address to a new one.
struct ProcessedFutures {
  private let start: _FutureCore
  private var others: Set<Identity> = []

  init(_ start: _FutureCore) {
    self.start = start
  }

  func contains(_ future: _FutureCore) -> Bool {
    future === start || (!others.isEmpty && others.contains(Identity(future: future)))
  }

  mutating func insert(_ future: _FutureCore) {
    others.insert(Identity(future: future))
  }

  /// A future compared and hashed by identity.
  private struct Identity: Hashable {
    let future: _FutureCore

    static func == (lhs: Identity, rhs: Identity) -> Bool { lhs.future === rhs.future }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(future)) }
  }
}

extension _FutureCore {
  /// What `processRequest` decided under the lock.
  private struct RequestStep {
    var handlers: ContiguousArray<RequestHandler> = []
    var forwardTo = Upstream.none
    var detachFrom = Upstream.none
    var completeNow = false
  }

  /// Processes a request that reached this future; returns the first hop to forward it along
  /// and appends any further ones to `more`.
  final func processRequest(_ options: CancellationOptions, more: inout [RequestHop]) -> RequestHop? {
    guard let step = lock.withLock({ lockedRequestStep(options) }) else { return nil }
    return finishRequest(step, options, more: &more)
  }

  /// Records a request that reached this future and decides what to do about it. Call it with
  /// the lock held; `nil` if the future already completed.
  private func lockedRequestStep(_ options: CancellationOptions) -> RequestStep? {
    guard !machine.isSettled else { return nil }
    let tellProducer = !options.isSuperset(of: [.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest])
    requestedOptions = (requestedOptions ?? []).union(options)
    var step = RequestStep()
    if tellProducer, let extras { step.handlers = extras.handlers }
    step.completeNow = options.contains(.forceThisFutureToBeCancelledImmediately)
    switch upstream {
    case .none:
      let extras = lockedExtras()
      extras.unforwarded = (extras.unforwarded ?? []).union(options)
    case .one, .many:
      if options.contains(.doNotForwardRequest) {
        swap(&step.detachFrom, &upstream)
        step.completeNow = true
      } else {
        step.forwardTo = upstream
      }
    }
    return step
  }

  /// Carries out what `lockedRequestStep` decided, outside the lock; returns the first hop and
  /// appends any further ones to `more`.
  private func finishRequest(
    _ step: RequestStep, _ options: CancellationOptions, more: inout [RequestHop]
  ) -> RequestHop? {
    if step.completeNow { settle(.cancelled, detachUpstream: false) }
    // Tested first: a chain's request step has nothing to detach and no handler, and calling
    // into either cost ~20 instructions per stage even then (measured).
    if case .none = step.detachFrom {} else { step.detachFrom.removeConsumers() }
    if !step.handlers.isEmpty {
      var answeredHere = false
      for handler in step.handlers {
        answeredHere = answeredHere || handler.executor.isImmediate
        runRequestHandler(handler, options)
      }
      // A handler that answered here with `.completeUsing` replaced the upstream future and
      // forwarded the request there itself, or with another `.complete` ended this future: the
      // old upstream no longer waits for it. (A forced request ended the future before the
      // handlers ran; its upstream is still told.)
      if answeredHere, !step.completeNow, case .one(let node, let key) = step.forwardTo, !upstreamIs(node, key) {
        return nil
      }
    }
    let forwarded = options.subtracting(.forceThisFutureToBeCancelledImmediately)
    switch step.forwardTo {
    case .none: return nil
    case .one(let node, let key): return RequestHop(from: self, to: node, key: key, options: forwarded)
    case .many(let links):
      var first: RequestHop?
      for link in links {
        let hop = RequestHop(from: self, to: link.node, key: link.key, options: forwarded, direct: link.direct)
        if first == nil { first = hop } else { more.append(hop) }
      }
      return first
    }
  }

  /// A request from the consumer waiting here under `key`: the tree decision (may it reach this
  /// future?) and the request itself share one lock section.
  ///
  /// - Returns: the first hop to forward the request along (further ones are appended to
  ///   `more`). If other consumers wait here, `consumer` is detached instead (it completes
  ///   cancelled); if this future already completed, `consumer` decides where the request goes.
  final func consumerRequest(
    from consumer: _FutureCore, key: RegistrationKey, options: CancellationOptions, more: inout [RequestHop],
    processed: inout Bool
  ) -> RequestHop? {
    var removed: FutureCallback?
    var step: RequestStep?
    // Read before taking this future's lock (the consumer's state has a lock of its own). A forced
    // request completes its future before passing the request on.
    let consumerCompleted = consumer.isCompleted
    let decision = lock.withLock { () -> ConsumerDecision in
      if machine.isSettled { return .stale }
      if !options.contains(.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting) {
        switch machine.removeUnlessLast(key) {
        case .removed(let callback):
          removed = callback
          return .detached
        case .isLast: break
        case .notWaiting: return .stale
        }
      }
      // A consumer that already completed no longer waits here: it stops counting as a pending
      // consumer, so a sibling's later request reaches this future instead of detaching.
      if consumerCompleted { removed = machine.remove(key) }
      step = lockedRequestStep(options)
      return .process
    }
    _ = removed  // released here, after unlocking
    switch decision {
    case .stale:
      return consumer.forwardFoundStale(node: ObjectIdentifier(self), key: key, options: options)
    case .detached:
      consumer.consumerDetached()
      return nil
    case .process:
      guard let step else { return nil }
      processed = true
      return finishRequest(step, options, more: &more)
    }
  }

  /// Whether this future still waits on `node` under `key`.
  private func upstreamIs(_ node: _FutureCore, _ key: RegistrationKey) -> Bool {
    lock.withLock {
      if case .one(let current, let currentKey) = upstream { return current === node && currentKey == key }
      return false
    }
  }

  final func consumerDetached() {
    settle(.cancelled, detachUpstream: true)
  }

  final func forwardFoundStale(node: ObjectIdentifier, key: RegistrationKey, options: CancellationOptions)
    -> RequestHop?
  {
    lock.withLock { () -> RequestHop? in
      guard !machine.isSettled else { return nil }
      if case .one(let current, let currentKey) = upstream,
        ObjectIdentifier(current) != node || currentKey != key
      {
        // The block handed over another future meanwhile: the request goes there.
        return RequestHop(from: self, to: current, key: currentKey, options: options)
      }
      let extras = lockedExtras()
      extras.unforwarded = (extras.unforwarded ?? []).union(options)
      return nil
    }
  }

  /// Registers a producer's request handler; a request that arrived earlier is delivered to it
  /// now. On a completed future the handler is released without running.
  final func addRequestHandler(_ handler: RequestHandler) {
    let earlier = lock.withLock { () -> CancellationOptions?? in
      guard !machine.isSettled else { return .none }
      lockedExtras().handlers.append(handler)
      return .some(requestedOptions)
    }
    if case .some(.some(let options)) = earlier { runRequestHandler(handler, options) }
  }

  /// Runs one handler on its executor and applies a `.complete` answer (first completion wins).
  private func runRequestHandler(_ handler: RequestHandler, _ options: CancellationOptions) {
    if handler.executor.isImmediate {
      applyResponse(handler.body(options))
    } else {
      handler.executor.execute { [self] in applyResponse(handler.body(options)) }
    }
  }

  private func applyResponse(_ response: ErasedCompletion?) {
    if let response { apply(response, claim: false, detachUpstream: true) }
  }

  /// Asks for cancellation as this future's own token does.
  final func requestCancel(_ options: CancellationOptions) {
    var more: [RequestHop] = []
    let first = processRequest(options, more: &more)
    driveRequest(first, waiting: more, processed: self)
  }
}
