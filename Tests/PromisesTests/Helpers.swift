import Atomics
import Dispatch
import Foundation
import Promises
import TestSupport

/// A test error with an identity.
struct TestError: Error, Equatable {
  var id = 0
}

/// Waits (without blocking a thread) for the thenable's result.
func outcome<P: Thenable>(of thenable: P) async -> Swift.Result<P.T, Error> {
  await withCheckedContinuation { continuation in
    thenable.pipe { continuation.resume(returning: $0) }
  }
}

/// The error of a rejected result, or `nil`.
func failure<T>(_ result: Swift.Result<T, Error>?) -> Error? {
  if case .failure(let error)? = result { return error }
  return nil
}

/// The error of a rejected PromiseKit-style result, or `nil`.
func failure<T>(_ result: Promises.Result<T>?) -> Error? {
  if case .rejected(let error)? = result { return error }
  return nil
}

/// Counts the threads inside a region at once.
final class Gauge: Sendable {
  private let count = ManagedAtomic<Int>(0)

  /// Enters; returns how many are inside now, this caller included.
  func enter() -> Int { count.wrappingIncrementThenLoad(by: 1, ordering: .acquiringAndReleasing) }

  /// Leaves.
  func leave() { count.wrappingDecrement(by: 1, ordering: .acquiringAndReleasing) }
}
