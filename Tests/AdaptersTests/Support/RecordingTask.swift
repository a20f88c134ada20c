import Promises
import TestSupport

/// A `CancellableTask` that counts its cancels, to prove a chain cancelled it exactly once.
final class RecordingTask: CancellableTask, Sendable {
  let cancels = Counter()
  func cancel() { cancels.increment() }
  var isCancelled: Bool { cancels.value > 0 }
}
