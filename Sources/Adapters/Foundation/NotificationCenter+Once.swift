import CancelCore
import Foundation

extension NotificationCenter {
  /// Waits for the next notification named `name` (from `object`, if given), then stops
  /// observing; cancelling `signal` stops observing at once.
  ///
  /// The facade-neutral engine behind the observe-once adapters. `completion` runs exactly once:
  /// with `.success` on the posting thread when the notification arrives, or with
  /// `.failure(reason)` on the cancelling thread. Either way the observer is removed before
  /// `completion` runs, so no later post reaches it.
  public func observeOnce(
    _ name: Notification.Name, object: AnyObject? = nil, signal: CancelSignal,
    completion: @escaping @Sendable (Result<Notification, any Error>) -> Void
  ) {
    let outcome = SettleCell<Result<NotificationBox, any Error>>()
    if let reason = signal.reason {
      completion(.failure(reason))
      return
    }
    let token = addObserver(forName: name, object: object, queue: nil) { notification in
      outcome.settle(.success(NotificationBox(notification: notification)))
    }
    let observer = ObserverBox(center: self, token: token)
    let registration = signal.onCancel { (reason: any Error) in outcome.settle(.failure(reason)) }
    outcome.observe { result in
      observer.remove()
      registration.unregister()
      completion(result.map(\.notification))
    }
  }
}

/// Carries a notification across the settle (its `userInfo` is not `Sendable`-checked).
private struct NotificationBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the notification is handed once from the posting thread to
  // the completion, never used concurrently.
  let notification: Notification
}

/// Removes an observer from any thread.
private struct ObserverBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `NotificationCenter.removeObserver(_:)` is thread-safe; the
  // token is only passed back to it.
  let center: NotificationCenter
  let token: any NSObjectProtocol

  func remove() { center.removeObserver(token) }
}
