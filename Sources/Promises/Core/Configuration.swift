import Dispatch

/// Which errors a `catch` or `recover` handles.
public enum CatchPolicy: Sendable {
  /// Every error, cancellations included.
  case allErrors
  /// Every error except cancellations (``Swift/Error/isCancelled``): the default, as in
  /// PromiseKit, so a cancelled chain does not report a failure.
  case allErrorsExceptCancellation
}

/// Something the library reports through ``PMKConfiguration/logHandler``.
public enum LogEvent: Sendable {
  /// `wait()` was called on the main thread.
  case waitOnMainThread
  /// A promise made with `pending()` or `init(resolver:)` was deallocated while still pending:
  /// its handlers will never run.
  case pendingPromiseDeallocated
  /// A guarantee made with `pending()` or `init(resolver:)` was deallocated while still pending.
  case pendingGuaranteeDeallocated
  /// `cauterize()` swallowed this error.
  case cauterized(Error)
}

/// The library's settings: default queues, the default catch policy and the log handler.
///
/// Set them once at startup, before creating promises (as with PromiseKit's `conf`): reads are not
/// synchronized with writes.
public struct PMKConfiguration: Sendable {
  /// The default queues: `map` for `then`, `map`, `compactMap`, `tap`, `recover`; `return` for
  /// `done`, `get`, `catch`, `ensure`, `finally`. Both are the main queue by default, as in
  /// PromiseKit; `nil` runs handlers synchronously on the resolving thread.
  ///
  /// On Linux a command-line tool must drain the main queue for handlers to run: end `main` with
  /// `dispatchMain()` (and call `exit` from the last handler) or run `RunLoop.main.run()`. Or set
  /// `conf.Q = (map: nil, return: nil)` or a global queue. Swift Testing drains the main queue
  /// while tests run.
  public var Q: (map: DispatchQueue?, return: DispatchQueue?) = (map: .main, return: .main)

  /// The policy of `catch` and `recover` when none is given: ``CatchPolicy/allErrorsExceptCancellation``.
  public var catchPolicy = CatchPolicy.allErrorsExceptCancellation

  /// Receives ``LogEvent``s; prints them by default.
  public var logHandler: @Sendable (LogEvent) -> Void = { event in
    switch event {
    case .waitOnMainThread: print("PromiseKit: warning: wait() called on main thread")
    case .pendingPromiseDeallocated: print("PromiseKit: warning: pending promise deallocated")
    case .pendingGuaranteeDeallocated: print("PromiseKit: warning: pending guarantee deallocated")
    case .cauterized(let error): print("PromiseKit:cauterized-error: \(error)")
    }
  }

  /// The default configuration.
  public init() {}
}

/// The library's configuration (PromiseKit's global `conf`).
///
/// Set it once at startup, before any promise is created; it is read without synchronization
/// (PromiseKit's contract, kept for source compatibility; see the migration guide).
nonisolated(unsafe) public var conf = PMKConfiguration()
