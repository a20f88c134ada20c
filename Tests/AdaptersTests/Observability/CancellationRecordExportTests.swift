#if Observability
  import Adapters
  import InMemoryTracing
  import Logging
  import ServiceContextModule
  import TestSupport
  import Testing
  import Tokens
  import Tracing

  /// The `Observability` trait: a record as swift-log metadata and lines, and as a span event.
  /// The observers are called directly here: setting the process's one observer would watch every
  /// other test's cancels (`CancellationObserverTests` covers `setObserver` in a child process).
  @Suite("Cancellation records to swift-log and tracing")
  struct CancellationRecordExportTests {
    /// A log handler that keeps what it is given.
    struct KeptLine: Sendable {
      let level: Logger.Level
      let message: String
      let metadata: Logger.Metadata
    }

    struct KeepingHandler: LogHandler {
      let kept: Recorder<KeptLine>
      var metadata: Logger.Metadata = [:]
      var logLevel: Logger.Level = .trace

      subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
      }

      func log(event: LogEvent) {
        kept.record(KeptLine(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
      }
    }

    func linkedRecord() throws -> (CancellationRecord, line: Int) {
      let request = CancellationRequest(label: "GET /users")
      let query = CancellationRequest(linkedTo: request.token, label: "db query")
      request.cancel(reason: TimeoutError(timeout: .seconds(5))); let line = #line
      return (try #require(query.token.cancellationRecord), line)
    }

    @Test func theMetadataHasEveryFieldOfTheRecord() throws {
      let (record, line) = try linkedRecord()
      let metadata = record.logMetadata
      #expect(metadata["cancel.trigger"] == "call")
      #expect(metadata["cancel.reason"] == "\(record.reason)")
      #expect(metadata["cancel.origin"] == "\(record.fileID):\(line)")
      #expect(metadata["cancel.function"] == "linkedRecord()")
      #expect(metadata["cancel.path"] == .array(["GET /users", "db query"]))
      #expect(metadata["cancel.hops"] == "2")
    }

    @Test func aRecordWithoutOriginOrLabelsLeavesThoseKeysOut() throws {
      let source = CancelSource()
      (source as any Cancellable).cancel()
      let metadata = try #require(source.cancellationRecord).logMetadata
      #expect(metadata["cancel.origin"] == nil && metadata["cancel.function"] == nil)
      #expect(metadata["cancel.path"] == nil)
      #expect(metadata["cancel.hops"] == "1")
    }

    @Test func theLoggingObserverLogsTheLineWithItsMetadataAtTheLevelGiven() throws {
      let kept = Recorder<KeptLine>()
      let logger = Logger(label: "test") { _ in KeepingHandler(kept: kept) }
      let observe = CancellationRecord.logging(to: logger, level: .notice)
      let (record, _) = try linkedRecord()
      observe(record)
      let line = try #require(kept.values.first)
      #expect(kept.values.count == 1)
      #expect(line.level == .notice)
      #expect(line.message == record.description)
      #expect(line.metadata["cancel.path"] == .array(["GET /users", "db query"]))
    }

    @Test func theSpanEventCarriesTheRecordAsAttributes() throws {
      let (record, line) = try linkedRecord()
      let event = record.spanEvent
      #expect(event.name == "cancelled")
      #expect(event.attributes["cancel.trigger"]?.toSpanAttribute() == .string("call"))
      #expect(event.attributes["cancel.origin"]?.toSpanAttribute() == .string("\(record.fileID):\(line)"))
      #expect(event.attributes["cancel.path"]?.toSpanAttribute() == .stringArray(["GET /users", "db query"]))
      #expect(event.attributes["cancel.hops"]?.toSpanAttribute() == .int64(2))
      let eventSeconds = Double(event.nanosecondsSinceEpoch) / 1e9
      #expect(abs(eventSeconds - record.date.timeIntervalSince1970) < 1)
    }

    @Test func theTracingObserverAddsTheEventToTheSpanActiveWhereTheCancelRuns() throws {
      let tracer = InMemoryTracer()
      let observe = CancellationRecord.addingSpanEvents(tracer: tracer)
      let span = tracer.startSpan("GET /users")
      let (record, _) = try linkedRecord()
      ServiceContext.withValue(span.context) { observe(record) }
      #expect(span.events.map(\.name) == ["cancelled"])
      #expect(record.addSpanEvent(toSpanActiveIn: span.context, tracer: tracer))
      #expect(span.events.count == 2)
      span.end()
    }

    @Test func noActiveSpanMeansNoEvent() throws {
      let tracer = InMemoryTracer()
      let (record, _) = try linkedRecord()
      #expect(!record.addSpanEvent(toSpanActiveIn: nil, tracer: tracer))
      #expect(!record.addSpanEvent(toSpanActiveIn: .topLevel, tracer: tracer))
      CancellationRecord.addingSpanEvents(tracer: tracer)(record)
      #expect(tracer.finishedSpans.isEmpty && tracer.activeSpans.isEmpty)
    }
  }
#endif
