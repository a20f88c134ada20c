/// What a source does, for one registration, when it ends.
///
/// Links are a case of their own rather than a closure so that cancelling a chain of linked
/// sources can run as a loop instead of a recursion (see `CancelStorage+Propagation.swift`).
///
/// `@unchecked Sendable` because the two cancel cases hold closures that need not be `@Sendable`:
/// each is either `@Sendable` or was *sent* by its registrant (`CancelSignal.onCancel` takes a
/// `sending` closure), so nothing else can reach its captures; the storage that holds it runs it
/// at most once, or releases it, on one thread, under no lock, and hands it between threads only
/// through its lock. Storing the sent closure as it is costs nothing, where converting it to a
/// `@Sendable` type would wrap it in a reabstraction thunk (two allocations per registration).
@usableFromInline
package enum CancelHandler: @unchecked Sendable {
  /// Runs only if the source is cancelled.
  case onCancel(() -> Void)
  /// Runs only if the source is cancelled, and receives the reason.
  case onCancelWithReason((any Error) -> Void)
  /// Runs when the source ends either way; receives whether it was cancelled.
  case onComplete(@Sendable (_ cancelled: Bool) -> Void)
  /// A linked child: cancelled with this source's reason when this source is cancelled. `keeping`
  /// (the child's owner, which must not go away and close the child while this source can still
  /// cancel it) is held as long as the link exists: until this source ended (cancelled: until the
  /// cancel loop that went through the link is done) or the child ended and left it.
  case link(CancelStorage, keeping: (any AnyObject & Sendable)?)
}
