/// A reference model of requests and the tokens derived from them (`||`, `&&`, `map`, `flatMap`,
/// linked requests), written from the tables in their documentation.
///
/// Time is the step of the program. A derived token made at step `T` sees what happened to its
/// operands before `T` as happening at `T` (so the documented tie rules decide: `||` takes `lhs`'s
/// reason, `&&` `rhs`'s); what happens later happens in step order. Two events of one step (a
/// cancel and the links it cancels) have no order a test can rely on, so either reason is allowed.
struct TokenModel {
  /// What a token's outcome is, and from which step.
  enum Outcome: Equatable {
    /// Not completed.
    case pending
    /// Cancelled at step `at`, with one of these reason ids.
    case cancelled(reasons: Set<Int>, at: Int)
    /// Completed without cancellation at step `at`.
    case closed(at: Int)

    /// The step it ended at, seen by a token made at step `made`.
    func at(seenFrom made: Int) -> Int? {
      switch self {
      case .pending: nil
      case .cancelled(_, let at), .closed(let at): max(at, made)
      }
    }
  }

  /// How a token was made.
  indirect enum Token {
    /// A request's own token.
    case request(Int)
    case or(Int, Int, made: Int)
    case and(Int, Int, made: Int)
    case map(Int, cancels: Bool, made: Int)
    case flatMap(Int, then: Int, made: Int)
  }

  /// A request: what was done to it, and the tokens it is linked to.
  struct Request {
    var cancelled: (reason: Int, at: Int)?
    var closed: Int?
    let parents: [Int]
    let made: Int
  }

  private(set) var requests: [Request] = []
  private(set) var tokens: [Token] = []

  /// A new request linked to `parents` (tokens), made at step `made`; returns its token's index.
  mutating func addRequest(linkedTo parents: [Int] = [], at made: Int) -> Int {
    requests.append(Request(parents: parents, made: made))
    tokens.append(.request(requests.count - 1))
    return tokens.count - 1
  }

  /// Adds a derived token; returns its index.
  mutating func add(_ token: Token) -> Int {
    tokens.append(token)
    return tokens.count - 1
  }

  /// `cancel(reason:)` on a request at step `at`; returns whether it was still pending.
  mutating func cancel(request: Int, at step: Int) -> Bool {
    guard case .pending = outcome(ofRequest: request) else { return false }
    requests[request].cancelled = (step, step)
    return true
  }

  /// `close()` or releasing a request at step `at`.
  mutating func close(request: Int, at step: Int) {
    guard case .pending = outcome(ofRequest: request) else { return }
    requests[request].closed = step
  }

  /// The outcome of token `index` now.
  func outcome(_ index: Int) -> Outcome {
    switch tokens[index] {
    case .request(let request):
      return outcome(ofRequest: request)
    case .or(let lhs, let rhs, let made):
      return either(outcome(lhs), outcome(rhs), made: made)
    case .and(let lhs, let rhs, let made):
      return both(outcome(lhs), outcome(rhs), made: made)
    case .map(let source, let cancels, let made):
      let outcome = outcome(source)
      guard let at = outcome.at(seenFrom: made) else { return .pending }
      if case .cancelled(let reasons, _) = outcome, cancels { return .cancelled(reasons: reasons, at: at) }
      return .closed(at: at)
    case .flatMap(let source, let then, let made):
      let first = outcome(source)
      guard let firstAt = first.at(seenFrom: made) else { return .pending }
      guard case .cancelled = first else { return .closed(at: firstAt) }
      let second = outcome(then)
      guard let secondAt = second.at(seenFrom: made) else { return .pending }
      let at = max(firstAt, secondAt)
      if case .cancelled(let reasons, _) = second { return .cancelled(reasons: reasons, at: at) }
      return .closed(at: at)
    }
  }

  private func outcome(ofRequest index: Int) -> Outcome {
    let request = requests[index]
    // Candidates in the order they happen: (step, order within a step, outcome).
    var events: [(at: Int, order: Int, outcome: Outcome)] = []
    if let (reason, at) = request.cancelled { events.append((at, 0, .cancelled(reasons: [reason], at: at))) }
    if let at = request.closed { events.append((at, 0, .closed(at: at))) }
    for (order, parent) in request.parents.enumerated() {
      guard case .cancelled(let reasons, _) = outcome(parent), let at = outcome(parent).at(seenFrom: request.made)
      else { continue }
      // Parents cancelled before the request was made are linked, and so cancel it, in list order.
      events.append((at, at == request.made ? order : 0, .cancelled(reasons: reasons, at: at)))
    }
    guard let first = events.min(by: { ($0.at, $0.order) < ($1.at, $1.order) }) else { return .pending }
    // Parents cancelled in one later step: any of their reasons.
    let tied = events.filter { $0.at == first.at && $0.order == first.order }
    let reasons = tied.reduce(into: Set<Int>()) { set, event in
      if case .cancelled(let reasons, _) = event.outcome { set.formUnion(reasons) }
    }
    return reasons.isEmpty ? first.outcome : .cancelled(reasons: reasons, at: first.at)
  }

  /// `lhs || rhs`.
  private func either(_ lhs: Outcome, _ rhs: Outcome, made: Int) -> Outcome {
    let lhsAt = lhs.at(seenFrom: made)
    let rhsAt = rhs.at(seenFrom: made)
    switch (lhs, rhs) {
    case (.cancelled(let left, _), .cancelled(let right, _)):
      let (l, r) = (lhsAt!, rhsAt!)
      if l < r || (l == made && r == made) { return .cancelled(reasons: left, at: l) }
      if r < l { return .cancelled(reasons: right, at: r) }
      return .cancelled(reasons: left.union(right), at: l)
    case (.cancelled(let reasons, _), _): return .cancelled(reasons: reasons, at: lhsAt!)
    case (_, .cancelled(let reasons, _)): return .cancelled(reasons: reasons, at: rhsAt!)
    case (.closed, .closed): return .closed(at: max(lhsAt!, rhsAt!))
    default: return .pending
    }
  }

  /// `lhs && rhs`.
  private func both(_ lhs: Outcome, _ rhs: Outcome, made: Int) -> Outcome {
    let lhsAt = lhs.at(seenFrom: made)
    let rhsAt = rhs.at(seenFrom: made)
    switch (lhs, rhs) {
    case (.closed, .closed): return .closed(at: min(lhsAt!, rhsAt!))
    case (.closed, _): return .closed(at: lhsAt!)
    case (_, .closed): return .closed(at: rhsAt!)
    case (.cancelled(let left, _), .cancelled(let right, _)):
      let (l, r) = (lhsAt!, rhsAt!)
      if r > l || (l == made && r == made) { return .cancelled(reasons: right, at: r) }
      if l > r { return .cancelled(reasons: left, at: l) }
      return .cancelled(reasons: left.union(right), at: l)
    default: return .pending
    }
  }
}
