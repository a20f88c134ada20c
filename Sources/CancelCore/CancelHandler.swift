/// What a source does, for one registration, when it ends.
///
/// Links are a case of their own rather than a closure so that cancelling a chain of linked
/// sources can run as a loop instead of a recursion (see `CancelStorage+Propagation.swift`).
@usableFromInline
package enum CancelHandler: Sendable {
  /// Runs only if the source is cancelled.
  case onCancel(@Sendable () -> Void)
  /// Runs only if the source is cancelled, and receives the reason.
  case onCancelWithReason(@Sendable (any Error) -> Void)
  /// Runs when the source ends either way; receives whether it was cancelled.
  case onComplete(@Sendable (_ cancelled: Bool) -> Void)
  /// A linked child: cancelled with this source's reason when this source is cancelled.
  case link(CancelStorage)
}
