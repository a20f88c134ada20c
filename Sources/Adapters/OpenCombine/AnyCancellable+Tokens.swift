#if OpenCombine
  import CancelCore
  import Dispatch
  import OpenCombine
  import Tokens

  extension CancellationRequest {
    /// An `AnyCancellable` that cancels this request when it is cancelled or released.
    ///
    /// Store it with a subscription's other cancellables (`store(in:)`): when the set is emptied or
    /// released, the request is cancelled (with `CancellationError()`) and work bound to its token
    /// stops. The `AnyCancellable` holds the request until then.
    public func asAnyCancellable() -> AnyCancellable {
      AnyCancellable { self.cancel() }
    }
  }

  extension AnyCancellable {
    /// Cancels this subscription when `token` is cancelled.
    ///
    /// `AnyCancellable` is not thread-safe: the cancel runs on the thread that cancels the token
    /// unless `queue` is given, so pass the queue that owns this subscription if it is used
    /// anywhere else. A token already cancelled cancels it at once (on `queue`, if given).
    ///
    /// The registration holds this `AnyCancellable` weakly: releasing it still ends the subscription
    /// (as `AnyCancellable` does), and the token does not keep it alive. The registration itself
    /// stays on the token until the token ends or you unregister it (`AnyCancellable` cannot tell
    /// us it went away): on a long-lived token, unregister it when the subscription ends.
    ///
    /// - Parameters:
    ///   - token: cancelling it cancels this subscription.
    ///   - queue: where to call `cancel()`; `nil` for the cancelling thread.
    /// - Returns: the registration; unregister it to keep the subscription past a later cancel.
    @discardableResult
    public func cancel(when token: CancellationToken, on queue: DispatchQueue? = nil) -> CancellationRegistration {
      let subscription = UncheckedAnyCancellable(self)
      return token.onCancel(on: queue) { subscription.cancellable?.cancel() }
    }
  }

  /// An `AnyCancellable`, held weakly, handed to the thread that cancels a token.
  //
  // Safety of `@unchecked Sendable`: only `cancel()` is called, on the thread or queue the caller
  // of `cancel(when:on:)` chose for it (documented there); loading a weak reference is safe from
  // any thread.
  struct UncheckedAnyCancellable: @unchecked Sendable {
    weak var cancellable: AnyCancellable?

    init(_ cancellable: AnyCancellable) {
      self.cancellable = cancellable
    }
  }
#endif
