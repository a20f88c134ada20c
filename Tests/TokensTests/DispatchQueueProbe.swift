import Dispatch

/// Queues that tell a closure which queue it runs on.
enum DispatchQueueProbe {
  static let key = DispatchSpecificKey<String>()

  /// A serial queue labelled `label`.
  static func make(_ label: String) -> DispatchQueue {
    let queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: label)
    return queue
  }

  /// The label of the probe queue the caller runs on, or `nil`.
  static var label: String? { DispatchQueue.getSpecific(key: key) }
}
