import Foundation
import Futures
import TestSupport
import Testing

/// The cancellation record of a future: which consumer's request (from where), whether it was
/// forwarded, which future's producer (or option, or block) ended it and how, and the futures that
/// passed the cancel on.
@Suite("Futures: cancellation records")
struct FutureRecordTests {
  typealias Hop = CancellationRecord.Hop

  @Test func aRequestAnsweredByTheProducersHandlerRecordsTheTokensCallSite() throws {
    let producer = Futures.Promise<Int>(label: "download")
    producer.automaticallyCancelOnRequestCancel()
    #expect(producer.future.cancellationRecord == nil)
    let token = producer.future.getCancelToken()
    token.cancel(); let line = #line
    let record = try #require(producer.future.cancellationRecord)
    #expect(record.reason is CancellationError)
    #expect(record.trigger == .call)
    #expect(record.fileID.hasSuffix("FutureRecordTests.swift") && record.line == line)
    #expect(record.function == "aRequestAnsweredByTheProducersHandlerRecordsTheTokensCallSite()")
    #expect(record.hops == [Hop(label: "download", arrival: .origin, ending: .requestHandler)])
    #expect(record.isDirect)
    #expect(producer.future.label == "download")
  }

  @Test func aForwardedRequestShowsTheRequestAndTheCompletionsBack() throws {
    let producer = Futures.Promise<Int>(label: "download")
    producer.automaticallyCancelOnRequestCancel()
    let resize = producer.future.map(.immediate) { $0 + 1 }.labelled("resize")
    let thumbnail = resize.map(.immediate) { $0 * 2 }.labelled("thumbnail")
    thumbnail.getCancelToken().cancel(); let line = #line
    let record = try #require(thumbnail.cancellationRecord)
    #expect(record.line == line)
    #expect(
      record.hops == [
        Hop(label: "thumbnail", arrival: .origin), Hop(label: "download", arrival: .request, ending: .requestHandler),
        Hop(label: "resize", arrival: .completion), Hop(label: "thumbnail", arrival: .completion),
      ])
    #expect(record.path == ["thumbnail", "download", "resize", "thumbnail"])
    #expect(
      producer.future.cancellationRecord?.hops == [
        Hop(label: "thumbnail", arrival: .origin), Hop(label: "download", arrival: .request, ending: .requestHandler),
      ])
    #expect(resize.cancellationRecord?.hops.count == 3)
    #expect(resize.cancellationRecord?.line == line)
    #expect(
      record.description.hasSuffix(
        "— call of \"thumbnail\" (FuturesTests/FutureRecordTests.swift:\(line) in "
          + "aForwardedRequestShowsTheRequestAndTheCompletionsBack()) → request → \"download\" "
          + "[answered by a request handler] → completion → \"resize\" → completion → \"thumbnail\""),
      "\(record.description)")
  }

  @Test func aForcedRequestEndsItsOwnFutureAndNamesIt() throws {
    let producer = Futures.Promise<Int>(label: "download")  // ignores requests
    let stage = producer.future.map(.immediate) { $0 }.labelled("stage")
    stage.getCancelToken().cancel(.forceThisFutureToBeCancelledImmediately); let line = #line
    let record = try #require(stage.cancellationRecord)
    #expect(record.line == line)
    #expect(record.hops == [Hop(label: "stage", arrival: .origin, ending: .forced)])
    #expect(record.description.contains("\"stage\" (FuturesTests/FutureRecordTests.swift:\(line) in"))
    #expect(record.description.hasSuffix("[forced]"))
    #expect(producer.future.cancellationRecord == nil)  // told, not ended
  }

  @Test func aConsumerThatLeavesASharedFutureIsRecordedAsDetached() throws {
    let producer = Futures.Promise<Int>(label: "shared")
    producer.automaticallyCancelOnRequestCancel()
    let first = producer.future.map(.immediate) { $0 }.labelled("first")
    let second = producer.future.map(.immediate) { $0 }.labelled("second")
    first.getCancelToken().cancel()
    #expect(first.cancellationRecord?.hops == [Hop(label: "first", arrival: .origin, ending: .detached)])
    #expect(producer.future.cancellationRecord == nil)
    #expect(second.result == nil)
  }

  @Test func aProducerThatCompletesCancelledLaterAnswersTheRequestThatReachedIt() async throws {
    let producer = Futures.Promise<Int>(label: "download")
    let told = Recorder<CancellationOptions>()
    producer.onRequestCancel(.immediate) { options in
      told.record(options)
      return .continue
    }
    let stage = producer.future.map(.immediate) { $0 }.labelled("stage")
    stage.getCancelToken().cancel(); let line = #line
    #expect(told.values.count == 1 && stage.result == nil)
    await Task.detached { producer.completeWithCancel() }.value
    let record = try #require(stage.cancellationRecord)
    #expect(record.line == line)  // the request's site, not the completion's
    #expect(
      record.hops == [
        Hop(label: "stage", arrival: .origin), Hop(label: "download", arrival: .request, ending: .producer),
        Hop(label: "stage", arrival: .completion),
      ])
  }

  @Test func aProducerThatCancelsUnaskedRecordsItsOwnCallSite() throws {
    let producer = Futures.Promise<Int>(label: "download")
    let stage = producer.future.map(.immediate) { $0 }
    producer.completeWithCancel(); let line = #line
    let record = try #require(stage.cancellationRecord)
    #expect(record.line == line)
    #expect(
      record.hops == [
        Hop(label: "download", arrival: .origin, ending: .producer), Hop(label: nil, arrival: .completion),
      ])
    let other = Futures.Promise<Int>()
    other.complete(.cancelled); let completeLine = #line
    #expect(other.future.cancellationRecord?.line == completeLine)
    let third = Futures.Promise<Int>()
    #expect(third.tryComplete(.cancelled)); let tryLine = #line
    #expect(third.future.cancellationRecord?.line == tryLine)
    let fourth = Futures.Promise<Int>()
    fourth.completeWithCancellation(); let spelledLine = #line
    #expect(fourth.future.cancellationRecord?.line == spelledLine)
  }

  @Test func blocksThatCancelAndBlocksThatPassACancelOn() throws {
    let ownCancel: Future<Int> = Future(success: 1).onComplete(.immediate) { _ in .cancelled }
    #expect(ownCancel.cancellationRecord?.hops == [Hop(label: nil, arrival: .origin, ending: .block)])
    #expect(ownCancel.cancellationRecord?.fileID == "")

    let producer = Futures.Promise<Int>(label: "root")
    let passed: Future<Int> = producer.future.onComplete(.immediate) { Completion($0) }.labelled("passed")
    producer.completeWithCancel()
    #expect(
      passed.cancellationRecord?.hops == [
        Hop(label: "root", arrival: .origin, ending: .producer), Hop(label: "passed", arrival: .completion),
      ])

    let made = Future<Int>(cancelled: ())
    #expect(made.cancellationRecord?.hops == [Hop(label: nil, arrival: .origin, ending: .block)])
    #expect(Future<Int>(result: .cancelled).cancellationRecord?.hops.first?.ending == .block)
    #expect(Future(success: 1).cancellationRecord == nil)
    #expect(Future<Int>(fail: TestError()).cancellationRecord == nil)
  }

  @Test func combinatorsAndHandOversPassTheCancelOn() throws {
    let a = Futures.Promise<Int>(label: "a")
    let b = Futures.Promise<Int>(label: "b")
    let both = combineFutures(a.future, b.future).labelled("both")
    b.completeWithCancel()
    #expect(
      both.cancellationRecord?.hops == [
        Hop(label: "b", arrival: .origin, ending: .producer), Hop(label: "both", arrival: .completion),
      ])
    a.completeWithSuccess(1)

    let inner = Futures.Promise<Int>(label: "inner")
    let outer = Futures.Promise<Int>(label: "outer")
    outer.completeUsingFuture(inner.future)
    inner.completeWithCancel()
    #expect(
      outer.future.cancellationRecord?.hops == [
        Hop(label: "inner", arrival: .origin, ending: .producer), Hop(label: "outer", arrival: .completion),
      ])
  }

  @Test func aBatchsCancelRecordsItsCallSiteOnEveryInput() throws {
    let inputs = (0..<3).map { index -> Futures.Promise<Int> in
      let promise = Futures.Promise<Int>(label: "input \(index)")
      promise.automaticallyCancelOnRequestCancel()
      return promise
    }
    let batch = FutureBatchOf(inputs.map(\.future))
    batch.cancel(); let line = #line
    for (index, input) in inputs.enumerated() {
      #expect(input.future.cancellationRecord?.line == line)
      #expect(
        input.future.cancellationRecord?.hops == [
          Hop(label: "input \(index)", arrival: .origin, ending: .requestHandler)
        ])
    }
    #expect(batch.future.cancellationRecord?.line == line)
    #expect(batch.future.cancellationRecord?.hops.last?.arrival == .completion)
  }

  @Test func aTokenHeldAsCancellableRecordsNoCallSite() throws {
    let producer = Futures.Promise<Int>()
    producer.automaticallyCancelOnRequestCancel()
    let token: any Cancellable = producer.future.getCancelToken()
    token.cancel()
    let record = try #require(producer.future.cancellationRecord)
    #expect(record.fileID == "" && record.line == 0)
  }

  @Test func aRequestHandlerOnAnotherExecutorAnswersWithTheRequestsFacts() async throws {
    let producer = Futures.Promise<Int>(label: "slow")
    producer.onRequestCancel(.async) { _ in .complete(.cancelled) }
    producer.future.getCancelToken().cancel(); let line = #line
    #expect(describe(await producer.future.completion()) == "cancelled")
    let record = try #require(producer.future.cancellationRecord)
    #expect(record.line == line)
    #expect(record.hops == [Hop(label: "slow", arrival: .origin, ending: .requestHandler)])
  }

  /// A future that waits on one already cancelled passes its cancel on like one that waited
  /// before: its record follows it, and never changes (review finding: it made one up, dated at
  /// each read).
  @Test func futuresMadeAfterTheirParentWasCancelledFollowIt() throws {
    let parent = Futures.Promise<Int>(label: "parent")
    parent.completeWithCancel(); let line = #line
    let expected = [Hop(label: "parent", arrival: .origin, ending: .producer)]
    let late = parent.future.map(.immediate) { $0 }.labelled("late")  // labelled after: no label
    let passing: Future<Int> = parent.future.onComplete(.immediate) { Completion($0) }
    let outer = Futures.Promise<Int>(label: "outer")
    outer.completeUsingFuture(parent.future)
    let combined = combineFutures(parent.future, Futures.Promise<Int>().future)
    let batch = FutureBatchOf([parent.future])
    let answered = Futures.Promise<Int>(label: "answered")
    answered.onRequestCancel(.immediate) { _ in .complete(.completeUsing(parent.future)) }
    answered.future.getCancelToken().cancel()
    for (future, name) in [
      (late, nil), (passing, nil), (outer.future, "outer"), (combined.map(.immediate) { $0.0 }, nil),
      (batch.future.map(.immediate) { $0.count }, nil), (answered.future, "answered"),
    ] as [(Future<Int>, String?)] {
      let first = try #require(future.cancellationRecord)
      #expect(Array(first.hops.prefix(1)) == expected, "\(first)")
      #expect(first.line == line)
      #expect(first.hops.last?.arrival == .completion)
      if let name { #expect(first.hops.last?.label == name) }
      #expect(future.cancellationRecord?.instant == first.instant)
    }
  }

  /// A label is set once, while pending, so a record never changes (review finding: relabelling
  /// changed the path of records already read).
  @Test func aLabelIsSetOnceWhilePending() throws {
    let producer = Futures.Promise<Int>(label: "up")
    let stage = producer.future.map(.immediate) { $0 }.labelled("down").labelled("ignored")
    #expect(stage.label == "down")
    producer.completeWithCancel()
    let before = try #require(stage.cancellationRecord)
    producer.future.labelled("renamed")
    stage.labelled("renamed")
    #expect(stage.cancellationRecord?.path == ["up", "down"])
    #expect(before.path == ["up", "down"])
    #expect(Future<Int>(cancelled: ()).labelled("late").label == nil)
  }

  @Test func aProducersTimerRecordsADeadlineSetWhereItWasArmed() throws {
    let time = ManualDeadlineScheduler()
    let producer = Futures.Promise<Int>(label: "timed")
    producer.automaticallyCancel(afterDelay: 5, scheduler: time); let line = #line
    let stage = producer.future.map(.immediate) { $0 }
    time.advance(by: .seconds(5))
    let record = try #require(stage.cancellationRecord)
    #expect(record.trigger == .deadline && record.line == line)
    #expect(
      record.hops == [Hop(label: "timed", arrival: .origin, ending: .producer), Hop(label: nil, arrival: .completion)])
    #expect(record.description.contains("— deadline of \"timed\" (FuturesTests/FutureRecordTests.swift:\(line)"))
  }

  /// Reading the record of the last of 100,000 stages, then freeing them all (each keeps the one
  /// before for its record), on a 512 KiB stack: neither recurses.
  @Test func theRecordOfAVeryLongChainIsReadAndFreedInConstantStack() async {
    let hops: Int = await onSmallStack {
      let producer = Futures.Promise<Int>(label: "root")
      var tail = producer.future
      for _ in 0..<100_000 { tail = tail.map(.immediate) { $0 } }
      producer.completeWithCancel()
      guard let record = tail.cancellationRecord,
        record.hops.first == Hop(label: "root", arrival: .origin, ending: .producer)
      else { return 0 }
      return record.hops.count
    }
    #expect(hops == 100_001)
  }

  @Test func aCancelledChainIsFreedWithItsLastFuture() {
    weak var root: Future<Int>?
    weak var middle: Future<Int>?
    do {
      let producer = Futures.Promise<Int>()
      let stage = producer.future.map(.immediate) { $0 }
      var tail: Future<Int>? = stage.map(.immediate) { $0 }
      root = producer.future
      middle = stage
      producer.completeWithCancel()
      #expect(tail?.cancellationRecord?.hops.count == 3)
      #expect(root != nil)  // kept by the record's path while the tail lives
      tail = nil
    }
    #expect(root == nil && middle == nil)
  }

  /// Two threads race: one requests the future's cancellation, the other completes it cancelled
  /// (or with a value). Whatever wins, a cancelled future has one record, the same at every read,
  /// and it names the request's call site exactly when the request reached the producer first.
  @Test func theRecordIsFixedByWhicheverCompletionWins() {
    struct Round: Sendable {
      let producer = Futures.Promise<Int>(label: "raced")
      let stage: Future<Int>
      let token: CancelToken
      let succeeds: Bool
      init(answers: Bool, succeeds: Bool) {
        producer.onRequestCancel(.immediate) { _ in answers ? .complete(.cancelled) : .continue }
        stage = producer.future.map(.immediate) { $0 }
        token = stage.getCancelToken()
        self.succeeds = succeeds
      }
    }
    var round = 0
    var cancelled = 0
    race(
      iterations: Stress.iterations(4_000),
      setup: {
        round += 1
        return Round(answers: round % 2 == 0, succeeds: round % 3 == 0)
      },
      { $0.token.cancel() },
      { $0.succeeds ? $0.producer.completeWithSuccess(1) : $0.producer.completeWithCancel() },
      check: { state in
        guard case .cancelled? = state.stage.result else {
          #expect(state.stage.cancellationRecord == nil)
          return
        }
        cancelled += 1
        guard let first = state.stage.cancellationRecord, let again = state.stage.cancellationRecord else {
          Issue.record("a cancelled future has no record")
          return
        }
        #expect(first.hops.last == Hop(label: nil, arrival: .completion))
        #expect(first.hops == again.hops && first.instant == again.instant && first.line == again.line)
        #expect(first.hops.first?.label == (first.hops.count == 3 ? nil : "raced"))
      })
    #expect(cancelled > 0)
  }
}
