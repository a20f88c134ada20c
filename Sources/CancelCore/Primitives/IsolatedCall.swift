/// Synchronous calls of `@isolated(any)` functions, for the facades' methods whose body takes on
/// its caller's isolation (`Promises`' `IsolatedBody`, `Futures`' `IsolatedBlock`).
///
/// Swift calls a synchronous `@isolated(any)` function only with `await`, even where its isolation
/// already holds (SE-0431), and has no conversion to a synchronous function type. Such a function
/// value is an ordinary function value whose context starts with the isolation (the `isolation`
/// property reads it there), and calling it is the ordinary call: these casts make that call
/// possible. A caller calls the result only where the body's isolation holds: a body isolated to
/// no actor anywhere, one isolated to the main actor on the main queue (the main actor's
/// executor), one isolated to another actor on that actor (Promises' `IsolatedBody.run(on:_:)`). The main-actor tests (Tests/MainActorTests) run bodies of every isolation through
/// both facades.
@usableFromInline
package enum IsolatedCall {
  /// `body` as the synchronous function it is (see above).
  @inlinable
  package static func synchronous<Input, Output>(
    _ body: @escaping @Sendable @isolated(any) (Input) throws -> Output
  ) -> @Sendable (Input) throws -> Output {
    unsafeBitCast(body, to: (@Sendable (Input) throws -> Output).self)
  }

  /// `body` as the synchronous function it is (see above).
  @inlinable
  package static func synchronous<Input, Output>(
    _ body: @escaping @Sendable @isolated(any) (Input) -> Output
  ) -> @Sendable (Input) -> Output {
    unsafeBitCast(body, to: (@Sendable (Input) -> Output).self)
  }

  /// `body` as the synchronous function it is (see above).
  @inlinable
  package static func synchronous<Output>(
    _ body: @escaping @Sendable @isolated(any) () throws -> Output
  ) -> @Sendable () throws -> Output {
    unsafeBitCast(body, to: (@Sendable () throws -> Output).self)
  }

  /// `body` as the synchronous function it is (see above).
  @inlinable
  package static func synchronous<Output>(
    _ body: @escaping @Sendable @isolated(any) () -> Output
  ) -> @Sendable () -> Output {
    unsafeBitCast(body, to: (@Sendable () -> Output).self)
  }
}
