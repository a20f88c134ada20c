import CancelCore
import Dispatch

// PromiseKit 7 makes `DispatchWorkItem` one of its cancellables and its code passes work items as
// the `cancellable:` of promises and guarantees. A work item is not `Sendable`, so it cannot be one
// of ours: these overloads take it and wrap it (`WorkItemTask`).

extension CancellablePromise {
  /// `init(cancellable:resolver:)` for a `DispatchWorkItem`: cancelling the chain while the
  /// promise is pending cancels the work item (once) and rejects the promise.
  ///
  /// - Parameters:
  ///   - cancellable: the work item to cancel.
  ///   - body: starts the work; throwing rejects the promise.
  public convenience init(cancellable: DispatchWorkItem, resolver body: (Resolver<T>) throws -> Void) {
    self.init(task: WorkItemTask(cancellable), resolver: body)
  }

  /// `init(cancellable:promise:resolver:)` for a `DispatchWorkItem`.
  ///
  /// - Parameters:
  ///   - cancellable: the work item to cancel.
  ///   - promise: the promise to wrap.
  ///   - resolver: its resolver, rejected on cancel.
  public convenience init(cancellable: DispatchWorkItem, promise: Promise<T>, resolver: Resolver<T>) {
    self.init(task: WorkItemTask(cancellable), promise: promise, resolver: resolver)
  }

  /// `init(cancellable:error:)` for a `DispatchWorkItem`.
  ///
  /// - Parameters:
  ///   - cancellable: accepted for PromiseKit 7 compatibility; the member has already settled, so
  ///     the work item is never cancelled by this chain.
  ///   - error: the rejection.
  public convenience init(cancellable: DispatchWorkItem, error: Error) {
    self.init(task: WorkItemTask(cancellable), error: error)
  }
}

extension CancellablePromise where T == Void {
  /// `init(cancellable:)` for a `DispatchWorkItem`: a `Void` member already fulfilled.
  ///
  /// - Parameter cancellable: accepted for PromiseKit 7 compatibility; the member has already
  ///   settled, so the work item is never cancelled by this chain.
  public convenience init(cancellable: DispatchWorkItem) {
    self.init(task: WorkItemTask(cancellable))
  }
}

extension Guarantee {
  /// `init(cancellable:resolver:)` for a `DispatchWorkItem`: a cancellable promise made from this
  /// guarantee (`cancellize()`) cancels the work item when it is cancelled while pending.
  ///
  /// - Parameters:
  ///   - cancellable: the work item to cancel.
  ///   - body: starts the work and calls `resolve` with the value, now or later, from any thread.
  public convenience init(cancellable: DispatchWorkItem, resolver body: (@escaping @Sendable (T) -> Void) -> Void) {
    self.init(cancellable: WorkItemTask(cancellable), resolver: body)
  }

  /// Makes `cancellable` the work this guarantee waits for (PromiseKit 7's `setCancellable`): a
  /// cancellable promise made from it afterwards (`cancellize()`, `cancellable(_:)`) cancels that
  /// work, once, when it is cancelled while the guarantee is pending. Replaces the work given
  /// before; wrappers made before keep the work they took.
  ///
  /// A cancel made inside another cancel's handler reaches the work only when that handler
  /// returns (docs/semantics.md, "Nested cancels are queued"): if the guarantee resolved
  /// meanwhile, the work is not cancelled. (A member's own task, `CancellablePromise(task:)`, is:
  /// a promise resolved after its chain's cancel started is rejected by that cancel, while a
  /// guarantee keeps the value it resolved with.)
  ///
  /// - Parameter cancellable: the work to stop.
  public func setCancellable(_ cancellable: any Cancellable) {
    replaceTask(with: CancellableTaskOf.task(for: cancellable))
  }

  /// `setCancellable(_:)` for a `DispatchWorkItem`.
  ///
  /// - Parameter cancellable: the work item to cancel.
  public func setCancellable(_ cancellable: DispatchWorkItem) {
    replaceTask(with: WorkItemTask(cancellable))
  }
}

/// A `DispatchWorkItem` as a ``CancellableTask``.
struct WorkItemTask: CancellableTask, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `DispatchWorkItem.cancel()` and `isCancelled` are thread-safe
  // (libdispatch synchronizes them); they are the only members used.
  let item: DispatchWorkItem

  init(_ item: DispatchWorkItem) {
    self.item = item
  }

  func cancel() {
    item.cancel()
  }

  var isCancelled: Bool { item.isCancelled }
}
