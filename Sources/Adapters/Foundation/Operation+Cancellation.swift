import CancelCore
import Foundation

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
    _ operation: Operation, signal: CancelSignal, completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    let outcome = SettleCell<Result<Void, any Error>>()
    outcome.observe(completion)
    let box = OperationBox(operation: operation)
    let previous = operation.completionBlock.map(CompletionBox.init)
    operation.completionBlock = {
      previous?.block()
      if box.operation.isCancelled {
        outcome.settle(.failure(signal.reason ?? OperationCancelledError(operationName: box.operation.name)))
      } else {
        outcome.settle(.success(()))
      }
    }
    let registration = signal.onCancel { box.operation.cancel() }
    outcome.observe { _ in registration.unregister() }
    addOperation(operation)
  }
}

/// Carries an operation into `@Sendable` handlers.
private struct OperationBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: `Operation` is documented thread-safe for `cancel()`,
  // `isCancelled` and `name`, the only members used from the handlers.
  let operation: Operation
}

/// Carries an operation's previous completion block.
private struct CompletionBox: @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the block is called once, by Foundation, from the completion
  // block that replaced it, exactly as Foundation would have called it.
  let block: () -> Void
}
