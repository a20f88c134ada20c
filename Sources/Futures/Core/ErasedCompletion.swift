/// A completion with the value boxed (see `ErasedResult`).
@usableFromInline
enum ErasedCompletion: Sendable {
  case result(ErasedResult)
  case using(_FutureCore)
}

extension FutureResult {
  @inlinable
  var erased: ErasedResult {
    switch self {
    case .success(let value): return .success(value)
    case .fail(let error): return .fail(error)
    case .cancelled: return .cancelled
    }
  }
}

extension Completion {
  @inlinable
  var erased: ErasedCompletion {
    switch self {
    case .success(let value): return .result(.success(value))
    case .fail(let error): return .result(.fail(error))
    case .cancelled: return .result(.cancelled)
    case .completeUsing(let future): return .using(future)
    }
  }
}
