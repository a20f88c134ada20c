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
public final class ManualDeadlineScheduler: DeadlineScheduler, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `state` is read and written only inside `lock.withLock`.

  private struct Timer {
    let deadline: Duration
    let action: @Sendable () -> Void
  }

  private struct State {
    var now: Duration = .zero
    var nextID: UInt64 = 0
    var timers: [UInt64: Timer] = [:]
  }

  private let lock = CoreLock()
  private var state = State()

  /// Creates a scheduler at time zero with nothing scheduled.
  public init() {}

  /// The time elapsed since creation, as advanced so far.
  public var now: Duration { lock.withLock { state.now } }

  /// The number of timers scheduled and neither fired nor cancelled. A cancelled timer is
  /// removed (and its action released) at once.
  public var pendingCount: Int { lock.withLock { state.timers.count } }

  /// Schedules `action` at `now + delay`.
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
    let id = lock.withLock {
      state.nextID += 1
      state.timers[state.nextID] = Timer(deadline: state.now + delay, action: action)
      return state.nextID
    }
    return ManualTimerHandle(scheduler: self, id: id)
  }

  /// Moves time forward by `delta` and runs every action that falls due, on this thread.
  public func advance(by delta: Duration) {
    let target = lock.withLock { state.now + delta }
    advance(to: target)
  }

  /// Moves time forward to `time` (never backwards) and runs every action that falls due.
  public func advance(to time: Duration) {
    while let due = takeNextDue(notAfter: time) {
      due()
    }
    lock.withLock { state.now = max(state.now, time) }
  }

  /// Removes and returns the earliest action due by `time`, advancing `now` to its deadline.
  private func takeNextDue(notAfter time: Duration) -> (@Sendable () -> Void)? {
    lock.withLock {
      let due = state.timers.filter { $0.value.deadline <= time }
      guard let next = due.min(by: { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }) else { return nil }
      state.timers[next.key] = nil
      state.now = max(state.now, next.value.deadline)
      return next.value.action
    }
  }

  fileprivate func cancelTimer(_ id: UInt64) {
    let removed = lock.withLock { state.timers.removeValue(forKey: id) }
    _ = removed  // released here, outside the lock
  }
}

private struct ManualTimerHandle: Cancellable {
  let scheduler: ManualDeadlineScheduler
  let id: UInt64

  func cancel() {
    scheduler.cancelTimer(id)
  }
}
