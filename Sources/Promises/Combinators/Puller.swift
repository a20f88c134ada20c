import CancelCore

/// The work of one `when(_:concurrently:)`, plain or cancellable: pulls inputs from the iterator,
/// keeping at most `limit` of them pending, and hands every outcome, in pull order, to `finish`
/// once the iterator is exhausted and every pulled input resolved.
///
/// The cancellable form also tells it which pulled inputs a stop waits for (those that follow a
/// clean-up): once it stopped pulling (see `isStopped`) and none of those is pending any more, it
/// calls `stopped`, once. A `nil` event sent after the start makes it check that again.
///
/// A core `SerialDrain` runs it: the start and each resolved input is one event, handled by one
/// thread at a time, never under a lock, so the iterator (user code) is only ever called by one
/// thread at a time. The pulled inputs' callbacks hold the drain and send it their outcome; the
/// work keeps the outcomes, not the inputs, which would keep each other alive once dropped
/// pending.
struct Puller<It: IteratorProtocol, Value: Sendable>: SerialDrainWork {
  /// `nil` starts the pulling; otherwise the input pulled `index`-th resolved.
  typealias Event = (index: Int, outcome: Swift.Result<Value, Error>)?

  private var iterator: It
  private let limit: Int
  /// Whether to pull no more and not finish: the result settled (or its chain's cancel started).
  private let isStopped: @Sendable () -> Bool
  /// Waits on a pulled input: calls the function it is given with the input's outcome, once.
  private let wait: (It.Element, @escaping @Sendable (Swift.Result<Value, Error>) -> Void) -> Void
  private let finish: ([Swift.Result<Value, Error>]) -> Void
  /// Whether a stop waits for a pulled input, asked before waiting on it, and what to call once
  /// it stopped with none of those pending; `nil` for the plain forms.
  private let stop: Stop?
  /// The pull indices of the inputs a stop waits for that are still pending.
  private var awaited: Set<Int> = []
  private var stopReported = false
  private var exhausted = false
  private var active = 0
  /// The pulled inputs' outcomes, by pull index; `nil` while the input is pending.
  private var outcomes: [Swift.Result<Value, Error>?] = []

  /// What the cancellable form adds: which pulled inputs a stop waits for, and what to call once
  /// none of them is pending after the pulling stopped.
  struct Stop {
    let awaits: (It.Element) -> Bool
    let stopped: () -> Void
  }

  /// Starts pulling from `iterator`, at most `limit` (at least 1) inputs pending at once. Returns
  /// where to send a `nil` event that makes it check `stop` again (after a cancel, say).
  @discardableResult
  static func start(
    _ iterator: It, limit: Int, isStopped: @escaping @Sendable () -> Bool,
    wait: @escaping (It.Element, @escaping @Sendable (Swift.Result<Value, Error>) -> Void) -> Void,
    finish: @escaping ([Swift.Result<Value, Error>]) -> Void, stop: Stop? = nil
  ) -> any SerialDrainMailbox<Event> {
    let work = Puller(iterator: iterator, limit: limit, isStopped: isStopped, wait: wait, finish: finish, stop: stop)
    let drain = SerialDrain(work)
    drain.send(nil)
    return drain
  }

  private init(
    iterator: It, limit: Int, isStopped: @escaping @Sendable () -> Bool,
    wait: @escaping (It.Element, @escaping @Sendable (Swift.Result<Value, Error>) -> Void) -> Void,
    finish: @escaping ([Swift.Result<Value, Error>]) -> Void, stop: Stop?
  ) {
    self.iterator = iterator
    self.limit = limit
    self.isStopped = isStopped
    self.wait = wait
    self.finish = finish
    self.stop = stop
  }

  mutating func run(_ event: Event, in drain: SerialDrain<Self>) {
    if let (index, outcome) = event {
      active -= 1
      outcomes[index] = outcome
      if !awaited.isEmpty { awaited.remove(index) }
    }
    while !exhausted, active < limit, !isStopped() {
      guard let next = iterator.next() else {
        exhausted = true
        break
      }
      let index = outcomes.count
      outcomes.append(nil)
      active += 1
      if let stop, stop.awaits(next) { awaited.insert(index) }
      // Captured as an existential so the callback does not capture the iterator's type.
      let mailbox: any SerialDrainMailbox<Event> = drain
      wait(next) { outcome in mailbox.send((index, outcome)) }
    }
    if exhausted, active == 0, !isStopped() {
      // Every pulled input has resolved, so no event (and no run) follows this one.
      finish(outcomes.map { $0! })
    } else if let stop, !stopReported, awaited.isEmpty, isStopped() {
      stopReported = true
      stop.stopped()
    }
  }
}
