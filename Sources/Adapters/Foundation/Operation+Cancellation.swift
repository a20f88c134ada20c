import CancelCore
import Foundation
import Tokens

/// A Foundation operation that was cancelled (by its own `cancel()` or by the queue) rather than by
/// a signal; `Error.isCancellation` is `true` for it.
public struct OperationCancelledError: CancellableError, CustomStringConvertible {
  /// The operation's name, if it had one.
  public let operationName: String?

  /// Creates the error.
  public init(operationName: String?) {
    self.operationName = operationName
  }

  /// Always `true`.
  public var isCancelled: Bool { true }

  /// A sentence naming the operation.
  public var description: String { "operation \(operationName ?? "(unnamed)") was cancelled" }
}

extension OperationQueue {
  /// Adds `operation` to this queue, tying its cancellation to `signal` in both directions, and
  /// reports its end exactly once.
  ///
  /// The facade-neutral engine behind the `Operation` adapters.
  /// - Cancelling `signal` calls `operation.cancel()`; `completion` then receives
  ///   `.failure(reason)` with the signal's reason when the operation finishes (at once for an
  ///   operation that had not started; a running operation finishes when it honours
  ///   `isCancelled`).
  /// - Cancelling the operation itself (or `cancelAllOperations()`) ends it with
  ///   ``OperationCancelledError``, so the promise or future built on it ends cancelled too.
  /// - An operation that finishes uncancelled reports `.success(())`; read its results from the
  ///   operation itself.
  ///
  /// The operation's `completionBlock` is used for this; an existing one still runs, first.
  public func addOperation(
    _ operation: Operation, signal: CancelSignal,
    completion: @escaping @Sendable (Swift.Result<Void, any Error>) -> Void
  ) {
    let outcome = SettleCell<Swift.Result<Void, any Error>>()
    outcome.observe(completion)
    let box = OperationBox(operation: operation)
    let previous = operation.completionBlock.map(CompletionBox.init)
    // The operation is held weakly here: Linux Foundation never clears a finished operation's
    // completion block, so a block capturing its own operation would keep it (and everything the
    // block holds) forever. Foundation holds the operation while it calls the block.
    let weakOperation = WeakOperationBox(operation)
    operation.completionBlock = {
      previous?.block()
      guard let operation = weakOperation.operation, operation.isCancelled else {
        outcome.settle(.success(()))
        return
      }
      outcome.settle(.failure(signal.reason ?? OperationCancelledError(operationName: operation.name)))
    }
    // Strong until the outcome settles: cancelling must reach an operation nobody else holds.
    let registration = signal.onCancel { box.operation.cancel() }
    outcome.observe { _ in registration.unregister() }
    addOperation(operation)
  }
}

extension OperationQueue {
  /// An operation, added to this queue when started, as work that every facade can start:
  /// `try await …run()`, `.promise()`, `.future()`, `.start(token:completion:)`. The rules are
  /// those of ``addOperation(_:signal:completion:)``, in both directions. An operation runs at most
  /// once: start this once.
  ///
  /// - Parameter operation: the operation; read its results from it after success.
  /// - Returns: the addition, not started.
  public func work(adding operation: Operation) -> CancellableWork<Void> {
    let queue = QueueBox(queue: self)
    let box = OperationBox(operation: operation)
    return CancellableWork { signal, completion in
      queue.queue.addOperation(box.operation, signal: signal, completion: completion)
    }
  }

  /// Adds `operation` to this queue, tying its cancellation to `token` in both directions as far
  /// as the outcome goes. The token form of ``addOperation(_:signal:completion:)``; same rules
  /// (cancelling the operation ends the outcome cancelled; it cannot cancel the token, which
  /// belongs to its request). Without a `token`, the current token (`CancellationToken.current`,
  /// read when the call is made) cancels it; outside any scope nothing does.
  public func addOperation(
    _ operation: Operation, token: CancellationToken = CancellationToken.current ?? CancellationToken.none,
    completion: @escaping @Sendable (Swift.Result<Void, any Error>) -> Void
  ) {
    addOperation(operation, signal: token.signal, completion: completion)
  }
}

/// Carries an operation queue into `@Sendable` closures.
private struct QueueBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `OperationQueue.addOperation(_:)` is thread-safe; it is the
  // only member used.
  let queue: OperationQueue
}

/// Carries an operation into `@Sendable` handlers.
private struct OperationBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `Operation` is documented thread-safe for `cancel()`,
  // `isCancelled` and `name`, the only members used from the handlers.
  let operation: Operation
}

/// Carries a weak reference to an operation into its own `@Sendable` completion block.
private final class WeakOperationBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `operation` is written once by the initializer; Swift's weak
  // references are safe to load from any thread, and only `isCancelled` and `name` are read,
  // which `Operation` documents thread-safe.
  weak var operation: Operation?

  init(_ operation: Operation) {
    self.operation = operation
  }
}

/// Carries an operation's previous completion block.
private struct CompletionBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the block is called once, by Foundation, from the completion
  // block that replaced it, exactly as Foundation would have called it.
  let block: () -> Void
}
