import Promises
import TestSupport
import Testing

/// The cancellation record of a cancellable chain: which member's (or context's) cancel, from
/// where, and the chain as one hop however many parts its `recover` and `ensure` stages made.
@Suite("Cancellable promises: cancellation records")
struct ChainRecordTests {
  @Test func aMembersCancelRecordsItsCallSiteAndTheChainsLabel() throws {
    let (pending, _) = Promise<Int>.pending()
    let root = pending.cancellize(label: "load profile")
    let member = root.map(on: nil) { $0 + 1 }
    #expect(member.cancellationRecord == nil)
    member.cancel(); let line = #line
    let record = try #require(root.cancellationRecord)
    #expect(isPMKCancelled(record.reason))
    #expect(record.fileID.hasSuffix("ChainRecordTests.swift") && record.line == line)
    #expect(record.function == "aMembersCancelRecordsItsCallSiteAndTheChainsLabel()")
    #expect(record.trigger == .call)
    #expect(record.hops == [.init(label: "load profile", arrival: .origin)])
    #expect(member.cancellationRecord?.line == line)
    #expect(member.cancelContext.label == "load profile")
    #expect(record.description.contains("call of \"load profile\" (Promises"))
  }

  @Test func everySpellingOfCancelRecordsItsCallSite() throws {
    struct Stop: Error {}
    let context = CancelContext(label: "ctx")
    context.cancel(error: Stop()); let contextLine = #line
    #expect(context.cancellationRecord?.line == contextLine)
    #expect(context.cancellationRecord?.reason is Stop)

    let (pending, _) = Promise<Int>.pending()
    let viaWith = cancellable(pending, label: "with")
    viaWith.cancel(with: Stop()); let withLine = #line
    #expect(viaWith.cancellationRecord?.line == withLine)
    #expect(viaWith.cancellationRecord?.label == "with")

    let viaError = CancellablePromise<Int>.pending().promise
    viaError.cancel(error: Stop()); let errorLine = #line
    #expect(viaError.cancellationRecord?.line == errorLine)
    #expect(viaError.cancellationRecord?.label == nil)

    let finalizer = CancellablePromise<Int>.pending().promise.catch(on: nil) { _ in }
    finalizer.cancel(); let finalizerLine = #line
    #expect(finalizer.cancellationRecord?.line == finalizerLine)
  }

  @Test func aCancelThroughTheProtocolHasNoCallSite() throws {
    let member = CancellablePromise<Int>.pending().promise
    let cancellable: any Cancellable = member
    cancellable.cancel()
    let record = try #require(member.cancellationRecord)
    #expect(record.fileID.isEmpty && record.line == 0)
    #expect(isPMKCancelled(record.reason))
  }

  @Test func theStagesAfterAnEnsureAreTheSameHop() throws {
    let (pending, _) = Promise<Int>.pending()
    let root = pending.cancellize(label: "job")
    let ensured = root.ensure(on: nil) {}
    let tail = ensured.map(on: nil) { $0 * 2 }
    tail.cancel(); let line = #line
    for record in [root.cancellationRecord, ensured.cancellationRecord, tail.cancellationRecord] {
      let record = try #require(record)
      #expect(record.hops == [.init(label: "job", arrival: .origin)])
      #expect(record.line == line)
    }
    #expect(tail.cancelContext.label == "job")
  }

  @Test func aCancelOfTheChainBeforeAnEnsureIsRecordedAfterItAsOneHop() throws {
    let (pending, _) = Promise<Int>.pending()
    let root = pending.cancellize(label: "job")
    let tail = root.ensure(on: nil) {}.map(on: nil) { $0 }
    root.cancel()
    let record = try #require(tail.cancellationRecord)
    #expect(record.hops == [.init(label: "job", arrival: .origin)])
  }

  @Test func aCancelWaitingForACleanUpAlreadyHasItsRecord() async throws {
    let (pending, _) = Promise<Int>.pending()
    let root = pending.cancellize(label: "job")
    let (cleanup, finishCleanup) = Promise<Void>.pending()
    let ensured = root.ensureThen(on: nil) { cleanup.cancellize() }
    ensured.cancel(); let line = #line
    #expect(ensured.isPending, "the cancel waits for the clean-up")
    let waiting = try #require(ensured.cancellationRecord)
    #expect(waiting.line == line)
    #expect(waiting.hops == [.init(label: "job", arrival: .origin)])
    finishCleanup.fulfill(())
    _ = await outcome(of: ensured.promise)
    #expect(ensured.cancellationRecord?.line == line)
  }

  @Test func aRecoverBranchIsTheSameHopEitherWay() throws {
    let (pending, _) = Promise<Int>.pending()
    let root = pending.cancellize(label: "search")
    let branch = root.recover(on: nil) { _ in Promise.value(0).cancellize() }
    branch.cancel(); let line = #line
    for record in [root.cancellationRecord, branch.cancellationRecord] {
      let record = try #require(record)
      #expect(record.hops == [.init(label: "search", arrival: .origin)])
      #expect(record.line == line)
    }
  }

