#if Observability
  import CancelCore
  import Foundation
  import Instrumentation
  import Tracing

  extension CancellationRecord {
    /// The record as span attributes, under the same keys as ``logMetadata`` (`cancel.reason`,
    /// `cancel.trigger`, `cancel.origin`, `cancel.function`, `cancel.path`, `cancel.hops`).
    public var spanAttributes: SpanAttributes {
      var attributes: SpanAttributes = [:]
      attributes["cancel.reason"] = "\(reason)"
      attributes["cancel.trigger"] = trigger.description
      attributes["cancel.hops"] = hops.count
      if !fileID.isEmpty {
        attributes["cancel.origin"] = "\(fileID):\(line)"
        if !function.isEmpty { attributes["cancel.function"] = function }
      }
      if !path.isEmpty { attributes["cancel.path"] = SpanAttribute.stringArray(path) }
      return attributes
    }

    /// The record as a span event named `cancelled`, at the instant of the cancel (estimated on
    /// the wall clock, see `date`), with ``spanAttributes``.
    public var spanEvent: SpanEvent {
      SpanEvent(name: "cancelled", at: CancelInstant(date: date), attributes: spanAttributes)
    }

    /// Adds ``spanEvent`` to the span that `tracer` has active for `context`: the span of the code
    /// that is running when you call it. Returns whether there was one.
    ///
    /// Only tracers that implement `activeSpan(identifiedBy:)` can say which span is active (the
    /// protocol's default answers none); swift-distributed-tracing's `InMemoryTracer` does.
    ///
    /// - Parameters:
    ///   - context: the service context whose span gets the event; the task's current one
    ///     (`ServiceContext.current`) by default.
    ///   - tracer: the tracer; the bootstrapped one (`InstrumentationSystem.tracer`) by default.
    /// - Returns: whether a span was active and got the event.
    @discardableResult
    public func addSpanEvent(
      toSpanActiveIn context: ServiceContext? = ServiceContext.current,
      tracer: any Tracer = InstrumentationSystem.tracer
    ) -> Bool {
      guard let context, let span = tracer.activeSpan(identifiedBy: context) else { return false }
      span.addEvent(spanEvent)
      return true
    }

    /// An observer for `setObserver(_:)` that adds every record as a span event (see
    /// ``addSpanEvent(toSpanActiveIn:tracer:)``) to the span active where the cancel runs: in the
    /// task that cancelled, the span of the code that called `cancel`. A cancel that starts outside
    /// any task with a span (a deadline's timer, a thread of your own) adds nothing.
    ///
    /// ```swift
    /// let log = CancellationRecord.logging(to: Logger(label: "cancellation"))
    /// let trace = CancellationRecord.addingSpanEvents()
    /// CancellationRecord.setObserver { record in
    ///   log(record)
    ///   trace(record)
    /// }
    /// ```
    ///
    /// - Parameter tracer: the tracer; the bootstrapped one when the observer runs
    ///   (`InstrumentationSystem.tracer`) if `nil`.
    /// - Returns: the observer.
    public static func addingSpanEvents(tracer: (any Tracer)? = nil) -> @Sendable (CancellationRecord) -> Void {
      { record in record.addSpanEvent(tracer: tracer ?? InstrumentationSystem.tracer) }
    }
  }

  /// A wall-clock instant for a span event, from a `Date`.
  private struct CancelInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    init(date: Date) {
      nanosecondsSinceEpoch = UInt64(max(0, date.timeIntervalSince1970) * 1_000_000_000)
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
  }
#endif
