extension Duration {
  /// The longest `Duration` (`Int128.max` attoseconds, about 1.7 × 10²⁰ seconds), built without
  /// `init(attoseconds:)`, which Apple platforms before 26 lack.
  public static var greatest: Duration {
    Duration(secondsComponent: 8_954_799_129_498_380_617, attosecondsComponent: 457_226_511_362_321_354) * 19
      + Duration(secondsComponent: 0, attosecondsComponent: 1)
  }

  /// The most negative `Duration` (`Int128.min` attoseconds).
  public static var least: Duration { .zero - greatest - Duration(secondsComponent: 0, attosecondsComponent: 1) }
}
