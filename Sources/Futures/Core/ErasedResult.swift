/// A future's result with its value erased: a value of one of the scalar types `InlineScalar`
/// covers travels inline as its bits, any other in a `ValueBox` of the future's value type.
///
/// Copying it is at most a retain, where an `any Sendable` payload would be copied and destroyed
/// through value witnesses and read back with a runtime dynamic cast. The inline case saves the
/// box's allocation and costs no size: the enum is 9 bytes, and the one byte more fits in the
/// padding beside the state machine's phase.
@usableFromInline
package enum ErasedResult: Sendable {
  /// A success whose value is of a type `InlineScalar` covers, as its bits.
  case word(UInt64)
  /// A success: the value in a `ValueBox<T>`, `T` being the future's value type.
  case boxed(any AnyObject & Sendable)
  case fail(any Error)
  case cancelled

  /// A success with `value`.
  @inlinable
  static func success<T: Sendable>(_ value: T) -> ErasedResult {
    if let bits = InlineScalar.bits(of: value) { return .word(bits) }
    return .boxed(ValueBox(value))
  }

  /// What `_FutureCore.abandon(_:)` hands a callback whose future will never complete: not a
  /// result. A stage receiving it does not run its block and is not completed; it only hands
  /// itself back (see `_FutureCore.settleLeavingDelivery(_:)`). A failure with one private error
  /// object, so that no switch over the cases changes and the check is an identity comparison on
  /// the failure path only.
  static let abandoned = ErasedResult.fail(AbandonedFuture.error)

  /// Whether this is ``abandoned``.
  @inlinable
  var isAbandoned: Bool {
    guard case .fail(let error) = self else { return false }
    return ErrorIdentity(error) == AbandonedFuture.identity
  }

  /// Whether this is `.cancelled`.
  @inlinable
  var isCancelled: Bool {
    if case .cancelled = self { return true }
    return false
  }

  @inlinable
  var isSuccess: Bool {
    switch self {
    case .word, .boxed: return true
    case .fail, .cancelled: return false
    }
  }

  /// The value of a success (which this must be), `T` being the future's value type.
  @inlinable
  func successValue<T: Sendable>(as type: T.Type) -> T {
    switch self {
    case .word(let bits): return InlineScalar.value(of: bits, as: T.self)
    case .boxed(let box): return ValueBox<T>.unbox(box)
    case .fail, .cancelled: preconditionFailure("not a success")
    }
  }

  /// The result with its value taken out.
  @inlinable
  func typed<T: Sendable>(as type: T.Type) -> FutureResult<T> {
    switch self {
    case .word, .boxed: return .success(successValue(as: T.self))
    case .fail(let error): return .fail(error)
    case .cancelled: return .cancelled
    }
  }
}

/// The value types whose values `ErasedResult` carries inline, as 64 bits, instead of boxing them:
/// the standard integer, floating-point and Boolean types of at most 64 bits, and `Void`.
///
/// The choice depends only on the value type, so the code that erases a value and the code that
/// reads it back always agree. In code specialized for the type (every inlinable path, in the
/// client), the tests fold away; unspecialized code compares a few metadata pointers.
@usableFromInline
enum InlineScalar {
  /// The bits of `value`, or `nil` if its type is not one carried inline.
  @inlinable @inline(__always)
  static func bits<T>(of value: T) -> UInt64? {
    if T.self == Int.self { return UInt64(bitPattern: Int64(value as! Int)) }
    if T.self == Void.self { return 0 }
    if T.self == Bool.self { return (value as! Bool) ? 1 : 0 }
    if T.self == Double.self { return (value as! Double).bitPattern }
    if T.self == UInt.self { return UInt64(value as! UInt) }
    if T.self == Int64.self { return UInt64(bitPattern: value as! Int64) }
    if T.self == UInt64.self { return (value as! UInt64) }
    if T.self == Int32.self { return UInt64(UInt32(bitPattern: value as! Int32)) }
    if T.self == UInt32.self { return UInt64(value as! UInt32) }
    if T.self == Float.self { return UInt64((value as! Float).bitPattern) }
    return nil
  }

  /// The value whose bits `bits(of:)` returned.
  @inlinable @inline(__always)
  static func value<T>(of bits: UInt64, as type: T.Type) -> T {
    if T.self == Int.self { return Int(Int64(bitPattern: bits)) as! T }
    if T.self == Void.self { return () as! T }
    if T.self == Bool.self { return (bits != 0) as! T }
    if T.self == Double.self { return Double(bitPattern: bits) as! T }
    if T.self == UInt.self { return UInt(bits) as! T }
    if T.self == Int64.self { return Int64(bitPattern: bits) as! T }
    if T.self == UInt64.self { return bits as! T }
    if T.self == Int32.self { return Int32(bitPattern: UInt32(truncatingIfNeeded: bits)) as! T }
    if T.self == UInt32.self { return UInt32(truncatingIfNeeded: bits) as! T }
    if T.self == Float.self { return Float(bitPattern: UInt32(truncatingIfNeeded: bits)) as! T }
    preconditionFailure("not a type carried inline")
  }
}

/// A success value of a type not carried inline, boxed so that `ErasedResult` stays one word
/// (and a tag) wide.
///
/// The box's type is known wherever its value is read (a `Future<T>` only ever holds a
/// `ValueBox<T>`), so reading it is a class cast: comparing one metadata pointer, where casting
/// an `any Sendable` back to `T` went through the runtime's generic dynamic cast. Its one field
/// is of type `T` itself, so freeing it needs no runtime metadata lookup.
@usableFromInline
final class ValueBox<T: Sendable>: Sendable {
  @usableFromInline let value: T

  @inlinable
  init(_ value: T) {
    self.value = value
  }

  /// The value in `box`, which must be a `ValueBox<T>`.
  @inlinable
  static func unbox(_ box: any AnyObject & Sendable) -> T {
    (box as! ValueBox<T>).value
  }
}
