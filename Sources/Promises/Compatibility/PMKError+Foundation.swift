import Foundation

extension PMKError: LocalizedError {
  /// The same text as ``debugDescription``, so `localizedDescription` reads well.
  public var errorDescription: String? {
    debugDescription
  }
}
