import Foundation

extension Promise {
  /// Whether the future has completed (in any of the three ways). A future handed over with
  /// ``Completion/completeUsing(_:)`` counts as completed once the other future completed it.
  public var isCompleted: Bool { future.isCompleted }

  /// Fails the future with ``FutureKitError/genericError(_:)`` carrying `errorMessage`, unless it
  /// already completed.
  ///
  /// - Parameter errorMessage: the message.
  public func completeWithFail(_ errorMessage: String) {
    completeWithFail(FutureKitError(genericError: errorMessage))
  }

  /// Fails the future with ``FutureKitError/exceptionCaught(_:_:)`` carrying `exception` (and no
  /// details), unless it already completed.
  ///
  /// What an exception is here: see ``FutureKitError/exceptionCaught(_:_:)``.
  ///
  /// - Parameter exception: the exception.
  public func completeWithException(_ exception: any Sendable) {
    completeWithFail(FutureKitError(exception: exception))
  }

  /// Completes the future with the completion `completionBlock` returns, if the future has not
  /// completed yet; otherwise the block does not run.
  ///
  /// The block runs at once, on the calling thread, with no lock held; a thrown error fails the
  /// future. If something else completes the future while the block runs, that completion wins
  /// and the block's completion changes nothing (use ``completeWithBlocks(_:onAlreadyCompleted:)``
  /// to be told).
  ///
  /// - Parameter completionBlock: makes the completion.
  public func completeWithBlock(_ completionBlock: @escaping @Sendable () throws -> Completion<T>) {
    completeWithBlocks(completionBlock, onAlreadyCompleted: {})
  }

  /// Completes the future with the completion `completionBlock` returns if the future has not
  /// completed yet, and otherwise runs `onAlreadyCompleted`.
  ///
  /// Both run on the calling thread, with no lock held; exactly one of the two outcomes happens:
  /// `completionBlock` runs and completes the future, or `onAlreadyCompleted` runs. The second
  /// also covers a completion by someone else while `completionBlock` was running (its
  /// completion then changed nothing). A thrown error fails the future.
  ///
  /// - Parameters:
  ///   - completionBlock: makes the completion, if the future is still pending.
  ///   - onAlreadyCompleted: runs if the completion did not complete the future.
  public func completeWithBlocks(
    _ completionBlock: @escaping @Sendable () throws -> Completion<T>,
    onAlreadyCompleted: @escaping @Sendable () -> Void
  ) {
    guard !future.producerCompletionIsTaken else {
      onAlreadyCompleted()
      return
    }
    let completion: Completion<T>
    do {
      completion = try completionBlock()
    } catch {
      completion = .fail(error)
    }
    if !tryComplete(completion, cancelledBy: .producer, origin: .unknown) { onAlreadyCompleted() }
  }

  /// Fails the future with `error` if it has not completed yet.
  ///
  /// - Parameter error: the error.
  /// - Returns: whether this call completed the future.
  @discardableResult
  public func failIfNotCompleted(_ error: any Error) -> Bool {
    tryComplete(.fail(error))
  }

  /// Fails the future with ``FutureKitError/genericError(_:)`` carrying `errorMessage` if it has
  /// not completed yet.
  ///
  /// - Parameter errorMessage: the message.
  /// - Returns: whether this call completed the future.
  @discardableResult
  public func failIfNotCompleted(_ errorMessage: String) -> Bool {
    tryComplete(.fail(FutureKitError(genericError: errorMessage)))
  }

  /// Completes the future with `completion`, or runs `onCompletionError` if that changed nothing
  /// because the future already completed (or was already handed over).
  ///
  /// `onCompletionError` runs on the calling thread before this returns, with no lock held.
  ///
  /// - Parameters:
  ///   - completion: the completion.
  ///   - onCompletionError: runs if `completion` did not complete the future.
  public func complete(_ completion: Completion<T>, onCompletionError: @escaping @Sendable () -> Void) {
    if !tryComplete(completion, cancelledBy: .producer, origin: .unknown) { onCompletionError() }
  }

