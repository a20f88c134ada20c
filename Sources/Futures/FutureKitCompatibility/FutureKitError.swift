/// The errors FutureKit's own API fails futures with, under FutureKit's names, so that code written
/// against FutureKit 3.5 that makes or matches them compiles unchanged.
///
/// `Promise.completeWithFail(_:)` and `Promise.failIfNotCompleted(_:)` given a message fail with
/// ``genericError(_:)``; ``Promise/completeWithException(_:)`` with ``exceptionCaught(_:_:)``;
/// `AnyFuture.mapAs()` with ``resultConversionError(_:)`` when a value does not convert. The
/// module's other APIs never produce it.
///
/// Equality compares the message of each case (and the exception of ``exceptionCaught(_:_:)``),
/// not the errors of ``errorForMultipleErrors(_:_:)`` nor the details of ``exceptionCaught(_:_:)``,
/// as FutureKit does.
public enum FutureKitError: Error, Sendable, Equatable {
  /// A failure described by a message.
  case genericError(String)
  /// A result could not be converted to the requested type.
  case resultConversionError(String)
  /// A completion could not be converted to the requested type.
  case completionConversionError(String)
  /// A continuation's value could not be converted to the requested type.
  case continueWithConversionError(String)
  /// Several failures at once, with a message.
  case errorForMultipleErrors(String, [any Error])
  /// A failure reported as an *exception* rather than thrown as a Swift error, with optional
  /// details.
  ///
  /// Swift has no exceptions of its own, and on Linux there are no Objective-C exceptions either:
  /// here an exception is any `Sendable` value that stands for such a failure — an
  /// `NSException` caught by an Objective-C shim on Apple platforms, a C library's error record,
  /// or a type of your own. Code in the Swift 5 language mode may pass values that are not
  /// `Sendable` (such as an `NSException`); in the Swift 6 mode, wrap them (for example, keep
  /// their name and reason in a struct).
  case exceptionCaught(any Sendable, [String: any Sendable]?)

  /// A ``genericError(_:)`` with `genericError` as its message.
  public init(genericError: String) {
    self = .genericError(genericError)
  }

  /// An ``exceptionCaught(_:_:)`` of `exception`, with no details.
  public init(exception: any Sendable) {
    self = .exceptionCaught(exception, nil)
  }

  /// Whether `lhs` and `rhs` are the same case with the same message; for
  /// ``exceptionCaught(_:_:)``, the same exception: equal if both are `Hashable` (an `NSObject`
  /// compares with `isEqual`), otherwise the same object for class instances, and for values of
  /// other types (a struct wrapping an exception's name and reason, say) the same type with the
  /// same `String(reflecting:)` description, so that an error always equals itself.
  public static func == (lhs: FutureKitError, rhs: FutureKitError) -> Bool {
    switch (lhs, rhs) {
    case (.genericError(let left), .genericError(let right)),
      (.resultConversionError(let left), .resultConversionError(let right)),
      (.completionConversionError(let left), .completionConversionError(let right)),
      (.continueWithConversionError(let left), .continueWithConversionError(let right)),
      (.errorForMultipleErrors(let left, _), .errorForMultipleErrors(let right, _)):
      return left == right
    case (.exceptionCaught(let left, _), .exceptionCaught(let right, _)):
      return sameException(left, right)
    default:
      return false
    }
  }

  private static func sameException(_ left: any Sendable, _ right: any Sendable) -> Bool {
    if let left = left as? AnyHashable, let right = right as? AnyHashable { return left == right }
    guard type(of: left) == type(of: right) else { return false }
    // `as AnyObject` boxes a value type on Linux: compare identities of class instances only.
    if type(of: left) is AnyClass { return (left as AnyObject) === (right as AnyObject) }
    // A value that is not `Hashable`: equal when it describes itself the same way.
    return String(reflecting: left) == String(reflecting: right)
  }
}
