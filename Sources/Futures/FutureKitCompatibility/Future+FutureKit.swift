extension Future {
  /// Returns this future: it only says, where a result is not used, that failures are ignored
  /// on purpose (FutureKit's name; the methods that return a future here are
  /// `@discardableResult` already).
  ///
  /// - Returns: this future.
  @discardableResult
  public final func ignoreFailures() -> Future<T> {
    self
  }
}

extension FutureResult {
  /// Whether the result is a failure (``fail(_:)``).
  ///
  /// A cancellation is never a failure here (``cancelled`` is a state of its own), so this is
  /// `true` exactly when ``error`` is not `nil`.
  public var isFail: Bool {
    if case .fail = self { return true }
    return false
  }
}

extension Completion {
  /// Returns this completion unchanged: FutureKit's spelling for a conversion to the same type,
  /// which lets code that converts completions generically compile.
  ///
  /// - Returns: this completion.
  public func As() -> Completion<T> {
    self
  }
}

extension AnyFuture {
  /// A future of this future's value converted to `S` (declare the type you want).
  ///
  /// It completes with this future's failure or cancellation as they are; a value that is not an
  /// `S` fails it with ``FutureKitError/resultConversionError(_:)`` (FutureKit stops the program
  /// there). A cancel request on it reaches this future, as on any derived future.
  ///
  /// - Returns: a derived future of `S`.
  public func mapAs<S: Sendable>() -> Future<S> {
    anySendableFuture.map(.immediate) { value in
      guard let converted = value as? S else {
        throw FutureKitError.resultConversionError("cannot convert \(type(of: value)) to \(S.self)")
      }
      return converted
    }
  }

  /// A future that succeeds with no value once this future succeeds, and otherwise ends as it
  /// does. A cancel request on it reaches this future.
  ///
  /// - Returns: a derived future of `Void`.
  public func mapAs() -> Future<Void> {
    anySendableFuture.map(.immediate) { _ in () }
  }
}
