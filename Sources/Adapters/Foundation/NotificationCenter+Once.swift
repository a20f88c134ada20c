import CancelCore
import Foundation
import Tokens

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
    completion: @escaping @Sendable (Swift.Result<Notification, any Error>) -> Void
  ) {
    let outcome = SettleCell<Swift.Result<NotificationBox, any Error>>()
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

extension NotificationCenter {
  /// The next notification named `name` (from `object`, if given), as work that every facade can
  /// start: `try await …run()`, `.promise()`, `.future()`, `.start(token:completion:)`. Each start
  /// observes anew; the rules are those of ``observeOnce(_:object:signal:completion:)``.
  ///
  /// `Notification` is not `Sendable` (its `object` and `userInfo` can hold anything), so the
  /// work cannot hand it across threads: `extract` runs on the posting thread, as the observer
  /// would, and its `Sendable` result is the work's value.
  ///
  /// - Parameters:
  ///   - name: the notification's name.
  ///   - object: the sender to listen to; `nil` for any sender.
  ///   - extract: reads what you need from the notification; a thrown error becomes the outcome.
  /// - Returns: the observation, not started.
  public func nextNotification<T: Sendable>(
    named name: Notification.Name, object: AnyObject? = nil,
    extract: @escaping @Sendable (Notification) throws -> T
  ) -> CancellableWork<T> {
    let center = CenterBox(center: self, object: object)
    return CancellableWork { signal, completion in
      center.center.observeOnce(name, object: center.object, signal: signal) { result in
        completion(result.flatMap { notification in Swift.Result { try extract(notification) } })
      }
    }
  }

  /// The next notification named `name` (from `object`, if given), as work that every facade can
  /// start; its value says only that the notification was posted. See
  /// ``nextNotification(named:object:extract:)``.
  public func nextNotification(named name: Notification.Name, object: AnyObject? = nil) -> CancellableWork<Void> {
    nextNotification(named: name, object: object) { _ in () }
  }

  /// Waits for the next notification named `name`, and stops observing when `token` is cancelled.
  /// The token form of ``observeOnce(_:object:signal:completion:)``; same rules. Without a
  /// `token`, the current token (`CancellationToken.current`, read when the call is made) stops
  /// observing; outside any scope nothing does.
  public func observeOnce(
    _ name: Notification.Name, object: AnyObject? = nil,
    token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    completion: @escaping @Sendable (Swift.Result<Notification, any Error>) -> Void
  ) {
    observeOnce(name, object: object, signal: token.signal, completion: completion)
  }
}

/// Carries a notification center and the observed sender into `@Sendable` closures.
private struct CenterBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `NotificationCenter` is thread-safe; `object` is only passed
  // back to it as the sender to match, never used otherwise.
  let center: NotificationCenter
  let object: AnyObject?
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
