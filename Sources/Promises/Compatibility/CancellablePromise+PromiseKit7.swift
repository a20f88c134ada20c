import Dispatch
import Foundation

extension CancellablePromise {
  /// PromiseKit 7's later name for ``init(task:resolver:)``: a pending member whose `task` is
  /// cancelled (once) when the chain is cancelled.
  ///
  /// - Parameters:
  ///   - cancellable: the work to stop on cancel.
  ///   - body: starts the work; throwing rejects the promise.
  public convenience init(cancellable: (any Cancellable)?, resolver body: (Resolver<T>) throws -> Void) {
    self.init(task: CancellableTaskOf.task(for: cancellable), resolver: body)
  }

  /// PromiseKit 7's later name for ``init(task:promise:resolver:)``.
  ///
  /// - Parameters:
  ///   - cancellable: the work to stop on cancel.
  ///   - promise: the promise to wrap.
  ///   - resolver: its resolver, rejected on cancel.
  public convenience init(cancellable: (any Cancellable)?, promise: Promise<T>, resolver: Resolver<T>) {
    self.init(task: CancellableTaskOf.task(for: cancellable), promise: promise, resolver: resolver)
  }

  /// PromiseKit 7's later name for ``init(task:error:)``.
  ///
  /// - Parameters:
  ///   - cancellable: the work to stop on cancel.
  ///   - error: the rejection.
  public convenience init(cancellable: (any Cancellable)?, error: Error) {
    self.init(task: CancellableTaskOf.task(for: cancellable), error: error)
  }

  /// Blocks the calling thread until this member resolves and returns its value; see
  /// ``Promise/wait()``.
  ///
  /// - Returns: the value.
  /// - Throws: the rejection error (the cancel error after a cancel).
  public func wait() throws -> T {
    try promise.wait()
  }
}

extension CancellablePromise where T == Void {
  /// PromiseKit 7's later name for ``init(task:)``: a `Void` member already fulfilled.
  ///
  /// - Parameter cancellable: the work to stop on cancel.
  public convenience init(cancellable: (any Cancellable)?) {
    self.init(task: CancellableTaskOf.task(for: cancellable))
  }
}

extension Guarantee {
  /// A guarantee whose work `cancellable` is cancelled when a cancellable promise made from it
  /// (`cancellize()`) is cancelled: PromiseKit 7's `Guarantee(cancellable:resolver:)`. Calls
  /// `body` at once, on this thread, with the function that resolves it.
  ///
  /// - Parameters:
  ///   - cancellable: the work to stop when the cancellable wrapper is cancelled.
  ///   - body: starts the work and calls `resolve` with the value, now or later, from any thread.
  public convenience init(cancellable: any Cancellable, resolver body: (@escaping @Sendable (T) -> Void) -> Void) {
    self.init(task: CancellableTaskOf.task(for: cancellable))
    body { [self] value in self.settle(value) }
  }
}

extension CancelContext {
  /// Adds `cancellable` (cancelled once) and `reject` (called with the cancel error) to this
  /// context, to run if it is cancelled while `thenable` is pending: PromiseKit 7's spelling.
  ///
  /// - Parameters:
  ///   - cancellable: the work to stop on cancel.
  ///   - reject: rejects the work's promise on cancel.
  ///   - thenable: the member the work belongs to.
  public func append<Z: CancellableThenable>(
    cancellable: (any Cancellable)?, reject: (@Sendable (Error) -> Void)?, thenable: Z
  ) {
    append(task: CancellableTaskOf.task(for: cancellable), reject: reject, whilePending: thenable.promise)
  }
}

extension CancellableFinalizer {
  /// Cancels the chain with `error` (PromiseKit 7's label).
  ///
  /// - Parameters:
  ///   - error: the rejection error.
  ///   - fileID: where the cancel is called from, for ``cancellationRecord``; leave the default.
  ///   - line: the line of that call; leave the default.
  ///   - function: the function making that call; leave the default.
  public func cancel(
    with error: Error, fileID: StaticString = #fileID, line: Int = #line, function: StaticString = #function
  ) {
    cancel(error: error, fileID: fileID, line: line, function: function)
  }

  /// The error of the first cancel, if the chain was cancelled.
  public var cancelledError: Error? { cancelContext.cancelledError }
}

/// A ``Cancellable`` that is not a ``CancellableTask`` as one: its `isCancelled` is whether
/// `cancel()` was called.
struct CancellableTaskOf: CancellableTask {
  let work: any Cancellable
  let cancelled = CancelSource()

