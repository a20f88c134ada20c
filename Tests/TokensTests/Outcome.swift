import TestSupport
import Testing
import Tokens

/// How a test drives one operand: cancel its request, close it, or leave it pending.
enum Outcome: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case cancelled
  case notCancelled
  case pending

  var testDescription: String { rawValue }

  /// Brings `request` to this outcome (`pending` does nothing).
  func apply(to request: CancellationRequest, reason: any Error = CancellationError()) {
    switch self {
    case .cancelled: request.cancel(reason: reason)
    case .notCancelled: request.close()
    case .pending: break
    }
  }

  /// The outcome a token shows now.
  init(of token: CancellationToken) {
    switch token.phase {
    case .active: self = .pending
    case .cancelled: self = .cancelled
    case .closed: self = .notCancelled
    }
  }

  /// The outcome an `onComplete` handler reports (`nil`: it has not run).
  init(reported: [Bool]) {
    switch reported {
    case []: self = .pending
    case [true]: self = .cancelled
    default: self = .notCancelled
    }
  }

  /// DESIGN §4.1: `a || b` is cancelled when either is, not cancelled once both are not.
  static func or(_ lhs: Outcome, _ rhs: Outcome) -> Outcome {
    if lhs == .cancelled || rhs == .cancelled { return .cancelled }
    if lhs == .notCancelled && rhs == .notCancelled { return .notCancelled }
    return .pending
  }

  /// DESIGN §4.1: `a && b` is cancelled when both are, not cancelled as soon as either is not.
  static func and(_ lhs: Outcome, _ rhs: Outcome) -> Outcome {
    if lhs == .notCancelled || rhs == .notCancelled { return .notCancelled }
    if lhs == .cancelled && rhs == .cancelled { return .cancelled }
    return .pending
  }
}

/// Reasons tests tell apart.
struct LeftReason: Error, Equatable {}
struct RightReason: Error, Equatable {}
struct TestReason: Error, Equatable {}

/// A class cancelable that counts its cancellations.
final class CountingCancelable: Cancelable {
  let count = Counter()
  func cancel() { count.increment() }
}

/// A value cancelable that counts its cancellations in a shared counter.
struct ValueCancelable: Cancelable {
  let count: Counter
  func cancel() { count.increment() }
}

/// A value cancelable that runs a closure.
struct ClosureCancelable: Cancelable {
  let body: @Sendable () -> Void
  func cancel() { body() }
}
