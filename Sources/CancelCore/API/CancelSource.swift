/// The authority that cancels: it owns the state its ``signal`` lets others observe.
///
/// A source starts *active* and ends exactly once, either **cancelled** (with a reason) by
/// ``cancel(reason:fileID:line:function:)``, a parent, or a deadline; or **closed** by ``close()`` or by being
/// deallocated. The first of these wins; later ones do nothing and report `false`.
///
/// Deallocating a source that is still active closes it: nobody can cancel it any more, so its
/// completion handlers run with `false` and every other handler is released. That frees whatever
/// the handlers captured even if signals live on.
///
/// ```swift
/// let source = CancelSource()
/// startDownload(signal: source.signal)
/// source.cancel()
/// ```
public final class CancelSource: CancellableWithReason, Sendable {
  /// The observer view to hand to the work this source can cancel.
  public let signal: CancelSignal

  /// Creates an active source.
  public init() {
    signal = CancelSignal(storage: CancelStorage())
  }

  /// Creates an active source named `label` in cancellation records (``CancellationRecord``): a
  /// hop of every path a cancel takes through it, e.g. `"GET /users"`. The label is stored only
  /// when given.
  public init(label: String?) {
    signal = CancelSignal(storage: CancelStorage(label: label))
  }

  /// Creates a source that is also cancelled when any of `parents` is, with that parent's reason.
  ///
  /// A parent already cancelled cancels the new source at once. Each link is removed as soon as
  /// this source ends, so a long-lived parent does not accumulate dead children.
  ///
  /// - Parameters:
  ///   - parents: the signals whose cancellation this source follows (any of them).
  ///   - label: the source's name in cancellation records, if any.
  public convenience init(linkedTo parents: some Sequence<CancelSignal>, label: String? = nil) {
    self.init(label: label)
    for parent in parents { link(to: parent) }
  }

  /// Creates a source that is also cancelled when any of `parents` is. See
  /// ``init(linkedTo:label:)-(Sequence<CancelSignal>,String?)``.
  ///
  /// - Parameters:
  ///   - parents: the signals whose cancellation this source follows (any of them).
  ///   - label: the source's name in cancellation records, if any.
  public convenience init(linkedTo parents: CancelSignal..., label: String? = nil) {
    self.init(linkedTo: parents, label: label)
  }

  /// Creates a source that cancels itself with a ``TimeoutError`` after `timeout`.
  ///
  /// - Parameters:
  ///   - timeout: the delay, measured by `scheduler`.
  ///   - scheduler: the timer source; ``DispatchDeadlineScheduler`` by default. Tests pass a
  ///     ``ManualDeadlineScheduler`` and advance it instead of sleeping.
  ///   - label: the source's name in cancellation records, if any.
  ///   - fileID: recorded as where the deadline was set; leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public convenience init(
    timeout: Duration, scheduler: some DeadlineScheduler = .dispatch, label: String? = nil,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    self.init(label: label)
    cancel(after: timeout, scheduler: scheduler, fileID: fileID, line: line, function: function)
  }

  deinit {
    _ = signal.storage.close()
  }

  /// Whether this source has been cancelled. One atomic load.
  @inlinable public var isCancelled: Bool { signal.isCancelled }

  /// Whether this source has ended, cancelled or closed. One atomic load.
  @inlinable public var isCompleted: Bool { signal.isCompleted }

  /// Cancels with Swift's `CancellationError()`. Does nothing if the source already ended.
  ///
  /// Handlers run synchronously on this thread, newest first, before this method returns; when
  /// it is called inside a handler of a cancel running on this thread, they run as soon as that
  /// handler returns instead (see "Reentrancy" in `docs/semantics.md`).
  ///
  /// The call's file, line and function go into the ``CancellationRecord``; leave the defaults.
  public func cancel(fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
    _ = signal.storage.cancelWithDefaultReason(origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// ``Cancellable``'s `cancel()`, for a source seen as `any Cancellable`: as ``cancel(fileID:line:function:)``,
  /// but the record has no origin (a protocol requirement cannot capture its caller).
  @_disfavoredOverload
  public func cancel() {
    _ = signal.storage.cancelWithDefaultReason()
  }

  /// Cancels with `reason`, unless the source already ended.
  ///
  /// Handlers run synchronously on this thread, newest first, before this method returns (called
  /// inside a handler of a cancel running on this thread: as soon as that handler returns);
  /// linked children are cancelled with the same reason.
  ///
  /// - Parameters:
  ///   - reason: the reason (the first one wins).
  ///   - fileID: recorded as where the cancel started (``CancellationRecord``); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  /// - Returns: `true` if this call cancelled the source; `false` if it had already been cancelled
  ///   (the first reason stays) or closed.
  @discardableResult
  public func cancel(
    reason: any Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) -> Bool {
    signal.storage.cancel(reason: reason, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// ``cancel(reason:fileID:line:function:)`` for ``CancellableWithReason``: cancels with `reason` unless the source
  /// already ended.
  ///
  /// Its record has no call site (a protocol requirement cannot capture its caller). Called by a
  /// cancel handler of another source (a token's `register(cancelable:)` registers one), the
  /// record shows the cancel as arriving from that source through a link.
  ///
  /// - Parameter reason: the reason (the first one wins).
  public func cancel(dueTo reason: any Error) {
    _ = signal.storage.cancel(dueTo: reason)
  }

  /// Ends the source without cancelling it: completion handlers run with `false` on this thread,
  /// cancel handlers are released, links to parents are removed, and any deadline is stopped.
  ///
  /// - Returns: `true` if this call closed the source; `false` if it had already ended.
  @discardableResult
  public func close() -> Bool {
    signal.storage.close()
  }

  /// Cancels with a ``TimeoutError`` after `delay`, unless the source ends first.
  ///
  /// A later call replaces the pending deadline (as .NET's `CancelAfter` does). Ending the source
  /// any other way stops the timer and releases it.
  ///
  /// - Parameters:
  ///   - delay: the delay, measured by `scheduler`.
  ///   - scheduler: the timer source; ``DispatchDeadlineScheduler`` by default.
  ///   - fileID: recorded as where the deadline was set (``CancellationRecord``); leave the default.
  ///   - line: recorded with `fileID`; leave the default.
  ///   - function: recorded with `fileID`; leave the default.
  public func cancel(
    after delay: Duration, scheduler: some DeadlineScheduler = .dispatch,
    fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    signal.storage.cancel(
      after: delay, scheduler: scheduler, origin: CancelOrigin(fileID: fileID, line: line, function: function))
  }

  /// The record of this source's cancel (why, when, where from, along which links); `nil` until it
  /// is cancelled, and the same value every time after. See ``CancellationRecord``.
  public var cancellationRecord: CancellationRecord? { signal.cancellationRecord }

  /// The label this source was created with, if any.
  public var label: String? { signal.label }

  /// Links this source to `parent`: when `parent` is cancelled, this source is cancelled with the
  /// same reason. A source may have any number of parents (it is cancelled when any one is).
  ///
  /// - Returns: `true` if a link now exists; `false` if this source or `parent` already ended (a
  ///   cancelled parent cancels this source at once) or `parent` is this source's own signal.
  @discardableResult
  public func link(to parent: CancelSignal) -> Bool {
    signal.storage.link(to: parent.storage)
  }
}
