import CancelCore
import Dispatch
import Tokens

extension DispatchQueue {
  /// Runs `work` on this queue after `delay` unless `signal` is cancelled first, and reports the
  /// outcome exactly once.
  ///
  /// The facade-neutral engine behind the Dispatch timer adapters. Cancelling the signal before
  /// the work starts stops the timer and releases `work` at once (an `asyncAfter` work item would
  /// keep it until its deadline), and `completion` receives `.failure(reason)` at once, on the
  /// cancelling thread. Work that already started runs to its end and reports its own result.
  ///
  /// - Parameters:
  ///   - delay: how long to wait; `.zero` runs as soon as the queue allows.
  ///   - signal: cancelling it before the work starts stops the timer.
  ///   - work: the work; a thrown error becomes `.failure`.
  ///   - completion: called once: after the work on this queue, or on the cancelling thread.
  public func schedule<T: Sendable>(
    after delay: Duration = .zero, signal: CancelSignal, execute work: @escaping @Sendable () throws -> T,
    completion: @escaping @Sendable (Swift.Result<T, any Error>) -> Void
  ) {
    let outcome = SettleCell<Swift.Result<T, any Error>>()
    outcome.observe(completion)
    if let reason = signal.reason {
      outcome.settle(.failure(reason))
      return
    }
    // `work` waits as the only handler of a private source: the timer closes it (the work runs),
    // cancellation cancels it (the work is released at once). Exactly one of the two wins, so the
    // work either runs and reports its own result, or never starts and the cancel reports.
    let pending = CancelSource()
    pending.signal.onComplete { cancelled in
      if !cancelled { outcome.settle(Swift.Result(catching: work)) }
    }
    let timer = TimerBox(timer: DispatchSource.makeTimerSource(queue: self))
    timer.timer.schedule(deadline: .now() + max(delay, .zero).dispatchInterval, leeway: .nanoseconds(0))
    timer.timer.setEventHandler {
      timer.timer.cancel()  // one shot
      pending.close()
    }
    let registration = signal.onCancel { (reason: any Error) in
      guard pending.cancel(reason: reason) else { return }  // too late: the work has started
      timer.timer.cancel()
      outcome.settle(.failure(reason))
    }
    outcome.observe { _ in registration.unregister() }
    timer.timer.activate()
  }

  /// Submits a work item you own to this queue (after `delay`), cancelling the item when `signal`
  /// is cancelled, and reports exactly once whether it ran.
  ///
  /// Cancelling the signal before the item starts calls `item.cancel()` — it will not run — and
  /// `completion` receives `.failure(reason)` at once, on the cancelling thread. If the item runs,
  /// `completion` receives `.success(())` after it, on this queue. If you cancel the item yourself,
  /// `completion` receives `.failure(CancellationError())` once Dispatch reports it done. (Dispatch
  /// keeps a cancelled delayed item, and what it captured, until its deadline; prefer
  /// ``schedule(after:signal:execute:completion:)`` for long delays.)
  public func async(
    _ item: DispatchWorkItem, after delay: Duration = .zero, signal: CancelSignal,
    completion: @escaping @Sendable (Swift.Result<Void, any Error>) -> Void
  ) {
    let outcome = SettleCell<Swift.Result<Void, any Error>>()
    outcome.observe(completion)
    let box = WorkItemBox(item: item)
    if let reason = signal.reason {
      item.cancel()
      outcome.settle(.failure(reason))
      return
    }
    let registration = signal.onCancel { (reason: any Error) in
      if outcome.settle(.failure(reason)) { box.item.cancel() }
    }
    outcome.observe { _ in registration.unregister() }
    item.notify(queue: self) {
      outcome.settle(box.item.isCancelled ? .failure(CancellationError()) : .success(()))
    }
    if delay <= .zero {
      async(execute: item)
    } else {
      asyncAfter(deadline: .now() + delay.dispatchInterval, execute: item)
    }
  }
}

extension DispatchQueue {
  /// Work on this queue after a delay, as work that every facade can start: `try await …run()`,
  /// `.promise()`, `.future()`, `.start(token:completion:)`. Each start schedules `work` anew;
  /// the rules are those of ``schedule(after:signal:execute:completion:)``.
  ///
  /// - Parameters:
  ///   - delay: how long to wait.
  ///   - work: the work; a thrown error becomes the outcome.
  /// - Returns: the scheduled work, not started.
  public func scheduledWork<T: Sendable>(
    after delay: Duration = .zero, execute work: @escaping @Sendable () throws -> T
  ) -> CancellableWork<T> {
    CancellableWork { [self] signal, completion in
      schedule(after: delay, signal: signal, execute: work, completion: completion)
    }
  }

  /// A work item you own, submitted to this queue when started, as work that every facade can
  /// start. The rules are those of ``async(_:after:signal:completion:)``. A work item runs at most
  /// once: start this once.
  ///
  /// - Parameters:
  ///   - item: the work item.
  ///   - delay: how long to wait before submitting it.
  /// - Returns: the submission, not started.
  public func work(for item: DispatchWorkItem, after delay: Duration = .zero) -> CancellableWork<Void> {
    let box = WorkItemBox(item: item)
    return CancellableWork { [self] signal, completion in
      async(box.item, after: delay, signal: signal, completion: completion)
    }
  }

  /// Runs `work` on this queue after `delay` unless `token` is cancelled first. The token form of
  /// ``schedule(after:signal:execute:completion:)``; same rules. Without a `token`, the current
  /// token (`CancellationToken.current`, read when the call is made) stops it; outside any scope
  /// nothing does.
  public func schedule<T: Sendable>(
    after delay: Duration = .zero, token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    execute work: @escaping @Sendable () throws -> T,
    completion: @escaping @Sendable (Swift.Result<T, any Error>) -> Void
  ) {
    schedule(after: delay, signal: token.signal, execute: work, completion: completion)
  }

  /// Submits a work item you own, cancelling it when `token` is cancelled. The token form of
  /// ``async(_:after:signal:completion:)``; same rules. Without a `token`, the current token
  /// (`CancellationToken.current`, read when the call is made) cancels it; outside any scope
  /// nothing does.
  public func async(
    _ item: DispatchWorkItem, after delay: Duration = .zero,
    token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    completion: @escaping @Sendable (Swift.Result<Void, any Error>) -> Void
  ) {
    async(item, after: delay, signal: token.signal, completion: completion)
  }
}

/// Carries a timer source into `@Sendable` handlers.
private struct TimerBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: a Dispatch source's `cancel()` is thread-safe (libdispatch
  // synchronizes it); `schedule`, `setEventHandler` and `activate` run once, before any handler can.
  let timer: any DispatchSourceTimer
}

/// Carries a work item into `@Sendable` handlers.
private struct WorkItemBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `DispatchWorkItem.cancel()` and `isCancelled` are thread-safe
  // (libdispatch synchronizes them); they are the only members used from the handlers.
  let item: DispatchWorkItem
}
