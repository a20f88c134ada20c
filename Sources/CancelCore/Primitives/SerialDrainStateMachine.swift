/// Work requested from many threads that must run one run at a time, never under a lock: the
/// first requester becomes the *drainer* and performs runs until no request is left; the others
/// only leave their request and return.
///
/// It is the state of a serial executor without a queue: a facade hosts it beside a `CoreLock`
/// (the hosting exception), calls `request()` and `finishedRun()` under the lock, and performs the
/// runs — which may call user code — after unlocking. Everything a run touches is therefore only
/// ever touched by one thread at a time, in request order, and each run happens after the lock
/// release that ended the previous one.
///
/// A plain value with no lock and no user code.
package struct SerialDrainStateMachine: Sendable {
  /// Requests not yet run (the one running included).
  private var outstanding = 0

  /// Nothing requested.
  package init() {}

  /// Leaves a request. Returns `true` if the caller must now drain (perform runs, calling
  /// `finishedRun()` after each, until it returns `false`); `false` if a drainer is already
  /// running and will perform this request too.
  package mutating func request() -> Bool {
    outstanding += 1
    return outstanding == 1
  }

  /// The drainer finished one run. Returns `true` if another request is waiting (run again);
  /// `false` when none is left and the caller stopped being the drainer.
  package mutating func finishedRun() -> Bool {
    precondition(outstanding > 0, "finishedRun() without a request")
    outstanding -= 1
    return outstanding > 0
  }
}
