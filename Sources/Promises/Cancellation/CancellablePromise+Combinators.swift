import CancelCore

// MARK: firstly, hang

/// Runs `body` at once and returns a new chain resolved like the cancellable chain it returns;
/// that chain is linked (cancelling the result cancels it). If `body` throws, the result is
/// rejected with the error.
///
/// - Parameter body: starts the chain.
/// - Returns: the first member of the resulting chain.
public func firstly<V: CancellableThenable>(execute body: () throws -> V) -> CancellablePromise<V.T> {
  do {
    let first = try body()
    return InputPolicy.members.result(first.promise, inputs: [first])
  } catch {
    return CancellablePromise(error: error)
  }
}

/// Waits for `promise` and returns its value or throws its error. See ``hang(_:)-(Promise<T>)``.
///
/// - Parameter promise: the cancellable promise to wait for.
/// - Returns: its value.
public func hang<T: Sendable>(_ promise: CancellablePromise<T>) throws -> T {
  try hang(promise.promise)
}

// MARK: How the combinators treat their inputs

/// The three spellings of the cancellable combinators (DESIGN.md §4.2).
enum InputPolicy {
  /// PromiseKit 7 (no `autoCancel:`): the inputs are members of the result's chain.
  case members
  /// CancellablePromiseKit `autoCancel: true`: other inputs are cancelled when the result settles
  /// and when it is cancelled.
  case autoCancel
  /// CancellablePromiseKit `autoCancel: false`: inputs are never touched.
  case untouched

  init(autoCancel: Bool) {
    self = autoCancel ? .autoCancel : .untouched
  }

  /// Wraps `combined` (the combination of `inputs`' promises) in a new chain and applies the
  /// policy.
  ///
  /// When an input follows a clean-up, the result's context is gated (see
  /// `CancelContext.init(resultOf:)`): once a cancel of the result was attempted, its first member
  /// ignores the combination's outcome and is rejected by the cancel, once every such input settled.
  /// An outcome that came first settles the member and lets later cancels through at once.
  func result<Input: CancellableThenable, U>(_ combined: Promise<U>, inputs: [Input]) -> CancellablePromise<U> {
    guard self != .untouched else { return CancellablePromise(combined, cancelContext: CancelContext()) }
    let context = CancelContext(resultOf: inputs)
    let result: CancellablePromise<U>
    if let hold = context.hold {
      result = CancellablePromise(stageOf: context)
      let settler = MemberSettler(result)
      let source = context.source  // not the context: see `ChainState`
      combined.pipe { outcome in
        // A cancel attempted first rejects the member once the inputs it waits for settled.
        guard !hold.isCancelled else { return }
        // Settled before any cancel: the stages after the result see this outcome, and a later
        // cancel reaches them at once (no stage starts after it returned). Linked first, so that a
        // cancel made meanwhile is claimed by the member's settle.
        _ = source.link(to: hold)
        settler.settle(outcome)
      }
    } else {
      result = CancellablePromise(combined, cancelContext: context)
    }
    switch self {
    case .members, .untouched:
      break
    case .autoCancel:
      let pending = PendingInputs(inputs)
      let chain = result.cancelContext.chain  // not the context: see `ChainState`
      result.promise.pipe { _ in pending.cancel(withReasonOf: chain) }
    }
    return result
  }
}

/// The inputs of a combinator as its result's callback cancels them: their chains, and their
/// promises held weakly, not the members themselves.
///
/// The inputs' promises lead to the result's promise (the combination waits on them), whose
/// callback holds this: holding the promises (or the members, which also keep their contexts)
/// would make a cycle that keeps a dropped pending combination alive for ever (see `ChainState`).
/// A promise that went away can never settle, so whether it is pending no longer matters.
struct PendingInputs<T: Sendable>: Sendable {
  let inputs: [(promise: WeakPromise<T>, chain: ChainState)]

  init<Input: CancellableThenable>(_ members: [Input]) where Input.T == T {
    // Through the entry after an `ensure`, as the input's own `cancel()` would: the members before
    // the clean-up at once, the stages after it only once it finished.
    inputs = members.map { (WeakPromise($0.promise), $0.cancelContext.entryChain) }
  }

  /// Cancels the chain of every input still pending: with the reason of `result`'s chain if that
  /// chain was cancelled (so every input of a cancelled combination gets the one cancel error),
  /// else with ``PMKError/cancelled``.
  func cancel(withReasonOf result: ChainState) {
    // Cancelled: the inputs' records show the result's chain, through a link, as a link to it
    // would have (whichever of the two reaches an input first).
    let cancelled = result.cancelReason
    let reason = cancelled ?? CancelContext.defaultError
    for input in inputs where input.promise.value?.isPending ?? false {
      input.chain.cancel(error: reason, from: cancelled == nil ? nil : result)
    }
  }
}

