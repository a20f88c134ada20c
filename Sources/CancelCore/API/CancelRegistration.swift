/// The handle a registration returns: it can remove its handler before the handler runs.
///
/// Handles are small values; copies refer to the same registration. Dropping a handle does not
/// unregister anything.
public struct CancelRegistration: Sendable {
  @usableFromInline let storage: CancelStorage?
  @usableFromInline let key: RegistrationKey

  @usableFromInline init(storage: CancelStorage?, key: RegistrationKey) {
    self.storage = storage
    self.key = key
  }

  /// A handle that refers to nothing, returned when the handler already ran (or was released)
  /// at registration because the source had already ended. `unregister()` on it returns `false`.
  public static let inert = CancelRegistration(storage: nil, key: RegistrationKey.none)

  /// Whether this handle refers to a registration (it may since have run or been removed).
  package var isActive: Bool { storage != nil }

  /// Removes the handler if it has not started yet.
  ///
  /// O(1), and never blocks: if the handler is running right now on another thread, this returns
  /// `false` at once without waiting for it. It is safe to call from inside the handler itself,
  /// any number of times, from any thread.
  ///
  /// - Returns: `true` if this call removed the handler, which will then never run; `false` if it
  ///   had already run, is running, was released because the source closed, or was removed before.
  @discardableResult
  public func unregister() -> Bool {
    guard let storage else { return false }
    return storage.unregister(key)
  }
}
