import Dispatch

/// Queues that tell a closure which queue it runs on (by a queue-specific key).
public enum QueueProbe {
  static let key = DispatchSpecificKey<String>()
  static let mainKey: DispatchSpecificKey<String> = {
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    return key
  }()

  /// A serial queue labelled `label`.
  public static func make(_ label: String) -> DispatchQueue {
    let queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: label)
    return queue
  }

  /// The label of the probe queue the caller runs on, or `nil`.
  public static var label: String? { DispatchQueue.getSpecific(key: key) }

  /// `"main"` when the caller runs on the main queue (on Linux, Swift Testing drains it from a
  /// thread Foundation does not call the main thread, so `Thread.isMainThread` cannot tell).
  public static var mainLabel: String? { DispatchQueue.getSpecific(key: mainKey) }
}