/// A weak reference to a promise.
final class WeakPromise<T: Sendable>: Sendable {
  // `nonisolated(unsafe)`: written once by the initializer; Swift's weak references are safe to
  // load from any thread.
  nonisolated(unsafe) weak var value: Promise<T>?

  init(_ value: Promise<T>) {
    self.value = value
  }
}

// MARK: race

/// PromiseKit 7's cancellable `race`: resolves like the first input to resolve. The inputs are
/// members of the result's chain (cancelling the result cancels them); a rejecting input cancels
/// the others; a fulfilling one leaves them running. An empty array rejects with
/// ``PMKError/badInput``.
///
/// - Parameter promises: the competitors.
/// - Returns: a new chain resolved like the winner.
public func race<T: Sendable>(_ promises: [CancellablePromise<T>]) -> CancellablePromise<T> {
  let result = InputPolicy.members.result(race(promises.map(\.promise)), inputs: promises)
  let pending = PendingInputs(promises)
  let chain = result.cancelContext.chain  // not the context: see `ChainState`
  result.promise.pipe { outcome in
    guard case .failure = outcome else { return }
    pending.cancel(withReasonOf: chain)
  }
  return result
}

/// PromiseKit 7's cancellable `race` (variadic). See ``race(_:)-([CancellablePromise<T>])``.
///
/// - Parameter promises: the competitors.
/// - Returns: a new chain resolved like the winner.
public func race<T: Sendable>(_ promises: CancellablePromise<T>...) -> CancellablePromise<T> {
  race(promises)
}

/// CancellablePromiseKit's `race`: resolves like the first input to resolve. With
/// `autoCancel: true` every other input is cancelled as soon as one wins, and all are cancelled if
/// the result is; with `false` the inputs are never touched.
///
/// - Parameters:
///   - promises: the competitors; none rejects with ``PMKError/badInput``.
///   - autoCancel: whether the losers are cancelled.
/// - Returns: a new chain resolved like the winner.
public func race<T: Sendable>(_ promises: [CancellablePromise<T>], autoCancel: Bool) -> CancellablePromise<T> {
  InputPolicy(autoCancel: autoCancel).result(race(promises.map(\.promise)), inputs: promises)
}

// MARK: when

/// PromiseKit 7's cancellable `when(fulfilled:)`: waits for every input to fulfil, rejects as soon
/// as one rejects. The inputs are members of the result's chain: cancelling the result cancels
/// them. A settled result leaves the other inputs alone.
///
/// - Parameter promises: the inputs.
/// - Returns: a new chain fulfilled with every value, in order.
public func when<T: Sendable>(fulfilled promises: [CancellablePromise<T>]) -> CancellablePromise<[T]> {
  InputPolicy.members.result(when(fulfilled: promises.map(\.promise)), inputs: promises)
}

/// PromiseKit 7's cancellable `when(fulfilled:)` (variadic).
///
/// - Parameter promises: the inputs.
/// - Returns: a new chain fulfilled with every value, in order.
public func when<T: Sendable>(fulfilled promises: CancellablePromise<T>...) -> CancellablePromise<[T]> {
  when(fulfilled: promises)
}

/// CancellablePromiseKit's `when(fulfilled:autoCancel:)`: with `autoCancel: true`, the other
/// inputs are cancelled as soon as the result settles (one rejected) and when the result is
/// cancelled; with `false` they are never touched.
///
/// - Parameters:
///   - promises: the inputs.
///   - autoCancel: whether the other inputs are cancelled.
/// - Returns: a new chain fulfilled with every value, in order.
public func when<T: Sendable>(fulfilled promises: [CancellablePromise<T>], autoCancel: Bool) -> CancellablePromise<[T]>
{
  InputPolicy(autoCancel: autoCancel).result(when(fulfilled: promises.map(\.promise)), inputs: promises)
}

/// PromiseKit 7's cancellable `when(resolved:)`: waits for every input to resolve; never rejects
/// unless cancelled. The inputs are members of the result's chain.
///
/// - Parameter promises: the inputs.
/// - Returns: a new chain fulfilled with every result, in order.
public func when<T: Sendable>(resolved promises: [CancellablePromise<T>]) -> CancellablePromise<[Result<T>]> {
  InputPolicy.members.result(when(resolved: promises.map(\.promise)).asPromise(), inputs: promises)
}

/// PromiseKit 7's cancellable `when(resolved:)` (variadic).
///
/// - Parameter promises: the inputs.
/// - Returns: a new chain fulfilled with every result, in order.
public func when<T: Sendable>(resolved promises: CancellablePromise<T>...) -> CancellablePromise<[Result<T>]> {
  when(resolved: promises)
}

