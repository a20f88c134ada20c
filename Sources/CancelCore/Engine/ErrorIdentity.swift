/// The identity of an error value: the address of the box that holds it.
///
/// An `any Error` is always one reference to a box (Swift boxes every error it stores as `Error`,
/// and a class error, such as an `NSError`, is its own box), so two errors with the same identity
/// are the same error object, and copying one copies only that reference. Comparing identities
/// tells whether an error is the very one a source was cancelled with, without reading that reason
/// under the source's lock, and without the retain and release a copy of it costs.
///
/// The identity is only meaningful while the error is alive: ``CancelStorage`` keeps its reason
/// for as long as it lives, so an error compared with it is the reason exactly when their
/// identities match.
@usableFromInline
package struct ErrorIdentity: Equatable, Sendable {
  /// The box's address.
  @usableFromInline let bits: UInt

  /// The identity of `error`.
  @inlinable
  package init(_ error: borrowing any Error) {
    // Reinterpreted through a struct holding the existential: `unsafeBitCast` of the existential
    // itself would open it and cast the value inside. The sizes match on every platform (one
    // word); `unsafeBitCast` checks that.
    bits = unsafeBitCast(Existential(error: copy error), to: UInt.self)
  }

  /// An `any Error`, as a struct.
  @usableFromInline
  struct Existential {
    @usableFromInline let error: any Error

    @inlinable init(error: any Error) {
      self.error = error
    }
  }
}
