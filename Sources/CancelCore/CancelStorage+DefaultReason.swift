extension CancelStorage {
  /// Cancels with the shared default reason (`CancellationError()`), as `CancelSource.cancel()`
  /// does; returns whether this call cancelled.
  ///
  /// For facades' owner objects that hold a storage directly: compiled inside the core, the
  /// cancellation is inlined here as it is in `CancelSource.cancel()`, so a facade's `cancel()`
  /// costs one call, exactly like the core's (calling `cancel(reason:)` from another module with
  /// the default reason costs more per create+cancel+free).
  package func cancelWithDefaultReason() -> Bool {
    cancel(reason: defaultCancellationReason)
  }
}