/// CancellablePromiseKit's `when(resolved:autoCancel:)`: with `autoCancel: true` cancelling the
/// result cancels the inputs; with `false` they are never touched.
///
/// - Parameters:
///   - promises: the inputs.
///   - autoCancel: whether cancelling the result cancels the inputs.
/// - Returns: a new chain fulfilled with every result, in order.
public func when<T: Sendable>(
  resolved promises: [CancellablePromise<T>], autoCancel: Bool
) -> CancellablePromise<[Result<T>]> {
  InputPolicy(autoCancel: autoCancel).result(when(resolved: promises.map(\.promise)).asPromise(), inputs: promises)
}

/// CancellablePromiseKit's `when(_:while:)`: resolves like `promise`, unless `cancelPromise`
/// rejects first, in which case it rejects with that error. Use it with
/// ``CancellablePromise/init(wrapper:)``, whose `cancelPromise` rejects on cancel.
///
/// - Parameters:
///   - promise: the work.
///   - cancelPromise: rejects when the work should be abandoned.
/// - Returns: a promise resolved like `promise` or rejected by `cancelPromise`.
///
/// Once `promise` resolves, the call leaves `cancelPromise`: a long-lived cancel promise (one per
/// token or screen, shared by many calls) keeps nothing of the calls that finished.
public func when<T: Sendable>(_ promise: Promise<T>, while cancelPromise: Promise<Void>) -> Promise<T> {
  let result = Promise<T>(pending: ())
  let key = cancelPromise.pipeRemovably { outcome in
    if case .failure(let error) = outcome { result.settle(.failure(error)) }
  }
  promise.pipe { outcome in
    result.settle(outcome)
    if let key { cancelPromise.removeCallback(key) }
  }
  return result
}

// MARK: when(fulfilled:concurrently:)

/// Pulls cancellable promises from `promiseIterator`, keeping at most `concurrently` of them
/// pending, and fulfils with every value in the order they were pulled; rejects as soon as one
/// rejects (and pulls no more).
///
/// Each pulled promise is linked to the result's chain: cancelling the result cancels the ones in
/// flight, and no new one is pulled afterwards. The result is rejected by the cancel before
/// `cancel` returns, unless a promise in flight follows an `ensure`/`ensureThen` clean-up: then
/// once every such promise settled (after its clean-up finished), as for the other combinators.
/// The iterator is only ever called by one thread at a time, never under a lock; a cancel made
/// while it runs (from another thread, or from the iterator itself) rejects the result once it
/// returned.
///
/// - Parameters:
///   - promiseIterator: makes the work lazily (for example `urls.lazy.map { download($0) }.makeIterator()`).
///   - concurrently: the most promises pending at once (at least 1; zero or less rejects the
///     result with ``PMKError/badInput`` and pulls nothing).
/// - Returns: a new chain fulfilled with every value, in pull order.
public func when<It: IteratorProtocol, T: Sendable>(
  fulfilled promiseIterator: It, concurrently: Int
) -> CancellablePromise<[T]> where It.Element == CancellablePromise<T> {
  guard concurrently > 0 else { return CancellablePromise(error: PMKError.badInput) }
  let context = CancelContext(resultOfInputsToCome: ())
  let result = CancellablePromise<[T]>(stageOf: context)
  guard let entry = context.entry, let hold = context.hold else { preconditionFailure("a gated context") }
  // The result's promise and storages, not the member or the context, which would keep the pulled
  // promises alive (see `ChainState`): the pulled promises' callbacks hold the puller.
  let (promise, source, settler) = (result.promise, context.source, MemberSettler(result))
  let inputs = ChainState(source: entry)
  // An outcome that comes before any cancel settles the result, and later cancels reach its stages
  // at once (linked first, so that a cancel made meanwhile is claimed by the settle); once a
  // cancel was attempted, only the cancel rejects it (see `stop`).
  let settle: @Sendable (Swift.Result<[T], Error>) -> Void = { outcome in
    guard !entry.isCancelled else { return }
    _ = source.link(to: hold)
    settler.settle(outcome)
  }
  let mailbox = Puller.start(
    promiseIterator, limit: concurrently, isStopped: { !promise.isPending || entry.isCancelled },
    wait: { next, deliver in
      inputs.append(next.cancelContext)
      next.promise.pipe { outcome in
        if case .failure(let error) = outcome { settle(.failure(error)) }  // at once
        deliver(outcome)
      }
    },
    finish: { outcomes in settle(Swift.Result { try outcomes.map { try $0.get() } }) },
    stop: Puller.Stop(
      // The inputs that follow a clean-up: a cancel reaches the result's stages after theirs.
      awaits: { $0.cancelContext.entry != nil && $0.promise.isPending },
      stopped: { if entry.isCancelled { _ = source.link(to: hold) } }))
  // A cancel makes the puller check whether it still waits for an input (it may wait for none).
  let check = entry.register(.onCancel { mailbox.send(nil) })
  if check.isActive { promise.pipe { _ in check.unregister() } }
  return result
}
