extension _FutureCore {
  /// Processes a request that reached this future; returns the first hop to forward it along
  /// and appends any further ones to `more`.
  final func processRequest(_ options: CancellationOptions, facts: RequestFacts, more: inout [RequestHop])
    -> RequestHop?
  {
    guard let action = lock.withLock({ requests.request(options, facts: facts, isSettled: machine.isSettled) })
    else { return nil }
    return perform(action, options, facts, more: &more)
  }

  /// Carries out what the request machine decided, outside the lock; returns the first hop and
  /// appends any further ones to `more`.
  private func perform(
    _ action: FutureRequestStateMachine.RequestAction, _ options: CancellationOptions, _ facts: RequestFacts,
    more: inout [RequestHop]
  ) -> RequestHop? {
    if action.complete {
      settleCancelled(.ending(FutureEnding(.forced, request: facts)), detachUpstream: false)
    }
    // Tested first: a chain's request step has nothing to detach and no handler.
    if case .none = action.detach {} else { action.detach.removeConsumers() }
    if !action.handlers.isEmpty {
      var answeredHere = false
      for handler in action.handlers {
        answeredHere = answeredHere || handler.executor.isImmediate
        runRequestHandler(handler, options, facts)
      }
      // A handler that answered here with `.completeUsing` replaced the upstream future and
      // forwarded the request there itself, or with another `.complete` ended this future: the
      // old upstream no longer waits for it. (A forced request ended the future before the
      // handlers ran; its upstream is still told.)
      if answeredHere, !action.complete, case .one(let node, let key) = action.forward,
        !lock.withLock({ requests.waitsOnly(on: node, key: key) })
      {
        return nil
      }
    }
    let forwarded = options.subtracting(.forceThisFutureToBeCancelledImmediately)
    switch action.forward {
    case .none: return nil
    case .one(let node, let key): return RequestHop(from: self, to: node, key: key, options: forwarded, facts: facts)
    case .many(let links):
      var first: RequestHop?
      for link in links {
        let hop = RequestHop(
          from: self, to: link.node, key: link.key, options: forwarded, facts: facts, direct: link.direct)
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
    from consumer: _FutureCore, key: RegistrationKey, options: CancellationOptions, facts: RequestFacts,
    more: inout [RequestHop], processed: inout Bool
  ) -> RequestHop? {
    // Read before taking this future's lock (the consumer's state has a lock of its own). A forced
    // request completes its future before passing the request on.
    let consumerCompleted = consumer.isCompleted
    let action = lock.withLock {
      requests.consumerRequest(
        key: key, options: options, facts: facts, consumerCompleted: consumerCompleted, callbacks: &machine)
    }
    // A removed callback is released with the action, after unlocking.
    switch action {
    case .stale:
      return consumer.staleRequest(from: ObjectIdentifier(self), key: key, options: options, facts: facts)
    case .detachConsumer:
      // This future already dropped the consumer's callback. The consumer's other upstream
      // futures (a combinator's other inputs) keep theirs: the same request is on its way to
      // them, and each decides by the tree rule there (and drops the callback when it arrives).
      consumer.settleCancelled(.ending(FutureEnding(.detached, request: facts)), detachUpstream: false)
      return nil
    case .process(let step, _):
      processed = true
      return perform(step, options, facts, more: &more)
    }
  }

  /// A request this future passed on to the future `node` (where it waits under `key`) found that
  /// future completed or this one gone from it; returns where it goes instead, if anywhere.
  final func staleRequest(
    from node: ObjectIdentifier, key: RegistrationKey, options: CancellationOptions, facts: RequestFacts
  ) -> RequestHop? {
    let next = lock.withLock {
      requests.staleRequest(from: node, key: key, options: options, facts: facts, isSettled: machine.isSettled)
    }
    // The block handed over another future meanwhile: the request goes there.
    guard let next else { return nil }
    return RequestHop(from: self, to: next.to, key: next.key, options: options, facts: facts)
  }

  /// Registers a producer's request handler; a request that arrived earlier is delivered to it
  /// now (or, inside a request on this thread, when the current step returns: see
  /// `requestCancel(_:)`). On a completed future the handler is released without running.
  @usableFromInline final func addRequestHandler(_ handler: RequestHandler) {
    let action = lock.withLock { requests.addHandler(handler, isSettled: machine.isSettled) }
    if case .run(let options, let facts) = action {
      let facts = facts ?? RequestFacts(origin: .unknown, start: self)
      ReentrantRun.run((self, handler, options, facts)) { future, handler, options, facts in
        future.runRequestHandler(handler, options, facts)
      }
    }
  }

  /// Runs one handler on its executor and applies a `.complete` answer (first completion wins).
  fileprivate func runRequestHandler(_ handler: RequestHandler, _ options: CancellationOptions, _ facts: RequestFacts) {
    if handler.executor.isImmediate {
      applyResponse(handler.body(options, facts.origin), facts)
    } else {
      handler.executor.execute { [self] in applyResponse(handler.body(options, facts.origin), facts) }
    }
  }

  private func applyResponse(_ response: ErasedCompletion?, _ facts: RequestFacts) {
    if let response { applyRequestAnswer(response, facts: facts) }
  }

  /// Asks for cancellation as this future's own token does.
  ///
  /// A request made while another one is being carried out on this thread (by a request handler,
  /// or by a block that the request completed) is queued and carried out when the current step
  /// returns, still on this thread and before the outermost request returns: the core's
  /// `ReentrantRun`. So handlers that request each other, or a chain of producers each requesting
  /// the next, run one after the other in constant stack, however many there are.
  ///
  /// - Parameters:
  ///   - origin: the call that made the request, for the records of the futures it ends.
  ///   - byTask: the request was made because a task awaiting the future was cancelled.
  final func requestCancel(_ options: CancellationOptions, origin: CancelOrigin, byTask: Bool = false) {
    let facts = RequestFacts(origin: origin, start: self, byTask: byTask)
    ReentrantRun.run((self, options, facts)) { future, options, facts in
      var more: [RequestHop] = []
      let first = future.processRequest(options, facts: facts, more: &more)
      driveRequest(first, waiting: more, processed: future)
    }
  }
}

extension _FutureCore {
  /// Makes `links` (a combinator's inputs, or another future's links) this future's upstream, so
  /// requests on it reach them, unless it completed.
  ///
  /// - Returns: the links to release, and to remove the callbacks of, after unlocking: those it
  ///   waited on before, or `links` themselves if it completed.
  final func waitOn(_ links: Upstream) -> Upstream {
    lock.withLock { requests.waitOn(links, isSettled: machine.isSettled) }
  }

  /// The links this future waits on (for a future that shares them, see `Future.share(upstreamOf:)`).
  final var upstreamLinks: Upstream { lock.withLock { machine.isSettled ? .none : requests.upstream } }

  /// Whether a producer completion would change nothing now: the future completed, or its
  /// producer handed it over with `completeUsing`.
  final var producerCompletionIsTaken: Bool { lock.withLock { machine.isSettled || requests.isClaimed } }
}
