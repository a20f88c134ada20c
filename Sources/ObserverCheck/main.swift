// Checks the process's cancellation observer (`CancellationRecord.setObserver`), which can be set
// once per process: CancellationObserverTests runs this program as a child process and expects
// its last line to be "observer checks passed". Each failed check prints a line and exits 1.
import Foundation
import Futures
import Promises
import TestSupport
import Tokens

var failures = 0
@MainActor func check(_ condition: Bool, _ what: String) {
  if !condition {
    print("FAILED: \(what)")
    failures += 1
  }
}

// What the observer received, in order (the core's lock, through the tests' `Recorder`).
let seen = Recorder<CancellationRecord>()
// A chain the observer walks on: the record of "chain-i" makes it cancel request i + 1, so each
// delivery cancels again. Done inside the cancel loop, that never nests: nested, this depth would
// overflow the stack.
let chain = (0..<100_000).map { CancellationRequest(label: "chain-\($0)") }
// The same with producers: the record of "producer-i" makes the observer complete producer i + 1
// cancelled; `observerDepth` counts how deep the observer runs inside itself.
let producers = (0..<100_000).map { Futures.Promise<Int>(label: "producer-\($0)") }
let observerDepth = Locked(0)
let deepestObserver = Locked(0)
// What ran, in order, around one future's cancel: its blocks and the observer.
let order = Recorder<String>()

check(
  CancellationRecord.setObserver { record in
    let depth = observerDepth.withLock { depth in
      depth += 1
      return depth
    }
    deepestObserver.withLock { $0 = max($0, depth) }
    defer { observerDepth.withLock { $0 -= 1 } }
    seen.record(record)
    if record.label == "ordered" { order.record("observer") }
    if let label = record.label, label.hasPrefix("chain-"), let index = Int(label.dropFirst(6)),
      index + 1 < chain.count
    {
      chain[index + 1].cancel()
    }
    if let label = record.label, label.hasPrefix("producer-"), let index = Int(label.dropFirst(9)),
      index + 1 < producers.count
    {
      producers[index + 1].completeWithCancel()
    }
  }, "the first observer is set")
check(!CancellationRecord.setObserver { _ in }, "a second observer is refused")

// 1. A labelled request cancelled directly: one record, with its label and call site.
let request = CancellationRequest(label: "GET /users")
request.cancel(); let line = #line
check(seen.values.count == 1, "one record for one cancel (got \(seen.values.count))")
check(
  seen.values.first?.label == "GET /users" && seen.values.first?.line == line,
  "the record names the request and the call")

// 2. A second cancel and a close report nothing.
request.cancel()
CancellationRequest(label: "closed").close()
check(seen.values.count == 1, "a second cancel and a close are not reported")

// 3. A linked child: the parent's record first, then the child's, with the path.
var before = seen.values.count
let parent = CancellationRequest(label: "parent")
let child = CancellationRequest(linkedTo: parent.token, label: "child")
parent.cancel()
let linked = seen.values.dropFirst(before).map(\.path)
check(linked == [["parent"], ["parent", "child"]], "parent then child (got \(linked))")
_ = child

// 4. The observer cancels the next request of a long chain from each record, without nesting.
before = seen.values.count
chain[0].cancel()
check(chain.allSatisfy(\.isCancellationRequested), "the observer's cancels all happened before cancel() returned")
check(
  seen.values.count - before == chain.count, "one record per request of the chain (got \(seen.values.count - before))")
check(seen.values.last?.label == "chain-\(chain.count - 1)", "in order")

// 5. A chain is reported once, however many sources its clean-ups and recover branches add.
before = seen.values.count
let (pending, _) = Promises.Promise<Int>.pending()
let job = pending.cancellize(label: "job").ensure(on: nil) {}.ensure(on: nil) {}.recover(on: nil) { _ in
  Promises.Promise.value(0).cancellize()
}.ensure(on: nil) {}
job.cancel()
let chainRecords = seen.values.dropFirst(before).map(\.path)
check(chainRecords == [["job"]], "one record for the chain's cancel (got \(chainRecords))")

// 6. The deadline of `withCancellationDeadline` names the caller, not the library.
before = seen.values.count
_ = try? await withCancellationDeadline(after: .milliseconds(1)) { try await Task.sleep(for: .seconds(60)) }
let deadlineLine = #line - 1
let deadlineRecord = seen.values.dropFirst(before).first
check(
  deadlineRecord?.trigger == .deadline && deadlineRecord?.line == deadlineLine
    && deadlineRecord?.fileID.hasSuffix("ObserverCheck/main.swift") == true,
  "the deadline's record names the call of withCancellationDeadline (got \(String(describing: deadlineRecord)))")

// 7. A future's cancel is reported once, from the future where it started, however many futures
// it is passed on to; a request that changes nothing reports nothing.
before = seen.values.count
let download = Futures.Promise<Int>(label: "download")
download.automaticallyCancelOnRequestCancel()
var tail = download.future
for _ in 0..<10 { tail = tail.map(.immediate) { $0 } }
tail.getCancelToken().cancel()
let futureLine = #line - 1
let futureRecords = seen.values.dropFirst(before)
check(
  futureRecords.map(\.path) == [["download"]] && futureRecords.first?.line == futureLine
    && futureRecords.first?.hops.last?.ending == .requestHandler,
  "one record for the future's cancel, with the request's call site (got \(futureRecords.map(\.description)))")
before = seen.values.count
Futures.Promise<Int>().future.getCancelToken().cancel()  // nobody answers
check(seen.values.count == before, "a request nobody answers is not reported")

// 8. An observer that completes the next producer cancelled never nests (review finding: it did,
// and 1,000 producers overflowed a 512 KiB stack), and it runs before the future's blocks.
before = seen.values.count
deepestObserver.withLock { $0 = 0 }
producers[0].completeWithCancel()
check(
  seen.values.count - before == producers.count && producers.allSatisfy { $0.future.result != nil },
  "one record per producer, all completed before the first call returned (got \(seen.values.count - before))")
check(
  deepestObserver.withLock { $0 } == 1,
  "the observer never ran inside itself (depth \(deepestObserver.withLock { $0 }))")
let ordered = Futures.Promise<Int>(label: "ordered")
ordered.future.onComplete(.immediate) { _ in order.record("block") }
ordered.completeWithCancel()
check(order.values == ["observer", "block"], "the observer runs before the blocks (got \(order.values))")

print(failures == 0 ? "observer checks passed" : "\(failures) observer checks failed")
exit(failures == 0 ? 0 : 1)
