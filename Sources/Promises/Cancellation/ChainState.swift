import CancelCore

/// A cancellable chain's shared state as its stages use it: the context's source, without the
/// context.
///
/// What keeps a ``CancelContext`` alive must be only what can cancel it (your members, finalizers
/// and contexts, and chains it is linked into); the context's source keeps every pending member,
/// and through it the stages waiting on it. A stage that held the context would therefore keep
/// its own chain alive forever once dropped pending; stages hold this instead.
@usableFromInline
struct ChainState: Sendable {
  /// The chain's source (owned by its context, which closes it when it goes away).
  @usableFromInline let source: CancelStorage

  @inlinable
  init(source: CancelStorage) {
    self.source = source
  }

  /// Whether this chain's cancel has started (its source flipped; it may not have reached every
  /// member yet): what a stage checks before its body starts. One atomic load.
  @inlinable var cancelStarted: Bool { source.isCancelled }

  /// This chain's cancel error, once its cancel started.
  @usableFromInline var cancelReason: (any Error)? { source.reason }

  /// Throws the cancel error if a cancel of this chain has started (see
  /// `CancelContext.checkNotCancelled()`).
  @usableFromInline func checkNotCancelled() throws {
    if cancelStarted, let reason = cancelReason { throw reason }
  }

  /// Whether the chain was cancelled with the error `error` identifies (that very error object).
  @inlinable func isCancelled(by error: ErrorIdentity) -> Bool { source.isCancelled(by: error) }

  /// Cancels the chain with `error` (the first error wins). `from` is the chain whose cancel
  /// started this one, if one did: its record then shows this chain reached through a link.
  func cancel(error: any Error, from: ChainState? = nil) {
    _ = source.cancel(reason: error, cause: from.map { .link($0.source) } ?? .call)
  }

  /// Settles `promise` (a member of this chain) with `result`, or with the cancel error if this
  /// chain's cancel has started: a cancel counts from the moment it flips the context, even before
  /// it reached this member (the tasks are cancelled first, and one may resolve the work the member
  /// follows, or a stage's body may return while the cancel runs). The promise's settle claims the
  /// cancel under its lock (see ``UnretainedMember``).
  @inlinable
  func settle<T>(_ promise: Promise<T>, with result: Swift.Result<T, Error>) {
    promise.settle(result)
  }

  /// The cancel claim of a member settling with `result` (see
  /// ``UnretainedMember/claimCancel(of:for:)``, which calls this): once this chain's cancel has
  /// started, the cancel error wins, whatever `result` is (`nil` included), and the chain records
  /// that its cancel rejected a member. A failure that is the cancel error itself (a cancel passing
  /// down a chain) is kept, without reading the reason again. One atomic load while not cancelled.
  @inlinable @inline(__always)
  func claimCancel<T>(for result: inout Swift.Result<T, Error>?) {
    guard source.isCancelled else { return }
    claimStartedCancel(for: &result)
  }

  /// ``claimCancel(for:)`` once the cancel has started, out of line: for a caller that is itself
  /// inlined where the claim is rare (a settled parent's stage), which the claim would make too
  /// large to inline.
  @inlinable @inline(never)
  func claimStartedCancelOutOfLine<T>(for result: inout Swift.Result<T, Error>?) {
    claimStartedCancel(for: &result)
  }

  /// ``claimCancel(for:)`` once the cancel has started.
  @inlinable @inline(__always)
  func claimStartedCancel<T>(for result: inout Swift.Result<T, Error>?) {
    // Taken out and put back rather than matched in place: matching binds a copy of the error, a
    // retain and a release of the one error a cancel passes down every stage of its chain.
    guard let taken = result.take() else {
      if let reason = source.claimCancelReason() { result = .failure(reason) }
      return
    }
    switch consume taken {
    case .failure(let error):
      if source.isCancelled(by: ErrorIdentity(error)) {
        source.recordCancelledMember()
        result = .failure(consume error)
      } else if let reason = source.claimCancelReason() {
        result = .failure(reason)
      } else {
        result = .failure(consume error)
      }
    case .success(let value):
      if let reason = source.claimCancelReason() {
        result = .failure(reason)
      } else {
        result = .success(consume value)
      }
    }
  }

  /// Rejects `promise` (a member) with the cancel `reason`: records the rejection (what
  /// ``CancelContext/isCancelled`` reports) **before** delivering it, so a handler of the member
  /// that runs synchronously already sees it. Returns whether this call settled the promise.
  @inlinable @discardableResult
  func reject<T>(_ promise: Promise<T>, cancelledWith reason: any Error) -> Bool {
    switch promise.settleLeavingDelivery(.failure(reason)) {
    case .alreadySettled: return false
    case .settled:
      markRejected()
      return true
    case .deliver:
      markRejected()
      promise.deliverSettled()
      return true
    }
  }

  /// Records that a cancel rejected a member (what ``CancelContext/isCancelled`` reports), in the
  /// source's member group.
  @inlinable
  func markRejected() {
    source.recordCancelledMember()
  }

  /// Links `other` so that cancelling this chain cancels it too (with the same error), through
  /// `child` (by default `other`'s entry after an `ensure`, which reaches the chain before the
  /// clean-up at once and the stages after it once the clean-up finished, else `other`'s source).
  ///
  /// The link keeps `other` alive while this chain can still be cancelled (until this chain's
  /// source ends; cancelled, until the cancel went through `other`) or until `child` ends,
  /// whichever comes first: a cancel of this chain must reach `other`'s tasks and members even
  /// when nobody else holds `other`. Nothing of the link stays in either chain once one of them
  /// ended, so a long-lived chain linked to or from many short-lived ones does not grow.
  @usableFromInline
  func append(_ other: CancelContext, through child: CancelStorage? = nil) {
    let child = child ?? other.entry ?? other.source
    guard child !== source else { return }
    _ = child.link(to: source, keeping: other)
  }
}

/// Settles one member of a chain from a callback, without keeping the chain's context alive
/// (see ``ChainState``).
@usableFromInline
struct MemberSettler<T: Sendable>: Sendable {
  @usableFromInline let promise: Promise<T>
  @usableFromInline let chain: ChainState

  @inlinable
  init(_ member: CancellablePromise<T>) {
    promise = member.promise
    chain = member.cancelContext.chain
  }

  /// `CancelContext.settle(_:with:)` for this member.
  @inlinable
  func settle(_ result: Swift.Result<T, Error>) {
    chain.settle(promise, with: result)
  }
}
