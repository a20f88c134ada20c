/// The cancel-request state of one future, as a plain value: where requests go (the futures it
/// waits on), which requests reached it, whether its producer handed it over, and the producer's
/// request handlers. It never calls user code: `_FutureCore` calls it only inside `lock.withLock`
/// (passing what it needs of its `SettleStateMachine`) and performs what each event returns after
/// unlocking (run handlers, complete, leave the futures upstream, pass the request on).
///
/// The rules it encodes are the "Cancellation trees" article's; note that the first request that
/// is not both forced and not forwarded runs every handler, each at most once.
/// Keep the two one-byte fields last: `_FutureCore` packs its own small fields behind them.
/// Why: docs/architecture.md, "Who owns synchronization" (Futures' requests are a state machine).
struct FutureRequestStateMachine {
  /// The futures this one waits on: where requests are forwarded.
  private(set) var upstream = Upstream.none
  /// Rarely used state, allocated on first need.
  private var extras: FutureExtras?
  /// The union of every request that reached this future.
  private var requested = PackedOptions.none
  /// Whether the producer handed the future to another one (``Completion/completeUsing(_:)``):
  /// later producer completions lose.
  private(set) var isClaimed = false

  /// A future with no request state yet; `stored` is a derived stage's executor when
  /// `StageExecutor` has no case for it.
  init(storedExecutor stored: Executor? = nil) {
    if let stored { extras = FutureExtras(executor: stored) }
  }

  // MARK: Reading

  /// The executor given to `init(storedExecutor:)`, `.immediate` if none.
  var storedExecutor: Executor { extras?.executor ?? .immediate }

  /// The union of every request that reached this future, `nil` if none did.
  private(set) var requestedOptions: CancellationOptions? {
    get {
      if requested.isSpilled { return extras?.requested }
      return requested.options
    }
    set {
      if let packed = PackedOptions(newValue) {
        requested = packed
      } else {
        madeExtras().requested = newValue
        requested = .spilled
      }
    }
  }

  /// Whether a request has reached this future.
  var isRequested: Bool { requested != .none }

  /// Whether the future's producer (or parent) is the only one left that could complete it: it
  /// was not handed over, and no request handler could answer a request with a completion.
  var onlyProducerCanComplete: Bool {
    guard !isClaimed else { return false }
    guard let extras else { return true }
    return extras.handlers.isEmpty
  }

  /// Whether this future waits on exactly `node` under `key`.
  func waitsOnly(on node: _FutureCore, key: RegistrationKey) -> Bool {
    if case .one(let current, let currentKey) = upstream { return current === node && currentKey == key }
    return false
  }

  // MARK: Requests

  /// What to do, after unlocking, about a request that reached a pending future. Each part is
  /// done in this order.
  struct RequestAction {
    /// Complete the future cancelled (the request was forced, or it detached the future).
    var complete = false
    /// Remove the future's callbacks from these futures (the request detached it from them).
    var detach = Upstream.none
    /// Run these request handlers with the request.
    var handlers: ContiguousArray<RequestHandler> = []
    /// Pass the request on to these futures (without `.forceThisFutureToBeCancelledImmediately`).
    var forward = Upstream.none
  }

  /// A request reached this future (its own token's, or one passed on to it).
  ///
  /// - Parameter passedOn: the request was passed on to this future by a consumer. One that
  ///   reached it before with at least these options was passed on from here already (or is kept
  ///   for the next hand-over, which passes it on), so this one goes no further: a chain of
  ///   producers each requesting the next costs one step per request, not one per future left.
  /// - Parameter facts: where the request started; the future keeps the first that stops here
  ///   (see `FutureExtras.firstRequest`).
  /// - Returns: what to do; `nil` if the future already completed (then nothing changed).
  mutating func request(
    _ options: CancellationOptions, facts: RequestFacts, isSettled: Bool, passedOn: Bool = false
  ) -> RequestAction? {
    guard !isSettled else { return nil }
    let earlier = requestedOptions
    requestedOptions = (earlier ?? []).union(options)
    var action = RequestAction()
    let tellProducer = !options.isSuperset(of: [.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest])
    if tellProducer {
      if let extras {
        extras.onlyUntoldRequests = false
        action.handlers = extras.takeHandlersToRun()
      }
    } else if earlier == nil {
      madeExtras().onlyUntoldRequests = true
    }
    action.complete = options.contains(.forceThisFutureToBeCancelledImmediately)
    if !action.handlers.isEmpty { keepFirst(facts) }
    switch upstream {
    case .none:
      keepUnforwarded(options, facts)
    case .one, .many:
      if options.contains(.doNotForwardRequest) {
        swap(&action.detach, &upstream)
        action.complete = true
      } else if passedOn, let earlier, earlier.isSuperset(of: options) {
        // Passed on from here already: the futures upstream had it.
      } else {
        action.forward = upstream
      }
    }
    return action
  }

