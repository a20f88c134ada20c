/// A reference model of one cancellable promise chain whose handlers run synchronously (`on: nil`),
/// written from the rules in `docs/semantics.md` and `docs/promises-decisions.md`:
/// - every member made by chaining shares its context; `recover` starts a branch, a new context
///   whose cancel also cancels the chain before it; a cancel of the chain before it cancels the
///   branch too once the recover's input settled, unless that very cancel rejected the input (the
///   recover, whose policy covers cancellation, then handles it and its branch goes on); a recover
///   added to a chain already cancelled starts its branch anew (never reached by that chain);
/// - a cancel rejects every pending member of the cancelled contexts, and a member that joins a
///   cancelled context is rejected at once;
/// - no `map`, `then` or `recover` body starts in a cancelled context; `ensure` bodies always run,
///   once, when the member before them settles;
/// - a `recover` whose policy covers cancellation recovers a cancel of the chain before it.
///
/// Member 0 is the root. Each later member is chained on the member before it.
struct ChainModel {
  /// A member's kind.
  enum Kind: Equatable {
    case root
    /// `map { $0 + 1 }`.
    case map
    /// `ensure { }`.
    case ensure
    /// `recover(policy: .allErrors) { _ in .value(100) }`.
    case recover
    /// `then { _ in gate }`: waits for the plain promise numbered so.
    case gate(Int)
    /// `then { _ in chain }`: waits for the pending cancellable promise numbered so, a chain of
    /// its own that the body links to this one (cancelling this chain cancels it).
    case cancellableGate(Int)
  }

  /// A member's state.
  enum State: Equatable {
    case pending
    case fulfilled(Int)
    /// Rejected by a cancel.
    case cancelled
    /// Rejected with the failure numbered so.
    case failed(Int)
  }

  struct Member {
    let kind: Kind
    let context: Int
    var state: State = .pending
    var bodyRuns = 0
  }

  /// The value a recover replaces a rejection with.
  static let recovered = 100

  /// The value gate `g` fulfils with.
  static func gateValue(_ gate: Int) -> Int { 10 * (gate + 1) }

  private(set) var members = [Member(kind: .root, context: 0)]
  /// Whether each context was cancelled, the context before it (a branch's upstream), and whether
  /// a cancel of that upstream reaches the branch (once the recover's input settled other than by
  /// that cancel).
  private(set) var contexts: [(cancelled: Bool, upstream: Int?, linked: Bool)] = [(false, nil, false)]
  private var gates: [Int: Int] = [:]
  /// The branches of recovers added to a chain already cancelled: a cancel of that chain never
  /// reaches them.
  private var unlinkable: Set<Int> = []
  /// The cancellable gates' states, and the contexts each is linked to.
  private(set) var cancellableGates: [State] = [.pending, .pending, .pending]
  private var gateLinks: [Int: Set<Int>] = [:]

  /// Whether the context of member `index` was cancelled (its `cancelAttempted`).
  func cancelAttempted(_ index: Int) -> Bool { contexts[members[index].context].cancelled }

  /// Chains a member of `kind` on the last member.
  mutating func add(_ kind: Kind) {
    let last = members.count - 1
    var context = members[last].context
    if kind == .recover {
      let upstream = context
      contexts.append((false, upstream, false))
      context = contexts.count - 1
      if contexts[upstream].cancelled { unlinkable.insert(context) }
    }
    members.append(Member(kind: kind, context: context))
    let index = members.count - 1
    if contexts[context].cancelled { members[index].state = .cancelled }
    if members[last].state != .pending { deliver(to: index) }
  }

  /// Resolves the root (ignored once it settled).
  mutating func resolveRoot(_ state: State) {
    settle(0, state)
  }

  /// `cancel()` on member `index`: its context, every context before it, and every branch linked
  /// to a cancelled context.
  mutating func cancel(member index: Int) {
    cancel(context: members[index].context)
  }

  private mutating func cancel(context start: Int) {
    var toVisit = [start]
    var cancelled: [Int] = []
    while let current = toVisit.popLast() {
      guard !contexts[current].cancelled else { continue }
      contexts[current].cancelled = true
      cancelled.append(current)
      if let upstream = contexts[current].upstream { toVisit.append(upstream) }
      for branch in contexts.indices where contexts[branch].upstream == current && contexts[branch].linked {
        toVisit.append(branch)
      }
    }
    for member in members.indices where cancelled.contains(members[member].context) {
      settle(member, .cancelled)
    }
    for gate in cancellableGates.indices where !(gateLinks[gate] ?? []).isDisjoint(with: cancelled) {
      settleCancellableGate(gate, .cancelled)
    }
  }

  /// Fulfils cancellable gate `gate` with ``gateValue(_:)`` (ignored once it settled).
  mutating func open(cancellableGate gate: Int) {
    settleCancellableGate(gate, .fulfilled(Self.gateValue(gate)))
  }

  private mutating func settleCancellableGate(_ gate: Int, _ state: State) {
    guard cancellableGates[gate] == .pending else { return }
    cancellableGates[gate] = state
    for index in members.indices where members[index].kind == .cancellableGate(gate) && members[index].bodyRuns > 0 {
      settle(index, state)
    }
  }

  /// Fulfils gate `gate` with ``gateValue(_:)``.
  mutating func open(gate: Int) {
    guard gates[gate] == nil else { return }
    gates[gate] = Self.gateValue(gate)
    for index in members.indices where members[index].kind == .gate(gate) && members[index].bodyRuns > 0 {
      settle(index, .fulfilled(Self.gateValue(gate)))
    }
  }

  private mutating func settle(_ index: Int, _ state: State) {
    guard members[index].state == .pending else { return }
    members[index].state = state
    if index + 1 < members.count { deliver(to: index + 1) }
  }

  /// What member `index` does once the member before it settled.
  private mutating func deliver(to index: Int) {
    let upstream = members[index - 1].state
    let member = members[index]
    if member.kind == .recover, !unlinkable.contains(member.context), let before = contexts[member.context].upstream,
      !(upstream == .cancelled && contexts[before].cancelled)
    {
      contexts[member.context].linked = true
      if contexts[before].cancelled { cancel(context: member.context) }
    }
    if member.kind == .ensure {
      members[index].bodyRuns += 1
      settle(index, upstream)
      return
    }
    guard member.state == .pending, !contexts[member.context].cancelled else { return }
    switch (member.kind, upstream) {
    case (.map, .fulfilled(let value)):
      members[index].bodyRuns += 1
      settle(index, .fulfilled(value + 1))
    case (.recover, .fulfilled(let value)):
      settle(index, .fulfilled(value))
    case (.recover, _):
      members[index].bodyRuns += 1
      settle(index, .fulfilled(Self.recovered))
    case (.gate(let gate), .fulfilled):
      members[index].bodyRuns += 1
      if let value = gates[gate] { settle(index, .fulfilled(value)) }
    case (.cancellableGate(let gate), .fulfilled):
      members[index].bodyRuns += 1
      gateLinks[gate, default: []].insert(member.context)
      if cancellableGates[gate] != .pending { settle(index, cancellableGates[gate]) }
    default:
      settle(index, upstream)
    }
  }
}
