import Dispatch
import Foundation

extension Executor: CustomStringConvertible {
  /// FutureKit's name for ``main``: it runs at once when already on the main queue, and is
  /// submitted to it otherwise.
  public static var mainImmediate: Executor { .main }

  /// Always submitted to `DispatchQueue.main` with `async`, even from the main thread (the same
  /// as `.queue(.main)`). Its ``description`` is `MainAsync`.
  public static var mainAsync: Executor { .queue(.main) }

  /// The executor's name, as FutureKit spells it: `Primary`, `Main`, `Async`, `Current`,
  /// `Immediate`, `MainAsync` (a ``queue(_:)`` of the main queue), `Queue(<label>)`,
  /// `OperationQueue(<name>)` (`??` without a name) or `Custom`.
  public var description: String {
    switch self {
    case .primary: return "Primary"
    case .main: return "Main"
    case .async: return "Async"
    case .current: return "Current"
    case .immediate: return "Immediate"
    case .queue(let queue):
      return queue.getSpecific(key: mainQueueMarker) == true ? "MainAsync" : "Queue(\(queue.label))"
    case .operationQueue(let queue): return "OperationQueue(\(queue.name ?? "??"))"
    case .custom: return "Custom"
    }
  }

  /// Runs `block` on this executor and returns a future of its value; a thrown error fails it.
  ///
  /// The same as `Future(executor, block: block)`: ``primary`` and ``current`` name the context
  /// of the calling code, and ``immediate`` runs `block` before this returns.
  ///
  /// - Parameter block: the work.
  /// - Returns: a future of `block`'s value.
  @discardableResult
  public func execute<S: Sendable>(_ block: @escaping @Sendable () throws -> S) -> Future<S> {
    Future(self, block: block)
  }

  /// Runs `block` on this executor and returns a future completed with the completion it returns
  /// (``Completion/completeUsing(_:)`` hands the future over); a thrown error fails it.
  ///
  /// - Parameter block: the work.
  /// - Returns: a future of `block`'s completion.
  @discardableResult
  public func execute<S: Sendable>(_ block: @escaping @Sendable () throws -> Completion<S>) -> Future<S> {
    let promise = Promise<S>()
    resolvedForRegistration.execute {
      promise.tryComplete(Self.completion(of: block), cancelledBy: .block, origin: .unknown)
    }
    return promise.future
  }

  /// Runs `block` on this executor after `delay` seconds, on a real-time timer, and returns a
  /// future of its value. The same as `execute(afterDelay:scheduler:block:)` with
  /// the Dispatch scheduler.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds (as ``Future/init(afterDelay:success:)`` reads it).
  ///   - block: the work; a thrown error fails the future.
  /// - Returns: a future of `block`'s value.
  @discardableResult
  public func execute<S: Sendable>(afterDelay delay: TimeInterval, block: @escaping @Sendable () throws -> S) -> Future<
    S
  > {
    execute(afterDelay: delay, scheduler: .dispatch, block: block)
  }

  /// Runs `block` on this executor after `delay` seconds, measured by `scheduler`, and returns a
  /// future of its value.
  ///
  /// A cancel request before `block` has completed the future stops the timer and completes the
  /// future cancelled at once (`block` then does not start, or its outcome changes nothing).
  /// ``primary`` and ``current`` name the context of the calling code. Tests pass a
  /// `ManualDeadlineScheduler`.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds; negative and NaN count as zero (the timer fires when the
  ///     scheduler next fires), positive infinity, or more than `Int64.max` seconds, as never.
  ///   - scheduler: the timer source.
  ///   - block: the work; a thrown error fails the future.
  /// - Returns: a future of `block`'s value.
  @discardableResult
  public func execute<S: Sendable>(
    afterDelay delay: TimeInterval, scheduler: some DeadlineScheduler, block: @escaping @Sendable () throws -> S
  ) -> Future<S> {
    execute(afterDelay: delay, scheduler: scheduler) { () throws -> Completion<S> in .success(try block()) }
  }

  /// Runs `block` on this executor after `delay` seconds, on a real-time timer, and returns a
  /// future of the completion it returns. The same as
  /// `execute(afterDelay:scheduler:block:)` with the Dispatch scheduler.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds (as ``Future/init(afterDelay:success:)`` reads it).
  ///   - block: the work; a thrown error fails the future.
  /// - Returns: a future of `block`'s completion.
  @discardableResult
  public func execute<S: Sendable>(
    afterDelay delay: TimeInterval, block: @escaping @Sendable () throws -> Completion<S>
  ) -> Future<S> {
    execute(afterDelay: delay, scheduler: .dispatch, block: block)
  }

  /// Runs `block` on this executor after `delay` seconds, measured by `scheduler`, and returns a
  /// future of the completion it returns; see `execute(afterDelay:scheduler:block:)`
  /// for cancel requests and how `delay` is read.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds.
  ///   - scheduler: the timer source.
  ///   - block: the work; a thrown error fails the future.
  /// - Returns: a future of `block`'s completion.
  @discardableResult
  public func execute<S: Sendable>(
    afterDelay delay: TimeInterval, scheduler: some DeadlineScheduler,
    block: @escaping @Sendable () throws -> Completion<S>
  ) -> Future<S> {
    let promise = Promise<S>()
    let executor = resolvedForRegistration
    let timer = Duration.delay(seconds: delay).map { delay in
      scheduler.schedule(after: delay) {
        executor.execute { promise.completeWithBlock { try block() } }
      }
    }
    promise.onRequestCancel(.immediate) { _ in
      timer?.cancel()
      return .complete(.cancelled)
    }
    if let timer { promise.future.whenCompleted { timer.cancel() } }
    return promise.future
  }

  /// The completion `block` returns, or a failure with the error it throws.
  private static func completion<S>(of block: () throws -> Completion<S>) -> Completion<S> {
    do {
      return try block()
    } catch {
      return .fail(error)
    }
  }
}

/// Marks the main queue, for ``Executor/description`` (on Linux `DispatchQueue.main` returns a new
/// object on each call, so identity cannot tell it).
private let mainQueueMarker: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()
