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
  Puller.start(
    promiseIterator, limit: concurrently, isStopped: { !result.isPending },
    wait: { thenable, deliver in
      thenable.pipe { outcome in
        if case .failure(let error) = outcome { result.settle(.failure(error)) }  // at once
        deliver(outcome)
      }
    },
    finish: { outcomes in result.settle(Swift.Result { try outcomes.map { try $0.get() } }) })
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
  Puller.start(
    promiseIterator, limit: concurrently, isStopped: { false },
    wait: { thenable, deliver in thenable.pipe(to: deliver) },
    finish: { outcomes in result.settle(outcomes.map(Result.init)) })
  return result
}