  /// `work` itself if it is a task, else `work` wrapped.
  static func task(for work: (any Cancellable)?) -> (any CancellableTask)? {
    guard let work else { return nil }
    return work as? any CancellableTask ?? CancellableTaskOf(work: work)
  }

  func cancel() {
    cancelled.cancel()
    work.cancel()
  }

  var isCancelled: Bool { cancelled.isCancelled }
}

/// A promise rejected with ``PMKError/timedOut`` after `seconds` (PromiseKit 7's `timeout`), for
/// `race(work.asVoid(), timeout(seconds: 5).cancellize())` (`race` takes promises of one type).
///
/// It never fulfils. A non-finite or negative `seconds` means what it means for
/// ``after(seconds:)``.
///
/// - Parameter seconds: the delay before the rejection.
/// - Returns: a `Void` promise that rejects with ``PMKError/timedOut``.
public func timeout(seconds: TimeInterval) -> Promise<Void> {
  let promise = Promise<Void>(pending: ())
  after(seconds: seconds).pipe { (_: Void) in promise.settle(.failure(PMKError.timedOut)) }
  return promise
}

/// Waits for every `Void` cancellable promise (PromiseKit 7); rejects as soon as one rejects. The
/// inputs are members of the result's chain.
///
/// - Parameter promises: the inputs.
/// - Returns: a `Void` cancellable promise.
public func when(fulfilled promises: CancellablePromise<Void>...) -> CancellablePromise<Void> {
  when(fulfilled: promises).asVoid()
}

/// Waits for every `Void` cancellable promise (PromiseKit 7); rejects as soon as one rejects.
///
/// - Parameter promises: the inputs.
/// - Returns: a `Void` cancellable promise.
public func when(fulfilled promises: [CancellablePromise<Void>]) -> CancellablePromise<Void> {
  let values: CancellablePromise<[Void]> = when(fulfilled: promises)
  return values.asVoid()
}

/// Waits for two cancellable promises of any types (PromiseKit 7's `cancellableWhen`); rejects
/// as soon as one rejects. The inputs are members of the result's chain.
///
/// - Returns: a cancellable promise of both values.
public func cancellableWhen<U: CancellableThenable, V: CancellableThenable>(
  fulfilled pu: U, _ pv: V
) -> CancellablePromise<(U.T, V.T)> {
  when(fulfilled: [pu.asVoid(), pv.asVoid()]).map(on: nil) { _ in (pu.value!, pv.value!) }
}

/// Waits for three cancellable promises of any types; see ``cancellableWhen(fulfilled:_:)``.
///
/// - Returns: a cancellable promise of the three values.
public func cancellableWhen<U: CancellableThenable, V: CancellableThenable, W: CancellableThenable>(
  fulfilled pu: U, _ pv: V, _ pw: W
) -> CancellablePromise<(U.T, V.T, W.T)> {
  when(fulfilled: [pu.asVoid(), pv.asVoid(), pw.asVoid()]).map(on: nil) { _ in (pu.value!, pv.value!, pw.value!) }
}

/// Waits for four cancellable promises of any types; see ``cancellableWhen(fulfilled:_:)``.
///
/// - Returns: a cancellable promise of the four values.
public func cancellableWhen<
  U: CancellableThenable, V: CancellableThenable, W: CancellableThenable, X: CancellableThenable
>(
  fulfilled pu: U, _ pv: V, _ pw: W, _ px: X
) -> CancellablePromise<(U.T, V.T, W.T, X.T)> {
  when(fulfilled: [pu.asVoid(), pv.asVoid(), pw.asVoid(), px.asVoid()]).map(on: nil) { _ in
    (pu.value!, pv.value!, pw.value!, px.value!)
  }
}

/// Waits for five cancellable promises of any types; see ``cancellableWhen(fulfilled:_:)``.
///
/// - Returns: a cancellable promise of the five values.
public func cancellableWhen<
  U: CancellableThenable, V: CancellableThenable, W: CancellableThenable, X: CancellableThenable, Y: CancellableThenable
>(
  fulfilled pu: U, _ pv: V, _ pw: W, _ px: X, _ py: Y
) -> CancellablePromise<(U.T, V.T, W.T, X.T, Y.T)> {
  when(fulfilled: [pu.asVoid(), pv.asVoid(), pw.asVoid(), px.asVoid(), py.asVoid()]).map(on: nil) { _ in
    (pu.value!, pv.value!, pw.value!, px.value!, py.value!)
  }
}
