// The workloads whose instruction and allocation counts CI checks (scripts/check-instruction-counts.sh).
//
// `InstructionCounts <workload> <n>` runs `n` operations of one workload once and exits. The
// script runs each workload under valgrind at two sizes and divides the difference by the
// difference in operations, so start-up and the workload's fixed cost cancel out and what remains
// is the cost of one operation: exact counts that do not drift with the machine's load, unlike
// the wall-clock figures of Benchmarks/. `InstructionCounts --list` prints the workloads.
//
// Every workload uses `on: nil` and `.immediate` (no queue, no thread hop), so each run executes
// the same instructions; a second thread is kept alive throughout, so that the C library takes
// the paths it takes in a real (multithreaded) program.
import Adapters
import CancelCore
import Futures
import Promises
import Tokens

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps `value` alive and opaque to the optimizer, so that nothing measured is stack-promoted or
/// removed.
@inline(never)
@_optimize(none)
func blackHole<T>(_ value: T) {}

/// A workload: a name, what one operation is, and the function that runs `n` of them.
struct Workload {
  let name: String
  let operation: String
  let run: (Int) -> Void
}

let workloads: [Workload] = [
  // MARK: CancelCore
  Workload(name: "core-isCancelled", operation: "`isCancelled` on a live source") { count in
    let source = CancelSource()
    let signal = source.signal
    var cancelled = 0
    for _ in 0..<count where signal.isCancelled { cancelled += 1 }
    blackHole(cancelled)
    blackHole(source)
  },
  Workload(name: "core-register-unregister", operation: "`onCancel` + `unregister()` on a live source") { count in
    let source = CancelSource()
    let signal = source.signal
    for _ in 0..<count {
      let registration = signal.onCancel {}
      blackHole(registration.unregister())
    }
    blackHole(source)
  },
  Workload(name: "core-create-register-cancel-free", operation: "a source created, one handler, cancelled, freed") {
    count in
    for _ in 0..<count {
      let source = CancelSource()
      blackHole(source)
      source.signal.onCancel {}
      source.cancel()
    }
  },
  Workload(name: "core-link-unlink-child", operation: "a child source linked to a live parent, closed, freed") {
    count in
    let parent = CancelSource()
    let signal = parent.signal
    for _ in 0..<count {
      let child = CancelSource(linkedTo: signal)
      blackHole(child)
      child.close()
    }
    blackHole(parent)
  },
  Workload(name: "core-cancel-through-linked-chain", operation: "a cancel passing one link of a chain of sources") {
    count in
    let root = CancelSource()
    var sources = [root]
    sources.reserveCapacity(count + 1)
    for _ in 0..<count { sources.append(CancelSource(linkedTo: sources[sources.count - 1].signal)) }
    root.cancel()
    blackHole(sources)
  },

  // MARK: Tokens
  Workload(name: "tokens-request-create-cancel-free", operation: "a `CancellationRequest` created, cancelled, freed") {
    count in
    for _ in 0..<count {
      let request = CancellationRequest()
      blackHole(request)
      request.cancel()
    }
  },
  Workload(name: "tokens-onCancel-register-unregister", operation: "`token.onCancel` + `unregister()`") { count in
    let request = CancellationRequest()
    let token = request.token
    for _ in 0..<count {
      let registration = token.onCancel {}
      blackHole(registration)
      registration.unregister()
    }
    blackHole(request)
  },
  Workload(name: "tokens-or-build-cancel-free", operation: "`a || b` built, cancelled through `a`, freed") { count in
    let lefts = (0..<count).map { _ in CancellationRequest() }
    let rights = (0..<count).map { _ in CancellationRequest() }
    for index in lefts.indices {
      let derived = lefts[index].token || rights[index].token
      blackHole(derived)
      lefts[index].cancel()
    }
  },

  // MARK: Promises
  Workload(name: "promises-pending-fulfil", operation: "`Promise.pending()` + fulfil") { count in
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      blackHole(promise)
      resolver.fulfill(1)
    }
  },
  Workload(name: "promises-map-stage-resolved-root", operation: "a `map(on: nil)` stage on a resolved root") { count in
    var tail = Promise.value(0)
    for _ in 0..<count { tail = tail.map(on: nil) { $0 &+ 1 } }
    blackHole(tail)
  },
  Workload(
    name: "promises-guarantee-map-stage-pending-root", operation: "a `Guarantee.map(on: nil)` stage on a pending root"
  ) { count in
    let (root, resolve) = Guarantee<Int>.pending()
    var tail = root
    for _ in 0..<count { tail = tail.map(on: nil) { $0 &+ 1 } }
    resolve(0)
    blackHole(tail)
  },
  Workload(
    name: "promises-guarantee-then-stage-pending-root",
    operation: "a `Guarantee.then(on: nil) { Guarantee.value }` stage, pending root"
  ) { count in
    let (root, resolve) = Guarantee<Int>.pending()
    var tail = root
    for _ in 0..<count { tail = tail.then(on: nil) { Guarantee.value($0 &+ 1) } }
    resolve(0)
    blackHole(tail)
  },
  Workload(name: "promises-catch-pending", operation: "`catch(on: nil)` on a pending promise, fulfilled") { count in
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      promise.catch(on: nil) { _ in }
      resolver.fulfill(0)
    }
  },
  Workload(
    name: "promises-pending-dropped-with-callback",
    operation: "a pending promise freed with a callback waiting (`race`'s loser, a dropped chain)"
  ) { count in
    for _ in 0..<count {
      let (promise, _) = Promise<Int>.pending()
      promise.pipe { _ in }
    }
  },
  Workload(name: "promises-ensure-pending", operation: "`ensure(on: nil)` on a pending promise, fulfilled") { count in
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      blackHole(promise.ensure(on: nil) {})
      resolver.fulfill(0)
    }
  },
  Workload(name: "promises-tap-pending", operation: "`tap(on: nil)` on a pending promise, fulfilled") { count in
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      blackHole(promise.tap(on: nil) { _ in })
      resolver.fulfill(0)
    }
  },
  Workload(name: "promises-recover-pending", operation: "`recover(on: nil)` on a pending promise, fulfilled") {
    count in
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      blackHole(promise.recover(on: nil) { _ in Promise.value(1) })
      resolver.fulfill(0)
    }
  },
  Workload(
    name: "promises-when-two-types", operation: "`when(fulfilled:_:)` of a pending `Int` and a resolved `String`"
  ) {
    count in
    for _ in 0..<count {
      let (promise, resolver) = Promise<Int>.pending()
      blackHole(when(fulfilled: promise, Promise.value("a")))
      resolver.fulfill(0)
    }
  },
  Workload(name: "promises-firstly", operation: "`firstly` returning a resolved promise") { count in
    for _ in 0..<count { blackHole(firstly { Promise.value(0) }) }
  },
  Workload(
    name: "promises-cancellable-guarantee-fulfil",
    operation: "`CancellablePromise(guarantee)` of a pending guarantee, fulfilled"
  ) { count in
    for _ in 0..<count {
      let (guarantee, resolve) = Guarantee<Int>.pending()
      blackHole(CancellablePromise(guarantee))
      resolve(0)
    }
  },
  Workload(name: "promises-then-stage-resolved-root", operation: "a `then(on: nil)` stage on a resolved root") {
    count in
    var tail = Promise.value(0)
    for _ in 0..<count { tail = tail.then(on: nil) { Promise.value($0 &+ 1) } }
    blackHole(tail)
  },
  Workload(name: "promises-map-stage-pending-root", operation: "a `map(on: nil)` stage on a pending root, fulfilled") {
    count in
    let (root, resolver) = Promise<Int>.pending()
    var tail = root
    for _ in 0..<count { tail = tail.map(on: nil) { $0 &+ 1 } }
    resolver.fulfill(0)
    blackHole(tail)
  },
  Workload(
    name: "promises-then-stage-pending-root",
    operation: "a `then(on: nil) { Promise.value(x) }` stage on a pending root, fulfilled"
  ) { count in
    let (root, resolver) = Promise<Int>.pending()
    var tail = root
    for _ in 0..<count { tail = tail.then(on: nil) { Promise.value($0 &+ 1) } }
    resolver.fulfill(0)
    blackHole(tail)
  },
  Workload(name: "promises-cancellable-resolver-fulfil", operation: "`CancellablePromise(resolver:)` + fulfil") {
    count in
    for index in 0..<count {
      let promise = CancellablePromise<Int> { $0.fulfill(index) }
      blackHole(promise)
    }
  },
  Workload(name: "promises-cancellable-pending-cancel", operation: "`CancellablePromise.pending()` + `cancel()`") {
    count in
    for _ in 0..<count {
      let (promise, _) = CancellablePromise<Int>.pending()
      blackHole(promise)
      promise.cancel()
    }
  },
  Workload(name: "promises-cancellize-cancel", operation: "`Promise.pending().promise.cancellize()` + `cancel()`") {
    count in
    for _ in 0..<count {
      let (root, resolver) = Promise<Int>.pending()
      let member = root.cancellize()
      member.cancel()
      blackHole(member)
      resolver.fulfill(0)
    }
  },
  Workload(
    name: "promises-cancellable-map-stage-resolved-root", operation: "a cancellable `map(on: nil)` stage, resolved root"
  ) {
    count in
    var tail = Promise.value(0).cancellize()
    for _ in 0..<count { tail = tail.map(on: nil) { $0 &+ 1 } }
    blackHole(tail)
  },
  Workload(
    name: "promises-cancellable-map-stage-pending-fulfilled",
    operation: "a cancellable `map(on: nil)` stage, pending root, fulfilled"
  ) { count in
    let (root, resolver) = CancellablePromise<Int>.pending()
    var tail = root
    for _ in 0..<count { tail = tail.map(on: nil) { $0 &+ 1 } }
    resolver.fulfill(0)
    blackHole(tail)
  },
  Workload(
    name: "promises-cancellable-map-stage-pending-cancelled",
    operation: "a cancellable `map(on: nil)` stage, pending root, cancelled"
  ) { count in
    let (root, _) = CancellablePromise<Int>.pending()
    var tail = root
    for _ in 0..<count { tail = tail.map(on: nil) { $0 &+ 1 } }
    tail.cancel()
    blackHole(tail)
  },
  Workload(
    name: "promises-nested-then-stage-pending-cancelled",
    operation: "a cancellable `then(on: nil) { cancellable }` stage, pending root, cancelled"
  ) { count in
    let (root, resolver) = Promise<Int>.pending()
    var tail = root.cancellize()
    for _ in 0..<count { tail = tail.then(on: nil) { Promise.value($0 &+ 1).cancellize() } }
    tail.cancel()
    resolver.fulfill(0)
    blackHole(tail)
  },
  Workload(
    name: "promises-settled-cancellize",
    operation: "`Promise.value(x).cancellize()`: the body of a nested `then` stage, alone"
  ) { count in
    for index in 0..<count { blackHole(Promise.value(index).cancellize()) }
  },
  Workload(
    name: "promises-nested-then-stage-resolved-root",
    operation: "a cancellable `then(on: nil) { cancellable }` stage, resolved root"
  ) { count in
    var tail = Promise.value(0).cancellize()
    for _ in 0..<count { tail = tail.then(on: nil) { Promise.value($0 &+ 1).cancellize() } }
    blackHole(tail)
  },
  Workload(
    name: "promises-cancellable-ensure-pending",
    operation: "`CancellablePromise.pending()`, `ensure(on: nil)`, fulfilled"
  ) { count in
    for _ in 0..<count {
      let (promise, resolver) = CancellablePromise<Int>.pending()
      blackHole(promise.ensure(on: nil) {})
      resolver.fulfill(0)
    }
  },
  Workload(
    name: "promises-cancellable-recover-pending",
    operation: "`CancellablePromise.pending()`, `recover(on: nil)` to a cancellable promise, fulfilled"
  ) { count in
    for _ in 0..<count {
      let (promise, resolver) = CancellablePromise<Int>.pending()
      blackHole(promise.recover(on: nil) { _ in Promise.value(1).cancellize() })
      resolver.fulfill(0)
    }
  },

  // MARK: Futures
  Workload(name: "futures-create-complete-free", operation: "a `Futures.Promise` created, completed, freed") { count in
    for _ in 0..<count {
      let promise = Futures.Promise<Int>()
      blackHole(promise)
      promise.completeWithSuccess(1)
      blackHole(promise.future)
    }
  },
  Workload(name: "futures-combine-two-types", operation: "`combineFutures` of a completed `Int` and `String` future") {
    count in
    for _ in 0..<count { blackHole(combineFutures(Future<Int>(success: 1), Future<String>(success: "a"))) }
  },
  Workload(name: "futures-map-stage", operation: "a `map(.immediate)` stage on a pending root, completed") { count in
    let root = Futures.Promise<Int>()
    var tail = root.future
    for _ in 0..<count { tail = tail.map(.immediate) { $0 &+ 1 } }
    root.completeWithSuccess(0)
    blackHole(tail.value)
  },
  Workload(name: "futures-cancel-request-stage", operation: "a cancel request passing one `map` stage") { count in
    let root = Futures.Promise<Int>()
    root.automaticallyCancelOnRequestCancel()
    var tail = root.future
    for _ in 0..<count { tail = tail.map(.immediate) { $0 &+ 1 } }
    tail.getCancelToken().cancel()
    blackHole(tail.result)
  },
  // MARK: Adapters: the current token's cost to an adapter given no token, outside any scope
  // (issue 30: within 5 % of the same call given one)
  Workload(
    name: "adapters-start-no-token-no-scope",
    operation: "`CancellableWork.start` reporting at once, no token, outside any scope"
  ) { count in
    let immediate = CancellableWork<Int> { _, completion in completion(.success(1)) }
    for _ in 0..<count { immediate.start { blackHole($0) } }
  },
  Workload(
    name: "adapters-start-explicit-signal",
    operation: "`CancellableWork.start(signal: .never)` reporting at once"
  ) { count in
    let immediate = CancellableWork<Int> { _, completion in completion(.success(1)) }
    for _ in 0..<count { immediate.start(signal: .never) { blackHole($0) } }
  },
  // The complexity of re-entrant requests: each request takes one step, so a chain of n costs n
  // operations; a request that walked the rest of the chain again (before issue 26) would make the
  // cost of one operation grow with n and fail the threshold many times over.
  Workload(
    name: "futures-handover-chain-request-next",
    operation: "one future of a hand-over chain whose request handlers each request the next"
  ) { count in
    let promises = (0..<count).map { _ in Futures.Promise<Int>() }
    for index in 0..<(count - 1) { promises[index].completeUsingFuture(promises[index + 1].future) }
    for index in 0..<count {
      let next = promises[min(index + 1, count - 1)].future
      promises[index].onRequestCancel(.immediate) { _ in
        next.getCancelToken().cancel()
        return .continue
      }
    }
    promises[0].future.getCancelToken().cancel()
    promises[count - 1].completeWithSuccess(7)
    blackHole(promises[0].future.value)
  },
]

/// Starts a thread that stays blocked until the process exits.
func keepASecondThreadAlive() {
  var thread = pthread_t()
  let created = pthread_create(
    &thread, nil,
    { _ in
      while true { pause() }
    }, nil)
  precondition(created == 0, "pthread_create failed: \(created)")
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--list" {
  for workload in workloads { print("\(workload.name)\t\(workload.operation)") }
  exit(0)
}
guard arguments.count == 3, let count = Int(arguments[2]), count >= 0,
  let workload = workloads.first(where: { $0.name == arguments[1] })
else {
  print("usage: InstructionCounts <workload> <operations> | --list")
  exit(2)
}
keepASecondThreadAlive()
// Dropped pending promises (none are expected) would log; nothing is printed while measured.
conf.logHandler = { _ in }
workload.run(count)
