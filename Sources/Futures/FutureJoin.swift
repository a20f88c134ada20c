/// Waits for the inputs of a combinator: the core's `CountdownPair`, whose context is what its
/// decisions call.
///
/// Each input holds one callback that reports whether it succeeded. Two decisions can be
/// watched: *first* (decided by the first input that does not succeed, or by the last success)
/// and *all* (decided when every input has completed). Each is decided once, under the pair's
/// lock; the decision runs after unlocking.
@usableFromInline typealias FutureJoin = CountdownPair<FutureJoinDecisions>

/// What a ``FutureJoin``'s decisions call.
@usableFromInline
struct FutureJoinDecisions: Sendable {
  /// Called once, with the index of the first input that did not succeed, or `nil` once every
  /// input succeeded.
  @usableFromInline let onFirst: (@Sendable (_ failedInput: Int?) -> Void)?
  /// Called once every input has completed.
  @usableFromInline let onAll: (@Sendable () -> Void)?
}

extension CountdownPair where Context == FutureJoinDecisions {
  /// A join of `count` inputs (at least one); see ``FutureJoinDecisions``.
  @usableFromInline convenience init(
    count: Int, onFirst: (@Sendable (_ failedInput: Int?) -> Void)?, onAll: (@Sendable () -> Void)? = nil
  ) {
    self.init(
      count: count, first: onFirst != nil, all: onAll != nil,
      context: FutureJoinDecisions(onFirst: onFirst, onAll: onAll))
  }

  /// Counts input `index`'s completion: a success is counted; anything else decides *first* alone.
  func operandCompleted(_ index: Int, succeeded: Bool) {
    let decided = arrive(counted: succeeded)
    if decided.first { context.onFirst?(succeeded ? nil : index) }
    if decided.all { context.onAll?() }
  }
}

extension _FutureCore {
  /// Connects `join` to `inputs` and makes them `self`'s upstream, so requests on `self` reach
  /// them (`direct`: as their own tokens' would; otherwise through the tree rule).
  @usableFromInline final func connect(_ join: FutureJoin, to inputs: [_FutureCore], direct: Bool) {
    var links = ContiguousArray<UpstreamLink>()
    for (index, input) in inputs.enumerated() {
      if let key = input.observe(.join(join, index), consumer: self) {
        links.append(UpstreamLink(node: input, key: key, direct: direct))
      }
    }
    // `self` is not handed out yet, so no request can have arrived before this.
    let leftover = waitOn(.many(links))
    leftover.removeConsumers()  // decided already: leave the inputs still pending
  }
}

/// The future of all of `inputs`' values: it succeeds with `values()` once every input
/// succeeded, and otherwise ends like the first input that did not succeed.
@inlinable
func joinFutures<R: Sendable>(_ inputs: [_FutureCore], values: @escaping @Sendable () -> R) -> Future<R> {
  let output = Future<R>(pending: ())
  let inputs = distinctFutures(inputs)
  let join = FutureJoin(count: inputs.count) { failed in
    if let failed {
      // Stay on the other inputs until they complete: a request being forwarded to all of them
      // right now (the one that just cancelled this input) must still reach the rest.
      output.settle(passingOn: inputs[failed])
    } else {
      output.settle(.success(values()), detachUpstream: false)
    }
  }
  output.connect(join, to: inputs, direct: false)
  return output
}

/// `futures` without repeats, in order of first appearance (`futures` itself when it has none).
///
/// A combinator waits on each distinct input once: it is one consumer of that input, so its
/// requests pass the tree rule there (two callbacks of its own would count as two consumers, and
/// the request would stop at the first). The outcome is the same, as a repeated input ends the
/// same way at every position.
@inlinable
func distinctFutures<F: _FutureCore>(_ futures: [F]) -> [F] {
  guard futures.count > 1 else { return futures }
  if futures.count <= 8 {
    // Combinators have a few inputs: compare pairs, no allocation when nothing repeats.
    let repeats = futures.indices.contains { index in futures[..<index].contains { $0 === futures[index] } }
    guard repeats else { return futures }
  }
  var seen = Set<ObjectIdentifier>(minimumCapacity: futures.count)
  let distinct = futures.filter { seen.insert(ObjectIdentifier($0)).inserted }
  return distinct.count == futures.count ? futures : distinct
}

extension _FutureCore {
  /// This future's result when it did not succeed (a failure, or cancelled).
  final var nonSuccessResult: ErasedResult {
    if case .fail(let error)? = erasedResult { return .fail(error) }
    return .cancelled
  }
}
