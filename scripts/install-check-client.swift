// The executable of the client packages that scripts/check-install.sh builds: one line of each
// facade, each outcome checked. Exits non-zero if any is not what the README says.
import Adapters
import CancelCore
import Dispatch
import Futures
import Promises
import Tokens

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ what: String) {
  print(condition ? "ok: \(what)" : "FAILED: \(what)")
  if !condition { failures.append(what) }
}

// CancelCore: a linked source follows its parent.
let source = CancelSource()
let child = CancelSource(linkedTo: source.signal)
source.cancel()
check(child.signal.isCancelled, "CancelCore: a linked child is cancelled with its parent")

// Tokens: a request cancels its token with the reason given.
struct Stop: Error {}
let request = CancellationRequest()
request.cancel(reason: Stop())
check(request.token.reason is Stop, "Tokens: the token carries the request's reason")

// Promises: a cancellable chain rejects with a cancellation.
let (pending, _) = Promise<Int>.pending()
let chain = pending.cancellize().map(on: nil) { $0 + 1 }
chain.cancel()
check(chain.isCancelled, "Promises: cancel() rejects the chain with a cancellation")

// Futures: a cancel request reaches the producer.
let producer = Futures.Promise<Int>()
producer.onRequestCancel(.immediate) { _ in .complete(.cancelled) }
producer.future.getCancelToken().cancel()
check(producer.future.result?.isCancelled == true, "Futures: the producer answered the request")

// Adapters: a token cancels an async operation, with the token's reason.
let deadline = CancellationRequest()
do {
  try await withCancellationToken(deadline.token) {
    deadline.cancel(reason: Stop())
    try await Task.sleep(for: .seconds(3_600))
  }
  check(false, "Adapters: withCancellationToken threw the token's reason")
} catch {
  check(error is Stop, "Adapters: withCancellationToken threw the token's reason")
}

if !failures.isEmpty { fatalError("\(failures.count) check(s) failed") }
