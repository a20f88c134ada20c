// A command-line program's top-level code that waits for promises on the main thread, as
// PromiseKit code does: `MainThreadWaitTests` runs it as a child process (the test process has no
// free main thread) and expects exit status 0. Top-level code is isolated to the main actor, so the
// bodies written here run on the main queue whatever `conf.Q` says; `wait()` on the main thread
// runs the main queue while it waits (docs/semantics.md §4), or they would wait for ever.
import Dispatch
import Foundation
import Promises

// A hang is a failure, not a stuck test: give up long after any machine would have finished.
DispatchQueue.global().asyncAfter(deadline: .now() + 300) {
  FileHandle.standardError.write(Data("MainThreadWait: wait() on the main thread did not return\n".utf8))
  exit(2)
}

func fetch() -> Promise<Int> {
  Promise { seal in DispatchQueue.global().async { seal.fulfill(1) } }
}

// The default queues (the main queue) and a body isolated to the main actor.
let mapped = try fetch().map { $0 + 1 }.wait()
precondition(mapped == 2, "map on the main queue: \(mapped)")
var seen = 0
try fetch().done { seen = $0 }.wait()
precondition(seen == 1, "done on the main queue: \(seen)")
let guaranteed = Guarantee<Int> { resolve in DispatchQueue.global().async { resolve(3) } }.map { $0 * 2 }.wait()
precondition(guaranteed == 6, "a guarantee's map on the main queue: \(guaranteed)")

// PromiseKit's advice for command-line tools: no queue.
conf.Q = (map: nil, return: nil)
let unqueued = try fetch().map { $0 + 1 }.then { Promise.value($0 * 10) }.wait()
precondition(unqueued == 20, "with conf.Q nil: \(unqueued)")

// A rejection still throws.
struct Failure: Error {}
do {
  _ = try fetch().map { _ -> Int in throw Failure() }.wait()
  preconditionFailure("the rejection was not thrown")
} catch is Failure {}

print("MainThreadWait: every wait on the main thread returned")
