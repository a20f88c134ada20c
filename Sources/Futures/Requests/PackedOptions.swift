/// An optional `CancellationOptions` in one byte (options with bits above the seventh are kept in
/// `FutureExtras.requested`), so that every future keeps its request state inline.
struct PackedOptions: Equatable, Sendable {
  /// 0: none; `0x80 | rawValue` for a raw value below 0x7F; `spilled`: see `FutureExtras`.
  let bits: UInt8

  static let none = PackedOptions(bits: 0)
  static let spilled = PackedOptions(bits: 0xFF)

  private init(bits: UInt8) {
    self.bits = bits
  }

  /// `options` packed; `nil` if they do not fit.
  init?(_ options: CancellationOptions?) {
    guard let options else {
      bits = 0
      return
    }
    guard options.rawValue >= 0 && options.rawValue < 0x7F else { return nil }
    bits = 0x80 | UInt8(options.rawValue)
  }

  var isSpilled: Bool { self == .spilled }

  /// The options, unless spilled or none.
  var options: CancellationOptions? {
    bits == 0 ? nil : CancellationOptions(rawValue: Int(bits & 0x7F))
  }
}
