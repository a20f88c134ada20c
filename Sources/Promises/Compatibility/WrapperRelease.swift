/// Fulfils the `cancelPromise` of ``CancellablePromise/init(wrapper:)`` when the wrapped
/// promise is released without having been cancelled, as CancellablePromiseKit does.
///
/// The promise's callback list holds it: settling the promise runs the callback (which fulfils,
/// unless a cancel rejected first), and releasing a pending promise releases the callback, whose
/// last reference ends here.
@usableFromInline final class WrapperRelease: Sendable {
  let cancelPromise: Promise<Void>

  @usableFromInline init(_ cancelPromise: Promise<Void>) {
    self.cancelPromise = cancelPromise
  }

  /// Fulfils `cancelPromise` unless it already resolved.
  @usableFromInline func fulfil() {
    cancelPromise.settle(.success(()))
  }

  deinit {
    cancelPromise.settle(.success(()))
  }
}
