import Futures

/// A reference model of a tree of futures — one producer's future and `map(.immediate)` stages
/// derived from it and from each other — under cancel requests, written from the rules of the
/// design (the Futures catalog's "Cancellation trees",
/// Sources/Futures/Futures.docc/Guides/CancellationTrees.md):
/// - a request on the producer's future reaches its request handlers (registration order); one
///   made before any handler registered is kept and delivered when one does; each handler runs
///   at most once;
/// - a handler may request a future of the program itself: that request is queued and carried
///   out once the request being carried out (with everything it forwards) is done, oldest first;
/// - a derived future forwards a request to its parent only when no other derived future of that
///   parent is still pending; otherwise it detaches and completes `.cancelled` at once;
/// - `.doNotForwardRequest`: a derived future detaches and completes `.cancelled`, nothing
///   upstream is told; `.forceThisFutureToBeCancelledImmediately`: this future completes
///   `.cancelled` at once and upstream is still told (unless `.doNotForwardRequest` is also given);
///   `.forwardCancelRequestEvenIfThereAreOtherFuturesWaiting` forwards regardless of siblings;
/// - a request passed on to a future that an earlier request with at least its options reached
///   goes no further (that one went on from there already).
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
    /// The union of the requests that reached it.
    var requested: CancellationOptions? = nil
  }

  /// How a producer's handler answers.
  enum Answer: Equatable {
    case `continue`
    case cancel
  }

  /// A producer's handler: it requests future `requests` (if any) with no options, then answers.
  struct Handler: Equatable {
    var answer: Answer
    var requests: Int?
  }

  private(set) var nodes = [Node(parent: nil, waiting: false)]
  private(set) var handlers: [Handler] = []
  /// How many times each handler ran.
  private(set) var handlerRuns: [Int] = []
  /// Whether a request reached the producer (a handler registered later runs at once).
  private var requested = false
  /// Requests made by handlers, waiting for the one being carried out to end.
  private var queued: [Int] = []
  /// Whether a request (or a handler run at registration) is being carried out.
  private var running = false

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

  /// `onRequestCancel(.immediate)` answering `answer`, after requesting future `requests`.
  mutating func addHandler(_ answer: Answer, requests: Int? = nil) {
    guard nodes[0].state == .pending else { return }
    handlers.append(Handler(answer: answer, requests: requests))
    handlerRuns.append(0)
    if requested { carryOut { $0.runHandler($0.handlers.count - 1) } }
  }

  /// The producer completes its future.
  mutating func complete(_ state: State) {
    settle(0, state)
  }

  /// `getCancelToken().cancel(options)` on future `index`.
  mutating func request(_ index: Int, _ options: CancellationOptions) {
    carryOut { $0.process(index, options) }
  }

  /// Does `work` now, then the requests the handlers it ran made, oldest first; inside other
  /// work, queues it (the real queue holds only requests: handlers run at registration only
  /// outside a request here).
  private mutating func carryOut(_ work: (inout TreeModel) -> Void) {
    precondition(!running)
    running = true
    work(&self)
    while !queued.isEmpty { process(queued.removeFirst(), []) }
    running = false
  }

  private mutating func process(_ index: Int, _ options: CancellationOptions, passedOn: Bool = false) {
    guard nodes[index].state == .pending else { return }
    let earlier = nodes[index].requested
    nodes[index].requested = (earlier ?? []).union(options)
    if passedOn, let earlier, earlier.isSuperset(of: options) { return }
    guard let parent = nodes[index].parent else {
      let tellProducer = !options.isSuperset(of: [.forceThisFutureToBeCancelledImmediately, .doNotForwardRequest])
      if options.contains(.forceThisFutureToBeCancelledImmediately) { settle(index, .cancelled) }
      requested = true
      if tellProducer { for handler in handlers.indices where handlerRuns[handler] == 0 { runHandler(handler) } }
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
    process(parent, options.subtracting(.forceThisFutureToBeCancelledImmediately), passedOn: true)
  }

  private mutating func detach(_ index: Int) {
    nodes[index].waiting = false
    settle(index, .cancelled)
  }

  private mutating func runHandler(_ index: Int) {
    handlerRuns[index] += 1
    if let target = handlers[index].requests { queued.append(target) }
    if handlers[index].answer == .cancel { settle(0, .cancelled) }
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
