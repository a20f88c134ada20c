import Dispatch
import Foundation

/// Where a block of a future runs.
///
/// Every API that takes an executor honours it, including
/// ``Promise/onRequestCancel(_:handler:)-(Executor,_)``.
///
/// ``primary`` and ``current`` are resolved when the block is registered (they name the context
/// of the code that registers it); the other cases are resolved when the block is about to run
/// (``main`` then checks whether that is already the main thread).
///
/// ## The main queue on Linux
///
/// ``main`` submits to `DispatchQueue.main` unless the completing code already runs on the main
/// thread. On Linux nothing drains the main queue by itself: a command-line program must call
/// `dispatchMain()` or `RunLoop.main.run()` (after starting its work) or blocks on ``main`` never
/// run. Swift Testing on Linux drains the main queue while tests run; on Apple platforms an app's
/// run loop does.
public enum Executor: Sendable {
  /// The default of every API: FutureKit's configured primary executor, which is ``current``.
  case primary
  /// The main queue: runs at once when the block is ready on the main thread (or on the main
  /// queue), otherwise submitted to `DispatchQueue.main`.
  case main
  /// A global concurrent Dispatch queue (default quality of service).
  case async
  /// The executor running the code that registers the block: inside a block run by an executor,
  /// that executor; on the main thread, ``main``; elsewhere ``async``.
  case current
  /// Synchronously, on the thread that completes the future (or at once, on the registering
  /// thread, if the future has already completed).
  case immediate
  /// Submitted to this Dispatch queue with `async`.
  case queue(DispatchQueue)
  /// Added to this operation queue as an operation.
  case operationQueue(OperationQueue)
  /// Handed to this function, which must run the work exactly once, on any thread.
  case custom(@Sendable (_ work: @escaping @Sendable () -> Void) -> Void)

  /// ``primary`` and ``current`` replaced by the executor they name for the calling code.
  ///
  /// Inlinable so that a call with a literal executor (`map(.immediate)`) folds to nothing in
  /// the client.
  @inlinable var resolvedForRegistration: Executor {
    switch self {
    case .primary, .current: return Executor.currentContext
    default: return self
    }
  }

  /// The executor running the calling code (see ``current``).
  @usableFromInline static var currentContext: Executor {
    if let executor = ExecutorContext.current { return executor }
    return isOnMainQueue ? .main : .async
  }

  /// Whether the calling code runs on the main thread or is being served by the main queue.
  ///
  /// On Linux the main queue may be drained by a thread that Foundation does not call the main
  /// thread (Swift Testing does this), so a queue-specific key identifies the main queue too.
  static var isOnMainQueue: Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
  }

  /// Whether the block runs synchronously wherever it is ready.
  @usableFromInline
  var isImmediate: Bool {
    if case .immediate = self { return true }
    return false
  }

  /// Runs `work` on this executor. For every executor but ``immediate``, ``current`` reports this
  /// executor while `work` runs.
  @usableFromInline
  func execute(_ work: @escaping @Sendable () -> Void) {
    switch self {
    case .immediate:
      work()
    case .primary, .current:
      Executor.currentContext.execute(work)
    case .main:
      if Executor.isOnMainQueue {
        ExecutorContext.run(.main, work)
      } else {
        DispatchQueue.main.async { ExecutorContext.run(.main, work) }
      }
    case .async:
      DispatchQueue.global().async { ExecutorContext.run(.async, work) }
    case .queue(let queue):
      queue.async { ExecutorContext.run(self, work) }
    case .operationQueue(let queue):
      queue.addOperation { ExecutorContext.run(self, work) }
    case .custom(let submit):
      submit { ExecutorContext.run(self, work) }
    }
  }
}

/// Marks the main queue, for ``Executor/isOnMainQueue``.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()
