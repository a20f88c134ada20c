/// One forward: `from`, a consumer waiting on `to` under `key`, passes a request on.
struct RequestHop {
  let from: _FutureCore
  let to: _FutureCore
  let key: RegistrationKey
  let options: CancellationOptions
  /// Where the request started.
  let facts: RequestFacts
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
/// The hops travel as plain optionals and an array passed `inout`: a chain's request step copies
/// and destroys nothing more than the hop it returns.
func driveRequest(_ first: RequestHop?, waiting: [RequestHop] = [], processed start: _FutureCore) {
  var current = first
  var waiting = waiting
  var visited = ProcessedFutures(start)
  // `take()` moves the hop out (a copy would retain and release both of its futures).
  while let hop = current.take() ?? waiting.popLast() {
    if visited.contains(hop.to) { continue }
    if hop.direct {
      current = hop.to.processRequest(hop.options, facts: hop.facts, more: &waiting)
      visited.insert(hop.to)
    } else {
      var processed = false
      current = hop.to.consumerRequest(
        from: hop.from, key: hop.key, options: hop.options, facts: hop.facts, more: &waiting, processed: &processed)
      if processed { visited.insert(hop.to) }
    }
  }
}
