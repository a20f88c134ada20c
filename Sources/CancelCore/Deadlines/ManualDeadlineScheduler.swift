/// A scheduler whose time moves only when you call ``advance(by:)``: tests of deadlines never sleep.
///
/// ```swift
/// let time = ManualDeadlineScheduler()
/// let source = CancelSource(timeout: .seconds(5), scheduler: time)
/// time.advance(by: .seconds(4))   // not yet
/// time.advance(by: .seconds(1))   // source is cancelled with TimeoutError, on this thread
/// ```
///
/// Due actions run on the thread that advances time, in deadline order (ties in scheduling
/// order), outside the scheduler's lock, so an action may schedule or cancel others.
///
/// Time stops at ``latestTime`` (`Int64.max` seconds, about 292 billion years) instead of
/// overflowing: advancing further leaves ``now`` there, and a timer due later than that never
/// fires (it stays pending until cancelled), as a Dispatch timer that far ahead never fires.
public final class ManualDeadlineScheduler: CoreLockHost, DeadlineScheduler, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  // Safety of `@unchecked Sendable`: `state` is read and written only inside `lock.withLock`.

  private struct State {
    /// Between zero and `latestTime`.
    var now: Duration = .zero
    var nextID: UInt64 = 0
    /// The actions of the timers neither fired nor cancelled, by id.
    var actions: [UInt64: @Sendable () -> Void] = [:]
    /// Every scheduled timer's deadline, earliest first; a cancelled timer's entry stays until it
    /// comes first or the queue is compacted.
    var queue = DeadlineQueue()

    /// Drops cancelled timers' entries once they outnumber the live ones, so that scheduling and
    /// cancelling without ever advancing keeps the scheduler small.
    mutating func compactIfMostlyCancelled() {
      guard queue.count > 64, queue.count > 2 * actions.count else { return }
      queue.removeAll { actions[$0.id] == nil }
    }
  }

  private var state = State()

  /// Creates a scheduler at time zero with nothing scheduled.
  public init() {
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// The time elapsed since creation, as advanced so far; at most ``latestTime``.
  public var now: Duration { lock.withLock { state.now } }

  /// Where time stops: `Duration.seconds(Int64.max)`. ``advance(by:)`` and ``advance(to:)`` go
  /// no further, and a timer due after it never fires.
  public static var latestTime: Duration { .seconds(Int64.max) }

  /// The number of timers scheduled and neither fired nor cancelled. A cancelled timer is
  /// removed (and its action released) at once.
  public var pendingCount: Int { lock.withLock { state.actions.count } }

  /// The number of deadlines the scheduler stores, cancelled ones not yet dropped included.
  package var storedTimerCount: Int { lock.withLock { state.queue.count } }

  /// Schedules `action` at `now + delay`; never, if that is after ``latestTime``.
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
    let id = lock.withLock {
      state.nextID += 1
      state.actions[state.nextID] = action
      // A timer due after `latestTime` keeps its action (it is pending until cancelled) but no
      // place in the queue: time never gets there.
      if let deadline = Self.deadline(after: delay, from: state.now) {
        state.queue.insert(DeadlineQueue.Entry(deadline: deadline, id: state.nextID))
      }
      return state.nextID
    }
    return ManualTimerHandle(scheduler: self, id: id)
  }

  /// Moves time forward by `delta` (up to ``latestTime``) and runs every action that falls due, on
  /// this thread.
  public func advance(by delta: Duration) {
    let target = lock.withLock { Self.deadline(after: delta, from: state.now) ?? Self.latestTime }
    advance(to: target)
  }

  /// Moves time forward to `time` (never backwards, and no further than ``latestTime``) and runs
  /// every action that falls due.
  ///
  /// Each due timer is taken in O(log n) of the timers scheduled, so advancing past n timers is
  /// O(n log n).
  public func advance(to time: Duration) {
    let time = min(time, Self.latestTime)
    while let due = takeNextDue(notAfter: time) {
      due()
    }
    lock.withLock { state.now = max(state.now, time) }
  }

  /// `now + delay`, or `nil` if that is after `latestTime`. Never overflows: `now` is between zero
  /// and `latestTime`, so the sum of it and a `delay` no later than `latestTime` fits a `Duration`
  /// (which holds about eighteen times `latestTime` either way), and so does its sum with any
  /// negative `delay`.
  private static func deadline(after delay: Duration, from now: Duration) -> Duration? {
    guard delay <= latestTime else { return nil }
    let deadline = now + delay
    return deadline <= latestTime ? deadline : nil
  }

  /// Removes and returns the earliest action due by `time`, advancing `now` to its deadline.
  private func takeNextDue(notAfter time: Duration) -> (@Sendable () -> Void)? {
    lock.withLock {
      while let next = state.queue.first, next.deadline <= time {
        state.queue.removeFirst()
        // A cancelled timer's entry has no action any more: skip it.
        guard let action = state.actions.removeValue(forKey: next.id) else { continue }
        state.now = max(state.now, next.deadline)
        return action
      }
      return nil
    }
  }

  fileprivate func cancelTimer(_ id: UInt64) {
    let removed = lock.withLock { () -> (@Sendable () -> Void)? in
      defer { state.compactIfMostlyCancelled() }
      return state.actions.removeValue(forKey: id)
    }
    _ = removed  // released here, outside the lock
  }
}

/// The deadlines of a `ManualDeadlineScheduler`, as a binary min-heap ordered by deadline, ties
/// by scheduling order (the id): insert and remove-first are O(log n).
private struct DeadlineQueue {
  struct Entry {
    let deadline: Duration
    let id: UInt64

    func isBefore(_ other: Entry) -> Bool {
      (deadline, id) < (other.deadline, other.id)
    }
  }

  private var heap: [Entry] = []

  var count: Int { heap.count }

  /// The earliest entry.
  var first: Entry? { heap.first }

  mutating func insert(_ entry: Entry) {
    heap.append(entry)
    siftUp(heap.count - 1)
  }

  /// Removes the earliest entry (there must be one).
  mutating func removeFirst() {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    siftDown(0)
  }

  /// Removes every entry `shouldRemove` picks and restores the order, in O(n).
  mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
    heap.removeAll(where: shouldRemove)
    for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].isBefore(heap[parent]) else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      let right = left + 1
      var earliest = left
      if right < heap.count && heap[right].isBefore(heap[left]) { earliest = right }
      guard heap[earliest].isBefore(heap[parent]) else { return }
      heap.swapAt(parent, earliest)
      parent = earliest
    }
  }
}

private struct ManualTimerHandle: Cancellable {
  let scheduler: ManualDeadlineScheduler
  let id: UInt64

  func cancel() {
    scheduler.cancelTimer(id)
  }
}
