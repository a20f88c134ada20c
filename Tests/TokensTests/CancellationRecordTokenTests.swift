import Testing
import Tokens

@Suite("Cancellation records of tokens")
struct CancellationRecordTokenTests {
  struct Reason: Error, Equatable {}

  @Test func aRequestAndItsTokenReportTheSameRecord() throws {
    let request = CancellationRequest(label: "GET /users")
    #expect(request.cancellationRecord == nil && request.token.cancellationRecord == nil)
    request.cancel(reason: Reason()); let line = #line
    let record = try #require(request.token.cancellationRecord)
    #expect(record.reason is Reason)
    #expect(record.line == line && record.trigger == .call && record.path == ["GET /users"])
    #expect(request.cancellationRecord?.instant == record.instant)
    #expect(request.token.label == "GET /users" && request.label == "GET /users")
  }

  @Test func aPlainCancelOfARequestRecordsItsCallSite() throws {
    let request = CancellationRequest()
    request.cancel(); let line = #line
    #expect(try #require(request.token.cancellationRecord).line == line)
  }

  @Test func theDebugDescriptionPrintsTheRecordInOneLine() {
    let request = CancellationRequest(label: "job")
    request.cancel()
    let text = request.token.debugDescription
    #expect(text.hasPrefix("CancellationToken(cancelled by CancellationError() at "))
    #expect(text.contains("— call of \"job\" (TokensTests/CancellationRecordTokenTests.swift:"))
    #expect(!text.contains("\n"))
  }

  @Test func aLinkedRequestRecordsTheLinkAndTheDeadlineOfItsParent() throws {
    let time = ManualDeadlineScheduler()
    let parent = CancellationRequest(timeout: .seconds(5), scheduler: time, label: "GET /users"); let line = #line
    let child = CancellationRequest(linkedTo: parent.token, label: "db query")
    time.advance(by: .seconds(5))
    let record = try #require(child.token.cancellationRecord)
    #expect(record.trigger == .deadline && record.line == line)
    #expect(record.path == ["GET /users", "db query"])
    #expect(record.hops.last?.arrival == .link)
  }

  @Test func aJoinRecordsTheOperandThatDecidedIt() throws {
    let first = CancellationRequest(label: "first")
    let second = CancellationRequest(label: "second")
    let either = first.token || second.token
    let both = first.token && second.token
    second.cancel(reason: Reason())
    let record = try #require(either.cancellationRecord)
    #expect(record.hops == [.init(label: "second", arrival: .origin), .init(label: nil, arrival: .join)])
    #expect(record.reason is Reason)
    #expect(both.cancellationRecord == nil)
    first.cancel()
    #expect(try #require(both.cancellationRecord).hops.last?.arrival == .join)
  }

  @Test func aMappedTokenRecordsTheLinkFromItsSource() throws {
    let request = CancellationRequest(label: "source")
    let mapped = request.token.map { true }
    request.cancel()
    #expect(
      try #require(mapped.cancellationRecord).hops == [
        .init(label: "source", arrival: .origin), .init(label: nil, arrival: .link),
      ])
  }
}
