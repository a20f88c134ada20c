/// couchdeveloper/Cancellation's spelling of the core's `Cancellable` protocol: the same protocol.
///
/// Anything with a `cancel()` can conform, class or value type: requests, cancellable promises,
/// a future's cancel token and Swift's `Task` already do. Unlike the peer's `Cancelable`, it is
/// not limited to classes, and it refines `Sendable` because ``CancellationToken/register(cancelable:on:)``
/// may call `cancel()` from another thread.
public typealias Cancelable = Cancellable
