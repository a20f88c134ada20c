extension CancelSignal {
  /// Suspends until the source ends or the awaiting task is cancelled.
  ///
  /// It returns when the source is cancelled, when it closes (it could then never be cancelled,
  /// so waiting on would hang forever), or when the task that awaits is cancelled. Either way no
  /// continuation or handler is left behind.
  ///
  /// - Returns: whether the source is cancelled when the wait ends.
  @discardableResult
  public func cancelled() async -> Bool {
    if isCompleted { return isCancelled }
    let waiter = CancelWaiter()
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        waiter.start(continuation, on: storage)
      }
    } onCancel: {
      // Runs under the runtime's task lock: it only flips our state and resumes.
      waiter.stop()
    }
    return isCancelled
  }
}

/// One `cancelled()` wait: resumes its continuation exactly once, whichever comes first — the
/// source ending or the awaiting task being cancelled — and removes the source handler it left.
//
// Safety of `@unchecked Sendable`: `state` is read and written only inside `lock.withLock`.
private final class CancelWaiter: CoreLockHost, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  private enum State {
    /// Created; the continuation has not arrived yet.
    case idle
    /// Suspended; the registration arrives just after the continuation.
    case waiting(UnsafeContinuation<Void, Never>, CancelRegistration?)
    /// The task was cancelled before the continuation arrived.
    case stoppedEarly
    /// Resumed. Final.
    case done
  }

  private var state = State.idle

  func start(_ continuation: UnsafeContinuation<Void, Never>, on storage: CancelStorage) {
    let stoppedEarly: Bool = lock.withLock {
      if case .stoppedEarly = state {
        state = .done
        return true
      }
      state = .waiting(continuation, nil)
      return false
    }
    if stoppedEarly { return continuation.resume() }
    // On an ended source the handler runs inside `register`, before we store the registration.
    let registration = storage.register(.onComplete { [self] _ in resume() })
    let stale: Bool = lock.withLock {
      guard case .waiting(let continuation, nil) = state else { return true }
      state = .waiting(continuation, registration)
      return false
    }
    if stale { registration.unregister() }
  }

  /// The source ended.
  private func resume() {
    let continuation: UnsafeContinuation<Void, Never>? = lock.withLock {
      guard case .waiting(let continuation, _) = state else { return nil }
      state = .done
      return continuation
    }
    continuation?.resume()
  }

  /// The awaiting task was cancelled.
  func stop() {
    let taken: (UnsafeContinuation<Void, Never>, CancelRegistration?)? = lock.withLock {
      switch state {
      case .idle:
        state = .stoppedEarly
        return nil
      case .waiting(let continuation, let registration):
        state = .done
        return (continuation, registration)
      case .stoppedEarly, .done:
        return nil
      }
    }
    guard let (continuation, registration) = taken else { return }
    registration?.unregister()
    continuation.resume()
  }

  init() {
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }
}
