import Dispatch
import Foundation
import Promises
import Synchronization
import TestSupport

/// A test error with an identity.
struct TestError: Error, Equatable {
  var id = 0
}

/// Queues that tell a closure which queue it runs on.
enum QueueProbe {
  static let key = DispatchSpecificKey<String>()

  /// A serial queue labelled `label`.
  static func make(_ label: String) -> DispatchQueue {
    let queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: label)
    return queue
  }

  /// The label of the probe queue the caller runs on, or `nil`.
  static var label: String? { DispatchQueue.getSpecific(key: key) }

  static let mainKey: DispatchSpecificKey<String> = {
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    return key
  }()

  /// "main" when the caller runs on the main queue.
  static var mainLabel: String? { DispatchQueue.getSpecific(key: mainKey) }
}

/// Waits (without blocking a thread) for the thenable's result.
func outcome<P: Thenable>(of thenable: P) async -> Result<P.T, Error> {
  await withCheckedContinuation { continuation in
    thenable.pipe { continuation.resume(returning: $0) }
  }
}

/// The error of a rejected result, or `nil`.
func failure<T>(_ result: Result<T, Error>?) -> Error? {
  if case .failure(let error)? = result { return error }
  return nil
}

/// Runs `body` on a fresh thread with a small stack and waits for it; used to show a deep chain
/// needs no deep stack.
func onSmallStack(_ bytes: Int = 256 << 10, _ body: @escaping @Sendable () -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    let thread = Thread {
      body()
      continuation.resume()
    }
    thread.stackSize = bytes
    thread.start()
  }
}

/// Counts the threads inside a region at once.
final class Gauge: Sendable {
  private let count = Atomic<Int>(0)

  /// Enters; returns how many are inside now, this caller included.
  func enter() -> Int { count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue }

  /// Leaves.
  func leave() { count.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
}