  /// Completes the future as cancelled after `delay` seconds, on a real-time timer, unless it
  /// completed first; a cancel request before then completes it cancelled at once.
  ///
  /// The same as ``automaticallyCancel(afterDelay:scheduler:fileID:line:function:)`` with the Dispatch scheduler.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds (as ``Future/init(afterDelay:success:)`` reads it).
  ///   - fileID: the caller's file, for the record of the timer's cancel; leave the default.
  ///   - line: the caller's line, for that record; leave the default.
  ///   - function: the caller's function, for that record; leave the default.
  public func automaticallyCancel(
    afterDelay delay: TimeInterval, fileID: StaticString = #fileID, line: Int = #line,
    function: StaticString = #function
  ) {
    automaticallyCancel(afterDelay: delay, scheduler: .dispatch, fileID: fileID, line: line, function: function)
  }

  /// Completes the future as cancelled after `delay` seconds, measured by `scheduler`, unless it
  /// completed first.
  ///
  /// It also registers ``automaticallyCancelOnRequestCancel()``: a cancel request completes the
  /// future cancelled at once. The timer holds this promise until it fires, and is cancelled (and
  /// releases it) as soon as the future completes. Tests pass a `ManualDeadlineScheduler`. When the
  /// timer cancels the future, its record says `deadline` and names this call.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds; negative and NaN count as zero (the timer fires when the
  ///     scheduler next fires), positive infinity, or more than `Int64.max` seconds, as never.
  ///   - scheduler: the timer source.
  ///   - fileID: the caller's file, for the record of the timer's cancel; leave the default.
  ///   - line: the caller's line, for that record; leave the default.
  ///   - function: the caller's function, for that record; leave the default.
  public func automaticallyCancel(
    afterDelay delay: TimeInterval, scheduler: some DeadlineScheduler, fileID: StaticString = #fileID,
    line: Int = #line, function: StaticString = #function
  ) {
    automaticallyCancelOnRequestCancel()
    let origin = CancelOrigin(fileID: fileID, line: line, function: function)
    completeAfter(delay, scheduler: scheduler) { $0.completeWithCancel(origin: origin, trigger: .deadline) }
  }

  /// Fails the future with `error` after `delay` seconds, on a real-time timer, unless it
  /// completed first; a cancel request before then completes it cancelled at once.
  ///
  /// The same as ``automaticallyFail(afterDelay:with:scheduler:)`` with the Dispatch scheduler.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds (as ``Future/init(afterDelay:success:)`` reads it).
  ///   - error: the error.
  public func automaticallyFail(afterDelay delay: TimeInterval, with error: any Error) {
    automaticallyFail(afterDelay: delay, with: error, scheduler: .dispatch)
  }

  /// Fails the future with `error` after `delay` seconds, measured by `scheduler`, unless it
  /// completed first.
  ///
  /// It also registers ``automaticallyCancelOnRequestCancel()``: a cancel request completes the
  /// future cancelled at once. The timer holds this promise until it fires, and is cancelled (and
  /// releases it) as soon as the future completes. Tests pass a `ManualDeadlineScheduler`.
  ///
  /// - Parameters:
  ///   - delay: the delay in seconds, read as by ``automaticallyCancel(afterDelay:scheduler:fileID:line:function:)``.
  ///   - error: the error.
  ///   - scheduler: the timer source.
  public func automaticallyFail(
    afterDelay delay: TimeInterval, with error: any Error, scheduler: some DeadlineScheduler
  ) {
    automaticallyCancelOnRequestCancel()
    completeAfter(delay, scheduler: scheduler) { $0.failIfNotCompleted(error) }
  }

  /// Runs `complete` with this promise after `delay`, unless the future completed first; the
  /// timer is cancelled once the future completes.
  private func completeAfter(
    _ delay: TimeInterval, scheduler: some DeadlineScheduler, _ complete: @escaping @Sendable (Promise<T>) -> Void
  ) {
    guard let delay = Duration.delay(seconds: delay) else { return }  // never
    let timer = scheduler.schedule(after: delay) { [self] in complete(self) }
    future.whenCompleted { timer.cancel() }
  }
}
