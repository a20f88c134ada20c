import CancelCore

/// The errors the library itself rejects with.
public enum PMKError: Error, CancellableError, CustomDebugStringConvertible {
  /// A completion handler was called with neither a value nor an error.
  case invalidCallingConvention
  /// A handler returned the very promise it was supposed to resolve (it would wait for itself).
  case returnedSelf
  /// The input of a combinator was invalid (for example `race` of no promises).
  case badInput
  /// The operation was cancelled. ``isCancelled`` is `true`.
  case cancelled
  /// `compactMap` got `nil`: the value it transformed and the type it wanted.
  case compactMap(any Sendable, any Any.Type)
  /// `firstValue` or `lastValue` of an empty sequence.
  case emptySequence
  /// `race(fulfilled:)`: every input was rejected.
  case noWinner
  /// A timeout expired.
  case timedOut

  /// `true` for ``cancelled`` only, so ``Swift/Error/isCancelled`` and the core's
  /// `isCancellation` recognise it.
  public var isCancelled: Bool {
    if case .cancelled = self { return true }
    return false
  }

  /// A readable description of the error.
  public var debugDescription: String {
    switch self {
    case .invalidCallingConvention:
      return "A closure was called with an invalid calling convention, probably (nil, nil)"
    case .returnedSelf: return "A promise handler returned itself"
    case .badInput: return "Bad input was provided to a PromiseKit function"
    case .cancelled: return "The promise was cancelled"
    case .compactMap(let value, let type): return "Could not compactMap<\(type)>: \(value)"
    case .emptySequence: return "The first or last element was requested for an empty sequence"
    case .noWinner: return "All thenables passed to race(fulfilled:) were rejected"
    case .timedOut: return "The operation timed out"
    }
  }
}

/// CancellablePromiseKit's name for the library's errors (`CancellablePromiseError.cancelled`).
public typealias CancellablePromiseError = PMKError

extension Error {
  /// Whether this error is a cancellation: PromiseKit's spelling of the core's one classifier,
  /// `isCancellation` (true for ``PMKError/cancelled``, `CancellationError`,
  /// timeouts, `URLError.cancelled` and the other cancellation errors the core knows).
  public var isCancelled: Bool {
    isCancellation
  }
}
