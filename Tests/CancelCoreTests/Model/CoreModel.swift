/// A reference model of a few `CancelSource`s: what DESIGN's rules say must happen, written as
/// plainly as possible (no locks, no lists of its own kind, recursion where the real core uses an
/// explicit stack), so a property test can compare the core with it after every step.
///
/// The model knows handlers, links, deadlines on one manual clock, and releasing a source (which
/// closes it). A handler may carry an action: cancelling another source when it runs, the
/// re-entrancy the core promises to allow.
struct CoreModel {
  /// What a source's state is.
  enum State: Equatable {
    /// Still cancellable.
    case active
    /// Cancelled with the reason numbered so (a ``ModelReason`` id, or ``CoreModel/timeoutReason``).
    case cancelled(reason: Int)
    /// Ended without cancellation.
    case closed
  }

  /// What waits on a source, in registration order.
  enum Waiting: Equatable {
    /// A handler, by its id.
    case handler(Int)
    /// A link to a child source, by its index; `id` tells apart two links to the same child.
    case link(child: Int, id: Int)
  }

  /// A handler's kind.
  enum HandlerKind: Equatable {
    /// `onCancel { }`.
    case onCancel
    /// `onCancel { reason in }`.
    case onCancelWithReason
    /// `onComplete { cancelled in }`.
    case onComplete
  }

  /// One registered handler.
  struct Handler {
    let kind: HandlerKind
    /// A source this handler cancels when it runs (with reason `1000 + handler id`), if any.
    let cancels: Int?
  }

  /// One run of a handler, as the log records it: which handler and what it was told.
  struct Run: Equatable, CustomStringConvertible {
    let handler: Int
    /// `true`/`false` for completion handlers, the reason id for cancel handlers with a reason,
    /// `nil` otherwise.
    let outcome: Int?

    var description: String { "h\(handler)(\(outcome.map(String.init) ?? "-"))" }
  }

  /// The reason id a deadline cancels with.
  static let timeoutReason = -1

  private(set) var states: [State] = []
  private(set) var waiting: [[Waiting]] = []
  /// The link ids each source keeps in its parents (to remove them when it ends).
  private var parents: [[(parent: Int, id: Int)]] = []
  /// Each source's deadline: when, and the order it was scheduled in (ties fire in that order).
  private(set) var deadlines: [(due: Int, sequence: Int)?] = []
  private(set) var handlers: [Handler] = []
  /// Every handler run, in order.
  private(set) var log: [Run] = []
  private(set) var now = 0
  private var nextLinkID = 0
  private var nextSequence = 0

  /// Adds an active source; returns its index.
  mutating func addSource() -> Int {
    states.append(.active)
    waiting.append([])
    parents.append([])
    deadlines.append(nil)
    return states.count - 1
  }

  /// How many registrations (handlers and child links) wait on `source`.
  func registrationCount(_ source: Int) -> Int { waiting[source].count }

  // MARK: Events

  /// `cancel(reason:)`; returns what the core must return.
  mutating func cancel(_ source: Int, reason: Int) -> Bool {
    guard states[source] == .active else { return false }
    states[source] = .cancelled(reason: reason)
    let list = end(source)
    for item in list.reversed() {
      switch item {
      case .handler(let id): run(id, cancelledWith: reason)
      case .link(let child, _): _ = cancel(child, reason: reason)
      }
    }
    return true
  }

  /// `close()` (also what releasing the last reference to a source does).
  mutating func close(_ source: Int) -> Bool {
    guard states[source] == .active else { return false }
    states[source] = .closed
    let list = end(source)
    for case .handler(let id) in list.reversed() where handlers[id].kind == .onComplete {
      run(id, cancelledWith: nil)
    }
    return true
  }

  /// Registers a handler on `source`; returns its id and whether the registration waits (`false`:
  /// it ran or was released at once).
  mutating func register(_ kind: HandlerKind, on source: Int, cancels: Int?) -> (id: Int, waits: Bool) {
    handlers.append(Handler(kind: kind, cancels: cancels))
    let id = handlers.count - 1
    switch states[source] {
    case .active:
      waiting[source].append(.handler(id))
      return (id, true)
    case .cancelled(let reason):
      run(id, cancelledWith: reason)
    case .closed:
      if kind == .onComplete { run(id, cancelledWith: nil) }
    }
    return (id, false)
  }

  /// `unregister()` of handler `id` registered on `source`.
  mutating func unregister(_ id: Int, on source: Int) -> Bool {
    guard let index = waiting[source].firstIndex(of: .handler(id)) else { return false }
    waiting[source].remove(at: index)
    return true
  }

  /// `child.link(to: parent)`.
  mutating func link(child: Int, to parent: Int) -> Bool {
    guard child != parent, states[child] == .active else { return false }
    switch states[parent] {
    case .cancelled(let reason):
      _ = cancel(child, reason: reason)
      return false
    case .closed:
      return false
    case .active:
      nextLinkID += 1
      waiting[parent].append(.link(child: child, id: nextLinkID))
      parents[child].append((parent, nextLinkID))
      return true
    }
  }

  /// `cancel(after:)` on the manual clock: replaces an earlier deadline.
  mutating func setDeadline(_ source: Int, after delay: Int) {
    guard states[source] == .active else { return }
    nextSequence += 1
    deadlines[source] = (now + delay, nextSequence)
  }

  /// `advance(by:)`: fires due deadlines in time order, ties in scheduling order.
  mutating func advance(by delta: Int) {
    let target = now + delta
    while true {
      let due = deadlines.indices.compactMap { index in deadlines[index].map { (index, $0) } }
        .filter { $0.1.due <= target }
        .min { ($0.1.due, $0.1.sequence) < ($1.1.due, $1.1.sequence) }
      guard let (source, deadline) = due else { break }
      deadlines[source] = nil
      now = max(now, deadline.due)
      _ = cancel(source, reason: Self.timeoutReason)
    }
    now = max(now, target)
  }

  // MARK: Helpers

  /// Ends `source`: stops its deadline, leaves its parents, and hands back what waited on it.
  private mutating func end(_ source: Int) -> [Waiting] {
    deadlines[source] = nil
    for (parent, id) in parents[source] {
      waiting[parent].removeAll { $0 == .link(child: source, id: id) }
    }
    parents[source] = []
    let list = waiting[source]
    waiting[source] = []
    return list
  }

  private mutating func run(_ id: Int, cancelledWith reason: Int?) {
    let handler = handlers[id]
    switch handler.kind {
    case .onCancel:
      guard reason != nil else { return }
      log.append(Run(handler: id, outcome: nil))
    case .onCancelWithReason:
      guard let reason else { return }
      log.append(Run(handler: id, outcome: reason))
    case .onComplete:
      log.append(Run(handler: id, outcome: reason == nil ? 0 : 1))
    }
    if let target = handler.cancels { _ = cancel(target, reason: 1000 + id) }
  }
}

/// The reasons the property tests cancel with: told apart by `id`.
struct ModelReason: Error, Equatable {
  let id: Int
}
