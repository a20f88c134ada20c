import CancelCore

/// Pulls promises or guarantees from `promiseIterator`, keeping at most `concurrently` of them
/// pending, and fulfils with every value in the order they were pulled; rejects as soon as one
/// rejects, and pulls no more.
///
/// The iterator is only ever called by one thread at a time, never under a lock. A
/// `concurrently` below 1 rejects with ``PMKError/badInput`` without pulling.
///
/// - Parameters:
///   - promiseIterator: makes the work lazily (for example `urls.lazy.map { download($0) }.makeIterator()`).
///   - concurrently: the most thenables pending at once (at least 1).
/// - Returns: a promise of every value, in pull order.
public func when<It: IteratorProtocol>(
  fulfilled promiseIterator: It, concurrently: Int
) -> Promise<[It.Element.T]> where It.Element: Thenable {
  guard concurrently > 0 else { return Promise(error: PMKError.badInput) }
  let result = Promise<[It.Element.T]>(pending: ())
  ThenablePuller(
    iterator: promiseIterator, limit: concurrently,
    stop: (isStopped: { !result.isPending }, reject: { result.settle(.failure($0)) })
  ) { results in
    result.settle(Swift.Result { try results.map { try $0.get() } })
  }.request()
  return result
}

/// Pulls promises or guarantees from `promiseIterator`, keeping at most `concurrently` of them
/// pending, and fulfils with every result, fulfilled or rejected, in the order they were pulled.
///
/// A `concurrently` below 1 gives an empty array without pulling.
///
/// - Parameters:
///   - promiseIterator: makes the work lazily.
///   - concurrently: the most thenables pending at once (at least 1).
/// - Returns: a guarantee of every result, in pull order.
public func when<It: IteratorProtocol>(
  resolved promiseIterator: It, concurrently: Int
) -> Guarantee<[Result<It.Element.T>]> where It.Element: Thenable {
  guard concurrently > 0 else { return .value([]) }
  let result = Guarantee<[Result<It.Element.T>]>(pending: ())
  ThenablePuller(iterator: promiseIterator, limit: concurrently, stop: nil) { results in
    result.settle(results.map(Result.init))
  }.request()
  return result
}

/// The state of one plain `when(fulfilled:concurrently:)` or `when(resolved:concurrently:)`: the
/// iterator, the thenables pulled so far and how many are in flight, advanced one run at a time.
final class ThenablePuller<It: IteratorProtocol>: CoreLockHost, RunRequester, @unchecked Sendable
where It.Element: Thenable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: the mutable properties are touched only by `run()`, and runs
  // never overlap: the core's `SerialDrainStateMachine`, hosted beside a `CoreLock` (the hosting
  // exception), makes one thread at a time the drainer, and each run starts after the lock release
  // that ended the previous one. The iterator (user code) is called by the drainer, never under
  // the lock.
  typealias Value = It.Element.T
  typealias Stop = (isStopped: @Sendable () -> Bool, reject: @Sendable (Error) -> Void)

  @exclusivity(unchecked) private var drain = SerialDrainStateMachine()
  /// For `when(fulfilled:)`: whether the result already settled (pull no more), and how to
  /// reject it at once when a pulled thenable rejects. `nil` for `when(resolved:)`.
  private let stop: Stop?
  private let limit: Int
  private let finish: @Sendable ([Swift.Result<Value, Error>]) -> Void
  // Drainer-confined state.
  private var iterator: It
  private var exhausted = false
  private var started = false
  private var active = 0
  private var pulled: [It.Element] = []

  init(
    iterator: It, limit: Int, stop: Stop?,
    finish: @escaping @Sendable ([Swift.Result<Value, Error>]) -> Void
  ) {
    self.iterator = iterator
    self.limit = limit
    self.stop = stop
    self.finish = finish
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Asks for a run (the start, or one pulled thenable resolved); runs now if nobody else is.
  func request() {
    guard lock.withLock({ drain.request() }) else { return }
    repeat { run() } while lock.withLock { drain.finishedRun() }
  }

  private func run() {
    if started { active -= 1 } else { started = true }
    while !exhausted, active < limit, stop?.isStopped() != true {
      guard let next = iterator.next() else {
        exhausted = true
        break
      }
      active += 1
      pulled.append(next)
      // Captured as existentials so the closure does not capture the iterator's type.
      let requester: any RunRequester = self
      let reject = stop?.reject
      next.pipe { outcome in
        if case .failure(let error) = outcome { reject?(error) }
        requester.request()
      }
    }
    if exhausted, active == 0, stop?.isStopped() != true {
      // Every pulled thenable has resolved, so no request (and no run) follows this one.
      finish(pulled.map { $0.settledSwiftResult! })
    }
  }
}

extension Thenable {
  /// The result as the standard library's result; `nil` while pending.
  fileprivate var settledSwiftResult: Swift.Result<T, Error>? {
    result.map(\.swiftResult)
  }
}
