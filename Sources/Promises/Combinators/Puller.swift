import CancelCore

/// The work of one `when(_:concurrently:)`, plain or cancellable: pulls inputs from the iterator,
/// keeping at most `limit` of them pending, and hands every outcome, in pull order, to `finish`
/// once the iterator is exhausted and every pulled input resolved.
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
  private var exhausted = false
  private var active = 0
  /// The pulled inputs' outcomes, by pull index; `nil` while the input is pending.
  private var outcomes: [Swift.Result<Value, Error>?] = []

  /// Starts pulling from `iterator`, at most `limit` (at least 1) inputs pending at once.
  static func start(
    _ iterator: It, limit: Int, isStopped: @escaping @Sendable () -> Bool,
    wait: @escaping (It.Element, @escaping @Sendable (Swift.Result<Value, Error>) -> Void) -> Void,
    finish: @escaping ([Swift.Result<Value, Error>]) -> Void
  ) {
    let work = Puller(iterator: iterator, limit: limit, isStopped: isStopped, wait: wait, finish: finish)
    SerialDrain(work).send(nil)
  }

  private init(
    iterator: It, limit: Int, isStopped: @escaping @Sendable () -> Bool,
    wait: @escaping (It.Element, @escaping @Sendable (Swift.Result<Value, Error>) -> Void) -> Void,
    finish: @escaping ([Swift.Result<Value, Error>]) -> Void
  ) {
    self.iterator = iterator
    self.limit = limit
    self.isStopped = isStopped
    self.wait = wait
    self.finish = finish
  }

  mutating func run(_ event: Event, in drain: SerialDrain<Self>) {
    if let (index, outcome) = event {
      active -= 1
      outcomes[index] = outcome
    }
    while !exhausted, active < limit, !isStopped() {
      guard let next = iterator.next() else {
        exhausted = true
        break
      }
      let index = outcomes.count
      outcomes.append(nil)
      active += 1
      // Captured as an existential so the callback does not capture the iterator's type.
      let mailbox: any SerialDrainMailbox<Event> = drain
      wait(next) { outcome in mailbox.send((index, outcome)) }
    }
    if exhausted, active == 0, !isStopped() {
      // Every pulled input has resolved, so no event (and no run) follows this one.
      finish(outcomes.map { $0! })
    }
  }
}