  /// What to do about a request from a consumer waiting on this future.
  enum ConsumerRequestAction {
    /// The future completed, or the consumer no longer waits here: the consumer decides where the
    /// request goes (see ``staleRequest(from:key:options:isSettled:)``).
    case stale
    /// Other consumers wait here: the consumer left (its callback, removed, is released after
    /// unlocking) and completes cancelled; this future is not requested.
    case detachConsumer(removed: FutureCallback)
    /// The request reached this future. `removed` is the callback of a consumer that had already
    /// completed, which no longer counts as waiting here.
    case process(RequestAction, removed: FutureCallback?)
  }

  /// A request from the consumer waiting on this future under `key`: the tree rule (may it reach
  /// this future?) and the request itself, in one step.
  ///
  /// - Parameters:
  ///   - consumerCompleted: whether the consumer has completed (a forced request completes it
  ///     before passing the request on).
  ///   - callbacks: this future's settle machine, where the consumers wait.
  mutating func consumerRequest(
    key: RegistrationKey, options: CancellationOptions, facts: RequestFacts, consumerCompleted: Bool,
    callbacks: inout SettleStateMachine<ErasedResult, FutureCallback>
  ) -> ConsumerRequestAction {
    if callbacks.isSettled { return .stale }
    if !options.contains(.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting) {
      switch callbacks.removeUnlessLast(key) {
      case .removed(let callback): return .detachConsumer(removed: callback)
      case .isLast: break
      case .notWaiting: return .stale
      }
    }
    // A consumer that already completed no longer waits here: it stops counting as a pending
    // consumer, so a sibling's later request reaches this future instead of detaching.
    let removed = consumerCompleted ? callbacks.remove(key) : nil
    guard let action = request(options, facts: facts, isSettled: false, passedOn: true) else { return .stale }
    return .process(action, removed: removed)
  }

  /// A request that this future, a consumer of the future `node` under `key`, passed on but that
  /// found `node` completed or this future gone from it.
  ///
  /// - Returns: the future to pass it to instead, if this one now waits on another one (a block
  ///   handed it over meanwhile); otherwise the request is kept for the next hand-over.
  mutating func staleRequest(
    from node: ObjectIdentifier, key: RegistrationKey, options: CancellationOptions, facts: RequestFacts,
    isSettled: Bool
  ) -> (to: _FutureCore, key: RegistrationKey)? {
    guard !isSettled else { return nil }
    if case .one(let current, let currentKey) = upstream, ObjectIdentifier(current) != node || currentKey != key {
      return (current, currentKey)
    }
    keepUnforwarded(options, facts)
    return nil
  }

  /// Keeps a request that found no future to forward to, for the next hand-over.
  private mutating func keepUnforwarded(_ options: CancellationOptions, _ facts: RequestFacts) {
    let extras = madeExtras()
    extras.unforwarded = (extras.unforwarded ?? []).union(options)
    keepFirst(facts)
  }

  /// Keeps `facts` as the first request that stopped here, unless one did before.
  private mutating func keepFirst(_ facts: RequestFacts) {
    let extras = madeExtras()
    if extras.firstRequest == nil { extras.firstRequest = facts }
  }

  /// What to do with a request handler just registered.
  enum AddHandlerAction {
    /// The future completed: release the handler without running it.
    case release
    /// The handler waits for requests.
    case added
    /// The handler waits for requests, and one arrived before it: run it with these options
    /// (the first request that stopped here is `facts`).
    case run(CancellationOptions, facts: RequestFacts?)
  }

  /// Registers a producer's request handler.
  mutating func addHandler(_ handler: RequestHandler, isSettled: Bool) -> AddHandlerAction {
    guard !isSettled else { return .release }
    let extras = madeExtras()
    extras.handlers.append(handler)
    guard let requestedOptions, !extras.onlyUntoldRequests else { return .added }
    extras.handlersRun = extras.handlers.count
    return .run(requestedOptions, facts: extras.firstRequest)
  }

  // MARK: Links and hand-overs

  /// The producer hands the future over: `true` if it may (the future is pending and was not
  /// handed over before); from then on the producer's completions lose.
  mutating func claim(isSettled: Bool) -> Bool {
    guard !isSettled, !isClaimed else { return false }
    isClaimed = true
    return true
  }

  /// What a hand-over to another future did.
  enum BindAction {
    /// The future completed meanwhile: remove its callback from the other future.
    case completed
    /// The future now waits on the other one. `replaced` is what it waited on before (remove its
    /// callbacks there if the hand-over replaces an earlier one, and release it after unlocking);
    /// `forward` the requests to pass on to the other future now, the first of which started as
    /// `facts` says.
    case bound(replaced: Upstream, forward: CancellationOptions?, facts: RequestFacts?)
  }

