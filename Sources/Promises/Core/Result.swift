/// How a promise resolved: PromiseKit 6/8's result, with `.fulfilled` and `.rejected`.
///
/// It is what ``Thenable/result``, `tap` and `when(resolved:)` hand out, so
/// code written for PromiseKit 6/8 or CancellablePromiseKit switches on the same cases. Inside a
/// module that imports `Promises`, this `Result` hides the standard library's; write
/// `Swift.Result` for that one. `Resolver.resolve(_:)` takes either
/// kind, and ``init(_:)`` and ``swiftResult`` convert between them.
public enum Result<T> {
  /// The promise fulfilled with this value.
  case fulfilled(T)
  /// The promise was rejected with this error.
  case rejected(Error)
}

extension Result: Sendable where T: Sendable {}

extension Result {
  /// The same outcome as the standard library's result: `.success` is `.fulfilled`, `.failure`
  /// is `.rejected`.
  @inlinable
  public init(_ result: Swift.Result<T, Error>) {
    switch result {
    case .success(let value): self = .fulfilled(value)
    case .failure(let error): self = .rejected(error)
    }
  }

  /// The same outcome as the standard library's result.
  @inlinable
  public var swiftResult: Swift.Result<T, Error> {
    switch self {
    case .fulfilled(let value): return .success(value)
    case .rejected(let error): return .failure(error)
    }
  }

  /// Whether this is `.fulfilled`.
  @inlinable
  public var isFulfilled: Bool {
    if case .fulfilled = self { return true }
    return false
  }

  /// Returns the value if fulfilled, else throws the error, like `Swift.Result.get()`.
  @inlinable
  public func get() throws -> T {
    switch self {
    case .fulfilled(let value): return value
    case .rejected(let error): throw error
    }
  }
}

/// The case names of the standard library's result, for PromiseKit 7 code that matches a
/// ``Result`` without binding its payload: `if case .success = promise.result!`.
public enum ResultCaseName: Sendable {
  /// Matches ``Result/fulfilled(_:)``.
  case success
  /// Matches ``Result/rejected(_:)``.
  case failure
}

/// Whether `result` has the case `name` names (`.success` is `.fulfilled`, `.failure` is
/// `.rejected`).
///
/// - Parameters:
///   - name: the case name.
///   - result: the result to match.
/// - Returns: whether they agree.
public func ~= <T>(name: ResultCaseName, result: Result<T>) -> Bool {
  switch (name, result) {
  case (.success, .fulfilled), (.failure, .rejected): return true
  default: return false
  }
}
