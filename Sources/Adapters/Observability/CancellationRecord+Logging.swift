#if Observability
  import CancelCore
  import Logging

  extension CancellationRecord {
    /// The record as swift-log metadata, for a log line of your own:
    /// `logger.info("request ended", metadata: record.logMetadata)`.
    ///
    /// | Key | Value |
    /// |---|---|
    /// | `cancel.reason` | the reason, as `String(describing:)` prints it |
    /// | `cancel.trigger` | `Trigger.description`: `call`, `deadline`, `task cancellation`, … |
    /// | `cancel.origin` | `FILE:LINE` of the call that started it (absent when unknown) |
    /// | `cancel.function` | the function that made that call (absent when unknown) |
    /// | `cancel.path` | the labels from the origin to the source read from (absent when none) |
    /// | `cancel.hops` | how many sources the cancel went through, the origin included |
    public var logMetadata: Logger.Metadata {
      var metadata: Logger.Metadata = [
        "cancel.reason": "\(reason)",
        "cancel.trigger": "\(trigger.description)",
        "cancel.hops": "\(hops.count)",
      ]
      if !fileID.isEmpty {
        metadata["cancel.origin"] = "\(fileID):\(line)"
        if !function.isEmpty { metadata["cancel.function"] = "\(function)" }
      }
      if !path.isEmpty { metadata["cancel.path"] = .array(path.map { .string($0) }) }
      return metadata
    }

    /// An observer for `setObserver(_:)` that logs every record to `logger` at `level`: the
    /// message is the record's one-line `description`, the metadata ``logMetadata``.
    ///
    /// ```swift
    /// CancellationRecord.setObserver(CancellationRecord.logging(to: Logger(label: "cancellation")))
    /// ```
    ///
    /// It runs on the cancelling thread, inside the cancel: the log handler must not block for
    /// long (swift-log's stream handler writes synchronously; a handler that ships lines over the
    /// network should queue them).
    ///
    /// - Parameters:
    ///   - logger: where to log.
    ///   - level: the level of each line (`.info` by default).
    /// - Returns: the observer.
    public static func logging(
      to logger: Logger, level: Logger.Level = .info
    ) -> @Sendable (CancellationRecord) -> Void {
      { record in logger.log(level: level, "\(record.description)", metadata: record.logMetadata) }
    }
  }
#endif
