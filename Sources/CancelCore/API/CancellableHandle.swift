/// A handle to work of this package (a future's cancel token, a cancellable promise, a chain's
/// finalizer) that a registration may hold strongly, because the work tells it when it ended.
///
/// Registering an arbitrary object usually holds it weakly (the token facade's
/// `register(cancelable:)` does, as couchdeveloper/Cancellation did), so that registering never
/// keeps a user's object alive. A handle is different: it is usually created just to be
/// registered (`register(cancelable: future.getCancelToken())`), so held weakly it would be freed
/// at once and the registration would do nothing. A registration therefore holds a handle strongly
/// until the registering token ends or the handle's work ends, whichever comes first; the handle
/// reports the latter through ``whenWorkEnds(_:)`` so that a long-lived token does not accumulate
/// handles of finished work.
public protocol CancellableHandle: Cancellable, AnyObject {
  /// Runs `body` once when the work behind this handle has ended (completed, failed or
  /// cancelled): on the thread that ends it, or at once on this thread if it already has.
  ///
  /// `body` must not be kept after it ran, and it must not count as a consumer of the work (it
  /// changes nothing about how a cancel or request travels).
  ///
  /// - Parameter body: what to do then; it should be short (it runs where the work ends).
  func whenWorkEnds(_ body: @escaping @Sendable () -> Void)
}