  @Test func aChainABodyReturnedIsReachedThroughALink() async throws {
    let (outerPending, outerResolver) = Promise<Int>.pending()
    let outer = outerPending.cancellize(label: "outer")
    let (innerPending, _) = Promise<Int>.pending()
    let inner = innerPending.cancellize(label: "inner")
    let started = Recorder<Int>()
    let chained = outer.then(on: nil) { value -> CancellablePromise<Int> in
      started.record(value)
      return inner
    }
    outerResolver.fulfill(1)
    #expect(started.values == [1])
    chained.cancel(); let line = #line
    let record = try #require(inner.cancellationRecord)
    #expect(record.hops == [.init(label: "outer", arrival: .origin), .init(label: "inner", arrival: .link)])
    #expect(record.line == line)
    #expect(record.description.hasSuffix("→ link → \"inner\""))
  }

  @Test func aCombinatorsCancelReachesItsInputsThroughLinks() throws {
    let a = Promise<Int>.pending().promise.cancellize(label: "a")
    let b = Promise<Int>.pending().promise.cancellize(label: "b")
    let both = when(fulfilled: [a, b])
    both.cancel()
    for (input, label) in [(a, "a"), (b, "b")] {
      let record = try #require(input.cancellationRecord)
      #expect(record.hops.last == .init(label: label, arrival: .link))
      #expect(record.hops.first?.arrival == .origin)
    }
  }

  @Test func aRacesCancelReachesEveryInputThroughALinkWithItsCallSite() throws {
    let inputs = ["a", "b", "c"].map { Promise<Int>.pending().promise.cancellize(label: $0) }
    race(inputs).cancel(); let line = #line
    for (input, label) in zip(inputs, ["a", "b", "c"]) {
      let record = try #require(input.cancellationRecord)
      #expect(record.hops == [.init(label: nil, arrival: .origin), .init(label: label, arrival: .link)])
      #expect(record.line == line)
    }
    let auto = ["x", "y"].map { Promise<Int>.pending().promise.cancellize(label: $0) }
    when(fulfilled: auto, autoCancel: true).cancel(); let autoLine = #line
    #expect(auto.allSatisfy { $0.cancellationRecord?.line == autoLine && $0.cancellationRecord?.hops.count == 2 })
  }

  @Test func aRejectingRaceInputCancelsTheOthersWithoutACallSite() throws {
    struct Lost: Error {}
    let (first, firstResolver) = Promise<Int>.pending()
    let other = Promise<Int>.pending().promise.cancellize(label: "other")
    _ = race([first.cancellize(label: "first"), other])
    firstResolver.reject(Lost())
    let record = try #require(other.cancellationRecord)
    #expect(isPMKCancelled(record.reason))
    #expect(record.hops == [.init(label: "other", arrival: .origin)] && record.fileID.isEmpty)
  }

  /// A cancel racing the fulfilment of the root, with a recover and a clean-up after it: whichever
  /// wins, a record of the last stage names the cancel's call site (the held cancel let through
  /// after the clean-up arrives through a link).
  @Test func aCancelRacingAFulfilKeepsItsCallSiteAfterACleanUp() {
    final class Probe: Sendable {
      let root: CancellablePromise<Int>
      let resolver: Resolver<Int>
      let last: CancellablePromise<Int>
      init() {
        let (pending, resolver) = Promise<Int>.pending()
        root = pending.cancellize(label: "s")
        self.resolver = resolver
        let (cleanup, finishCleanup) = Promise<Void>.pending()
        last = root.recover(on: nil) { _ in Promise.value(5).cancellize() }
          .ensureThen(on: nil) { cleanup.cancellize() }.map(on: nil) { $0 }
        finishCleanup.fulfill(())
      }
    }
    let line = Locked(0)
    race(iterations: Stress.iterations(2_000)) {
      Probe()
    } _: { probe in
      probe.resolver.fulfill(1)
    } _: { probe in
      probe.root.cancel(); line.withLock { $0 = #line }
    } check: { probe in
      if let record = probe.last.cancellationRecord {
        #expect(record.line == line.withLock { $0 }, "\(record)")
        #expect(record.path == ["s"])
      }
    }
  }

  @Test func aReferenceToCancelErrorStillCompilesAndCancels() throws {
    struct Stop: Error {}
    let member = Promise<Int>.pending().promise.cancellize()
    let stop: (any Error) -> Void = member.cancel(error:)
    stop(Stop())
    #expect(member.cancellationRecord?.reason is Stop)
    let context = CancelContext()
    let stopContext = context.cancel(with:)
    stopContext(Stop())
    #expect(context.cancellationRecord?.fileID == "", "a reference passes no call site")
  }

  @Test func aCombinatorOfInputsWithACleanUpShowsNoInternalHops() throws {
    let a = Promise<Int>.pending().promise.cancellize(label: "a").ensure(on: nil) {}
    let both = when(fulfilled: [a])
    both.cancel()
    let record = try #require(a.cancellationRecord)
    #expect(record.hops == [.init(label: nil, arrival: .origin), .init(label: "a", arrival: .link)])
  }
}
