/// The executor of a block that takes on its caller's isolation: ``primary`` (the default),
/// ``main`` or ``current``.
///
/// The APIs that take it (`onComplete`, `onSuccess`, `map`, `onFail`, `onCancel` of ``Future``,
/// ``Future/init(block:)``, ``Future/init(_:block:)-(BlockExecutor,_)`` and
/// ``Promise/onRequestCancel(_:handler:)-(BlockExecutor,_)``) accept a block written in a
/// `@MainActor` class as it is written there, in the Swift 6 language mode:
///
/// ```swift
/// @MainActor final class ViewModel {
///   var label = ""
///   func load(_ name: Future<String>) {
///     name.onSuccess(.main) { self.label = $0 }
///   }
/// }
/// ```
///
/// - A block isolated to the main actor (written in a `@MainActor` type or function) runs on
///   ``Executor/main``, whichever of these executors is given: at once if it is ready on the main
///   queue, otherwise submitted to it. The main queue is the main actor's executor, so the block
///   never runs off the main actor.
/// - A block isolated to no actor runs on the ``Executor`` of the same name, exactly as with the
///   APIs that take an ``Executor``.
/// - A block isolated to another actor runs on that actor, in a task; what it returns or throws
///   completes the future then.
///
/// Pass an ``Executor`` (`.immediate`, `.async`, `.queue(_:)`, an executor in a variable) to run a
/// block that is not isolated to an actor elsewhere: the APIs taking an ``Executor`` take a
/// `@Sendable` nonisolated block, which cannot use main-actor state.
public struct BlockExecutor: Sendable {
  /// The executor a block isolated to no actor runs on.
  @usableFromInline let executor: Executor

  @inlinable init(_ executor: Executor) {
    self.executor = executor
  }

  /// ``Executor/primary``: the default.
  @inlinable public static var primary: BlockExecutor { BlockExecutor(.primary) }

  /// ``Executor/main``.
  @inlinable public static var main: BlockExecutor { BlockExecutor(.main) }

  /// ``Executor/current``.
  @inlinable public static var current: BlockExecutor { BlockExecutor(.current) }

  /// The executor to run a block with `isolation` on synchronously; `nil` for a block isolated to
  /// an actor other than the main actor (it is awaited in a task).
  @inlinable
  func executor(for isolation: (any Actor)?) -> Executor? {
    guard let actor = isolation else { return executor }
    return actor === MainActor.shared ? .main : nil
  }
}

/// How the APIs that take a ``BlockExecutor`` run a block isolated to an actor other than the main
/// actor: in a task, whose outcome completes a future.
@usableFromInline
enum IsolatedBlock {
  /// A future completed with what `work` returns (or failed with what it throws), run in a task.
  ///
  /// A cancel request on the future does not stop `work` (a synchronous block cannot be
  /// interrupted); a ``Completion/completeUsing(_:)`` it returns hands the future over as usual.
  @usableFromInline
  static func future<S: Sendable>(_ work: @escaping @Sendable () async throws -> Completion<S>) -> Future<S> {
    let promise = Promise<S>()
    Task {
      do {
        promise.tryComplete(try await work(), cancelledBy: .block, origin: .unknown)
      } catch {
        promise.completeWithFail(error)
      }
    }
    return promise.future
  }
}
