import Dispatch

extension CatchMixin where T == Void {
  /// Handles any rejection, cancellations included, by running `body`, which cannot fail: the
  /// chain can no longer fail (PromiseKit's full recover of a `Void` promise).
  ///
  /// `body` runs at most once, only if this promise is rejected; the returned guarantee fulfils
  /// after it returns, or at once with this promise's fulfilment.
  ///
  /// - Parameters:
  ///   - on: the queue `body` runs on; `nil` runs it on the resolving thread.
  ///   - flags: the dispatch flags for `body`.
  ///   - body: handles the error.
  /// - Returns: a `Void` guarantee.
  @_disfavoredOverload
  public func recover(
    on: DispatchQueue? = conf.Q.map, flags: DispatchWorkItemFlags? = nil,
    _ body: @escaping @Sendable (Error) -> Void
  ) -> Guarantee<Void> {
    let flags = DispatchFlags(flags)
    let next = Guarantee<Void>(pending: ())
    pipe { result in
      switch result {
      case .success: next.settle(())
      case .failure(let error):
        on.dispatch(flags) {
          body(error)
          next.settle(())
        }
      }
    }
    return next
  }
}
