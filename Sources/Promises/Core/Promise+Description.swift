extension Promise: CustomStringConvertible, CustomDebugStringConvertible {
  /// `Promise(…T)` while pending (`T` is the value type), `Promise(<value>)` or
  /// `Promise(<error>)` once resolved: PromiseKit's format.
  public var description: String {
    switch result {
    case nil: return "Promise(…\(T.self))"
    case .fulfilled(let value)?: return "Promise(\(value))"
    case .rejected(let error)?: return "Promise(\(error))"
    }
  }

  /// `Promise<T>.pending(handlers: n)` (`n` handlers waiting), `Promise<T>.fulfilled(<value>)`
  /// or `Promise<T>.rejected(<error type>.<error>)`: PromiseKit's format.
  public var debugDescription: String {
    let (result, waiting) = lock.withLock { (stored, machine.waitingCount) }
    switch result {
    case nil: return "Promise<\(T.self)>.pending(handlers: \(waiting))"
    case .success(let value)?: return "Promise<\(T.self)>.fulfilled(\(value))"
    case .failure(let error)?: return "Promise<\(T.self)>.rejected(\(type(of: error)).\(error))"
    }
  }
}

extension Guarantee: CustomStringConvertible, CustomDebugStringConvertible {
  /// `Guarantee(…T)` while pending (`T` is the value type), else `Guarantee(<value>)`.
  public var description: String {
    value.map { "Guarantee(\($0))" } ?? "Guarantee(…\(T.self))"
  }

  /// `Guarantee<T>.pending(handlers: n)` (`n` handlers waiting) or
  /// `Guarantee<T>.fulfilled(<value>)`.
  public var debugDescription: String {
    let (value, waiting) = lock.withLock { (stored, machine.waitingCount) }
    if let value { return "Guarantee<\(T.self)>.fulfilled(\(value))" }
    return "Guarantee<\(T.self)>.pending(handlers: \(waiting))"
  }
}
