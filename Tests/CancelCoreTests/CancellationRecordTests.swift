import CancelCore
import Foundation
import TestSupport
import Testing

@Suite("Cancellation records")
struct CancellationRecordTests {
  struct Reason: Error, Equatable { let value: Int }

  @Test func aSourceHasNoRecordUntilItIsCancelledAndNoneWhenItCloses() {
    let source = CancelSource()
    #expect(source.cancellationRecord == nil)
    let closed = CancelSource()
    closed.close()
    #expect(closed.cancellationRecord == nil)
    #expect(CancelSignal.never.cancellationRecord == nil)
  }

  @Test func aDirectCancelRecordsTheReasonTheCallSiteAndTheLabel() throws {
    let source = CancelSource(label: "GET /users")
    let before = ContinuousClock.now
    source.cancel(reason: Reason(value: 7)); let line = #line
    let record = try #require(source.cancellationRecord)
    #expect(record.reason as? Reason == Reason(value: 7))
    #expect(record.fileID.hasSuffix("CancellationRecordTests.swift"))
    #expect(record.line == line)
    #expect(record.function == "aDirectCancelRecordsTheReasonTheCallSiteAndTheLabel()")
    #expect(record.trigger == .call)
    #expect(record.hops == [.init(label: "GET /users", arrival: .origin)])
    #expect(record.path == ["GET /users"])
    #expect(record.isDirect)
    #expect(record.instant >= before && record.instant <= .now)
    #expect(abs(record.date.timeIntervalSinceNow) < 3600)
    #expect(source.label == "GET /users")
  }

  @Test func aPlainCancelRecordsItsCallSiteToo() throws {
    let source = CancelSource()
    source.cancel(); let line = #line
    let record = try #require(source.signal.cancellationRecord)
    #expect(record.reason is CancellationError)
    #expect(record.line == line)
    #expect(record.label == nil)
    #expect(record.path.isEmpty)
  }

  @Test func aCancelThroughTheProtocolHasNoOrigin() throws {
    let source = CancelSource()
    let cancellable: any Cancellable = source
    cancellable.cancel()
    let record = try #require(source.cancellationRecord)
    #expect(record.fileID.isEmpty && record.line == 0 && record.function.isEmpty)
    #expect(!record.description.contains(".swift:"))
  }

  @Test func theDescriptionStaysOneLineWhateverTheLabelsAndTheReasonHold() throws {
    struct Multiline: Error, CustomStringConvertible { var description: String { "first\nsecond" } }
    let parent = CancelSource(label: "evil\nINFO fake line")
    let child = CancelSource(linkedTo: [parent.signal], label: "q\"uote")
    parent.cancel(reason: Multiline())
    let text = try #require(child.cancellationRecord).description
    let lines = text.split(whereSeparator: \.isNewline)
    #expect(lines.count == 1, "\(text)")
    #expect(text.contains(#"by first\nsecond at"#))
    #expect(text.contains(#""evil\nINFO fake line""#))
    #expect(text.hasSuffix(#"→ link → "q\"uote""#))
  }

  /// Every line break `Character.isNewline` counts, not only `\n` and `\r` (review finding).
  @Test func unicodeLineSeparatorsAreEscapedToo() throws {
    struct Separated: Error, CustomStringConvertible { var description: String { "a\u{2028}b\u{85}c" } }
    let source = CancelSource(label: "x\u{2029}y\r\nz")
    source.cancel(reason: Separated())
    let text = try #require(source.cancellationRecord).description
    let hasLineBreak = text.contains(where: \.isNewline)
    #expect(!hasLineBreak, "\(text)")
    #expect(text.contains(#"by a\u{2028}b\u{85}c at"#))
    #expect(text.contains(#""x\u{2029}y\r\nz""#))
  }

  @Test func oneRecordValueAlwaysGivesTheSameDate() throws {
    let source = CancelSource()
    source.cancel()
    let record = try #require(source.cancellationRecord)
    let first = record.date
    #expect((0..<1_000).allSatisfy { _ in record.date == first && record.description == record.description })
  }

  @Test func theRecordNeverChangesAfterTheFirstCancel() throws {
    let source = CancelSource()
    source.cancel(reason: Reason(value: 1)); let line = #line
    source.cancel(reason: Reason(value: 2))
    source.cancel()
    let first = try #require(source.cancellationRecord)
    let again = try #require(source.cancellationRecord)
    #expect(first.reason as? Reason == Reason(value: 1))
    #expect(first.line == line && again.line == line)
    #expect(first.instant == again.instant)
  }

  @Test func aDeadlineRecordsWhereItWasSet() throws {
    let time = ManualDeadlineScheduler()
    let source = CancelSource(label: "job")
    source.cancel(after: .seconds(5), scheduler: time); let line = #line
    time.advance(by: .seconds(5))
    let record = try #require(source.cancellationRecord)
    #expect(record.trigger == .deadline)
    #expect(record.reason is TimeoutError)
    #expect(record.line == line)
    #expect(record.description.contains("— deadline of \"job\""))
    #expect(record.description.contains("CancellationRecordTests.swift:\(line)"))
  }