  /// The future waits on `source`, where its callback waits under `key`.
  ///
  /// - Parameter replacing: the hand-over replaces an earlier one (a request handler's answer):
  ///   the requests the future got go on to `source` too.
  mutating func bind(
    to source: _FutureCore, key: RegistrationKey, replacing: Bool, isSettled: Bool
  ) -> BindAction {
    guard !isSettled else { return .completed }
    var replaced = Upstream.one(source, key)
    swap(&replaced, &upstream)
    var forward = extras?.unforwarded.take()
    if replacing, case .one = replaced, let requestedOptions {
      forward = requestedOptions.union(forward ?? []).subtracting(.forceThisFutureToBeCancelledImmediately)
    }
    return .bound(replaced: replaced, forward: forward, facts: extras?.firstRequest)
  }

  /// A derived stage waits on its parent, where its callback waits under `key`. Only for a stage
  /// not yet handed out (see `_FutureCore.attachStage(to:_:)`).
  mutating func waitOnParent(_ parent: _FutureCore, key: RegistrationKey) {
    upstream = .one(parent, key)
  }

  /// The future waits on `links` (a combinator's inputs) unless it completed.
  ///
  /// - Returns: the links to release, and to remove the callbacks of, after unlocking: those it
  ///   waited on before, or `links` themselves if it completed.
  mutating func waitOn(_ links: Upstream, isSettled: Bool) -> Upstream {
    guard !isSettled else { return links }
    var previous = links
    swap(&previous, &upstream)
    return previous
  }

  /// Hands over the links upstream, for a future being freed.
  mutating func takeUpstream() -> Upstream {
    var taken = Upstream.none
    swap(&taken, &upstream)
    return taken
  }

  // MARK: Completion

  /// Whether a completion may complete the future: a producer's completion (`unlessClaimed`)
  /// loses once the producer handed the future over.
  func allowsCompletion(unlessClaimed: Bool) -> Bool {
    !(unlessClaimed && isClaimed)
  }

  /// The future completed: everything that waited for requests is taken out, to be released after
  /// unlocking (and the end observers run).
  ///
  /// - Parameter cancel: for a cancelled completion, how it came about: an ending is kept, and
  ///   the link to the future whose cancel is passed on stays (see `SettleCause`).
  mutating func completed(cancel: SettleCause = .none) -> ReleasedRequestState {
    var released = ReleasedRequestState()
    switch cancel {
    case .none:
      if case .none = upstream {} else { swap(&released.upstream, &upstream) }
    case .ending(var ending):
      if ending.request == nil { ending.request = extras?.firstRequest }
      madeExtras().ending = ending
      if case .none = upstream {} else { swap(&released.upstream, &upstream) }
    case .upstream:
      break  // the one link stays
    case .input(let input):
      // Only the link to that input stays: the others may still be pending, and would keep this
      // future (through the combinator's callback there) as long as they are.
      var kept = Upstream.one(input, .none)
      if case .many(let links) = upstream, let link = links.first(where: { $0.node === input }) {
        kept = .one(link.node, link.key)
      }
      swap(&kept, &upstream)
      released.upstream = kept
    }
    if let extras {
      if !extras.handlers.isEmpty { swap(&released.handlers, &extras.handlers) }
      if !extras.endObservers.isEmpty { swap(&released.endObservers, &extras.endObservers) }
    }
    return released
  }

  /// Adds something to run once the future completes, without it being a consumer.
  ///
  /// - Returns: `false` if the future completed already (run `observer` now instead).
  mutating func addEndObserver(_ observer: @escaping @Sendable () -> Void, isSettled: Bool) -> Bool {
    guard !isSettled else { return false }
    madeExtras().endObservers.append(observer)
    return true
  }

  // MARK: Records

  /// The future is about to pass on the cancelled result of `parent`, which it did not wait on
  /// through a link (it was registered after `parent` completed): it links to it, for the record.
  ///
  /// - Returns: what it waited on before, to release after unlocking.
  mutating func linkForRecord(to parent: _FutureCore, isSettled: Bool) -> Upstream {
    guard !isSettled else { return .none }
    var replaced = Upstream.one(parent, .none)
    swap(&replaced, &upstream)
    return replaced
  }

  /// The label given when the future was made.
  var label: String? { extras?.label }

  /// Gives the future `label`, unless it has one or has completed: a record never changes, so
  /// neither does a label it may show.
  mutating func setLabel(_ label: String, isSettled: Bool) {
    guard !isSettled, extras?.label == nil else { return }
    madeExtras().label = label
  }

  /// How the future ended cancelled, if the cancel started here.
  var ending: FutureEnding? { extras?.ending }

  /// The extras, made if missing.
  private mutating func madeExtras() -> FutureExtras {
    if let extras { return extras }
    let made = FutureExtras(executor: .immediate)
    extras = made
    return made
  }
}
