/// The marker error of ``ErasedResult/abandoned``; never seen by users.
@usableFromInline
enum AbandonedFuture {
  struct Marker: Error {}
  /// The one boxed error whose identity marks an abandoned result.
  static let error: any Error = Marker()
  @usableFromInline static let identity = ErrorIdentity(error)
}