  @Test func aTimeoutSourceRecordsItsInitializer() throws {
    let time = ManualDeadlineScheduler()
    let source = CancelSource(timeout: .milliseconds(50), scheduler: time, label: "t"); let line = #line
    time.advance(by: .milliseconds(50))
    let record = try #require(source.cancellationRecord)
    #expect(record.trigger == .deadline && record.line == line && record.label == "t")
  }

  @Test func aLinkedChildRecordsThePathFromTheOrigin() throws {
    let request = CancelSource(label: "GET /users")
    let middle = CancelSource(linkedTo: request.signal)
    let query = CancelSource(linkedTo: middle.signal, label: "db query")
    request.cancel(reason: TimeoutError(timeout: .seconds(5))); let line = #line
    let record = try #require(query.cancellationRecord)
    #expect(record.reason is TimeoutError)
    #expect(record.line == line)
    #expect(record.trigger == .call)
    #expect(
      record.hops == [
        .init(label: "GET /users", arrival: .origin), .init(label: nil, arrival: .link),
        .init(label: "db query", arrival: .link),
      ])
    #expect(record.path == ["GET /users", "db query"])
    #expect(!record.isDirect)
    #expect(record.description.hasPrefix("cancelled by TimeoutError(timed out after 5 s) at "))
    #expect(
      record.description.hasSuffix(
        "— call of \"GET /users\" (CancelCoreTests/CancellationRecordTests.swift:\(line) in aLinkedChildRecordsThePathFromTheOrigin()) → link → link → \"db query\""
      ))
    #expect(query.signal.cancellationRecord?.instant == request.cancellationRecord?.instant)
  }

  @Test func aChildLinkedToAnAlreadyCancelledParentRecordsTheLink() throws {
    let parent = CancelSource(label: "parent")
    parent.cancel()
    let child = CancelSource(linkedTo: parent.signal, label: "child")
    #expect(try #require(child.cancellationRecord).path == ["parent", "child"])
  }

  @Test func aLinkChainOfDepthOneThousandRecordsEveryHop() throws {
    let depth = 1_000
    var sources = [CancelSource(label: "0")]
    for index in 1..<depth { sources.append(CancelSource(linkedTo: sources[index - 1].signal, label: "\(index)")) }
    sources[0].cancel(reason: Reason(value: 3))
    let record = try #require(sources[depth - 1].cancellationRecord)
    #expect(record.path == (0..<depth).map { "\($0)" })
    #expect(record.hops.dropFirst().allSatisfy { $0.arrival == .link })
    #expect(record.reason as? Reason == Reason(value: 3))
  }

  @Test func freeingALongCancelledPathDoesNotRecurse() {
    // Each cancelled child keeps its parent for its record: the leaf is freed last and frees the
    // whole path. Recursing per source, this depth overflows a thread's stack.
    let depth = Stress.fullSize ? 1_000_000 : 200_000
    var sources: [CancelSource] = []
    sources.reserveCapacity(depth)
    sources.append(CancelSource())
    for index in 1..<depth { sources.append(CancelSource(linkedTo: sources[index - 1].signal)) }
    weak let root = sources[0].signal.storage
    sources[0].cancel()
    #expect(sources[depth - 1].cancellationRecord?.hops.count == depth)
    sources = []
    #expect(root == nil)
  }

  @Test func aDiamondRecordsTheFirstPathToArrive() throws {
    let root = CancelSource(label: "root")
    let left = CancelSource(linkedTo: root.signal, label: "left")
    let right = CancelSource(linkedTo: root.signal, label: "right")
    let bottom = CancelSource(linkedTo: [left.signal, right.signal], label: "bottom")
    // Which parent reaches `bottom` first: the one whose handlers run first.
    let firstToArrive = Recorder<String>()
    left.signal.onCancel { firstToArrive.record("left") }
    right.signal.onCancel { firstToArrive.record("right") }
    bottom.signal.onCancel { firstToArrive.record("bottom") }
    root.cancel()
    let arrivals = firstToArrive.values
    let viaLeft = try #require(arrivals.firstIndex(of: "left")) < (arrivals.firstIndex(of: "right") ?? .max)
    let record = try #require(bottom.cancellationRecord)
    #expect(record.path == ["root", viaLeft ? "left" : "right", "bottom"])
  }

  @Test func racingCancellersLeaveOneRecordMatchingTheWinner() {
    final class Probe: Sendable {
      let source = CancelSource()
      let won = Recorder<Int>()
    }
    race(iterations: Stress.iterations(100_000)) {
      Probe()
    } _: { probe in
      if probe.source.cancel(reason: Reason(value: 1)) { probe.won.record(1) }
    } _: { probe in
      if probe.source.cancel(reason: Reason(value: 2)) { probe.won.record(2) }
    } check: { probe in
      let winners = probe.won.values
      #expect(winners.count == 1)
      let record = probe.source.cancellationRecord
      #expect((record?.reason as? Reason)?.value == winners.first)
      #expect(record?.reason as? Reason == probe.source.signal.reason as? Reason)
    }
  }
}
