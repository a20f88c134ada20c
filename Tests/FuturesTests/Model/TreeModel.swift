import Futures

/// A reference model of a tree of futures — one producer's future and `map(.immediate)` stages
/// derived from it and from each other — under cancel requests, written from the rules of the
/// design (`docs/futures.md`, the Futures catalog's "Cancellation trees"):
/// - a request on the producer's future reaches its request handlers (registration order); one
///   made before any handler registered is kept and delivered when one does;
/// - a derived future forwards a request to its parent only when no other derived future of that
///   parent is still pending; otherwise it detaches and completes `.cancelled` at once;
/// - `.doNotForwardRequest`: a derived future detaches and completes `.cancelled`, nothing
///   upstream is told; `.forceThisFutureToBeCancelledImmediately`: this future completes
///   `.cancelled` at once and upstream is still told (unless `.doNotForwardRequest` is also given);
///   `.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting` forwards regardless of siblings.
struct TreeModel {
  /// A future's state.
  enum State: Equatable {
    case pending
    case success(Int)
    case cancelled
  }

  struct Node {
    /// The future it was derived from (`nil` for the producer's).
    let parent: Int?
    var state: State = .pending
    /// Whether it still waits on its parent (it stops when it detaches or the parent completes).
    var waiting: Bool
  }

  /// How a producer's handler answers.
  enum Answer: Equatable {
    case `continue`
    case cancel
  }

  private(set) var nodes = [Node(parent: nil, waiting: false)]
  private(set) var handlers: [Answer] = []
  /// How many times each handler ran.
  private(set) var handlerRuns: [Int] = []
  /// Whether a request reached the producer (a handler registered later runs at once).
  private var requested = false

  /// `map(.immediate) { $0 + 1 }` on future `parent`.
  mutating func derive(from parent: Int) {
    let state: State =
      switch nodes[parent].state {
      case .pending: .pending
      case .success(let value): .success(value + 1)
      case .cancelled: .cancelled
      }
    nodes.append(Node(parent: parent, state: state, waiting: state == .pending))
  }

  /// `onRequestCancel(.immediate)` answering `answer`.
  mutating func addHandler(_ answer: Answer) {
    guard nodes[0].state == .pending else { return }
    handlers.append(answer)
    handlerRuns.append(0)
    if requested { runHandler(handlers.count - 1) }
  }

  /// The producer completes its future.
  mutating func complete(_ state: State) {
    settle(0, state)
  }

  /// `getCancelToken().cancel(options)` on future `index`.
  mutating func request(_ index: Int, _ options: CancellationOptions) {
    guard nodes[index].state == .pending else { return }
    guard let parent = nodes[index].parent else {
      let tellProducer = !options.isSuperset(of: [.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest])
      if options.contains(.forceThisFutureToBeCancelledImmediately) { settle(index, .cancelled) }
      requested = true
      if tellProducer { for handler in handlers.indices { runHandler(handler) } }
      return
    }
    if options.contains(.doNotForwardRequest) {
      detach(index)
      return
    }
    if options.contains(.forceThisFutureToBeCancelledImmediately) { settle(index, .cancelled) }
    guard nodes[parent].state == .pending else { return }
    let othersPending = nodes.indices.contains { other in
      other != index && nodes[other].parent == parent && nodes[other].waiting && nodes[other].state == .pending
    }
    if othersPending && !options.contains(.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting) {
      detach(index)
      return
    }
    request(parent, options.subtracting(.forceThisFutureToBeCancelledImmediately))
  }

  private mutating func detach(_ index: Int) {
    nodes[index].waiting = false
    settle(index, .cancelled)
  }

  private mutating func runHandler(_ index: Int) {
    handlerRuns[index] += 1
    if handlers[index] == .cancel { settle(0, .cancelled) }
  }

  private mutating func settle(_ index: Int, _ state: State) {
    guard nodes[index].state == .pending else { return }
    nodes[index].state = state
    for child in nodes.indices where nodes[child].parent == index && nodes[child].waiting {
      nodes[child].waiting = false
      switch state {
      case .success(let value): settle(child, .success(value + 1))
      default: settle(child, state)
      }
    }
  }
}
