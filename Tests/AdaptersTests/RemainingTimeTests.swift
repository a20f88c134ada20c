import Adapters
import Testing

@Suite("RemainingTime: a deadline's time left, as it crosses a process boundary")
struct RemainingTimeTests {
  @Test(arguments: [
    ("300m", Duration.milliseconds(300)), ("5S", .seconds(5)), ("2M", .seconds(120)), ("1H", .seconds(3_600)),
    ("7u", .microseconds(7)), ("9n", .nanoseconds(9)), ("0n", .zero), (" 10m\t", .milliseconds(10)),
    ("00000001S", .seconds(1)), ("99999999H", .seconds(Int64(99_999_999) * 3_600)),
  ])
  func readsGRPCsTextForm(text: String, expected: Duration) {
    #expect(RemainingTime(headerValue: text)?.duration == expected)
  }

  @Test(arguments: ["", "m", "S", "-5m", "+5m", "1.5S", "123456789m", "5s", "5x", "5 m", "5mm", "five S", "٣S"])
  func ignoresWhatIsNotOfThatForm(text: String) {
    #expect(RemainingTime(headerValue: text) == nil)
  }

  @Test(arguments: [
    (Duration.zero, "0n"), (.nanoseconds(99_999_999), "99999999n"), (.milliseconds(300), "300000u"),
    (.seconds(5), "5000000u"), (.seconds(3_600), "3600000m"), (.seconds(1_000_000), "1000000S"),
    (.seconds(100 * 365 * 86_400), "52560000M"), (.seconds(Int64(99_999_999) * 3_600), "99999999H"),
  ])
  func writesTheFinestUnitThatFitsInEightDigits(duration: Duration, text: String) {
    #expect(RemainingTime(duration).headerValue == text)
  }

  @Test(arguments: [
    Duration.nanoseconds(123_456_789), .milliseconds(1_234_567), .seconds(98_765_432), .seconds(7 * 86_400 + 1),
    .seconds(1) + .nanoseconds(1),
  ])
  func theTextFormRoundsDownSoTheReceiverNeverWaitsLonger(duration: Duration) throws {
    let read = try #require(RemainingTime(headerValue: RemainingTime(duration).headerValue))
    #expect(read.duration <= duration)
    // Less than one unit of the text form is lost: the finest unit that fits leaves at least five
    // digits, so at most a hundred-thousandth of the time left.
    #expect(duration - read.duration <= max(duration / 100_000, .nanoseconds(1)))
  }

  @Test func clampsToZeroAndToTheLargestValue() {
    #expect(RemainingTime(.seconds(-5)).duration == .zero)
    #expect(RemainingTime(.seconds(-5)).headerValue == "0n")
    #expect(RemainingTime(.seconds(Int64.max)) == RemainingTime.maximum)
    #expect(RemainingTime(.seconds(Int64.max)).headerValue == "99999999H")
  }

  @Test func convertsBetweenInstantsAndTimeLeft() {
    let now = ContinuousClock.now
    #expect(RemainingTime(until: now + .seconds(3), now: now).duration == .seconds(3))
    #expect(RemainingTime(until: now - .seconds(3), now: now).duration == .zero)
    #expect(RemainingTime(.milliseconds(250)).deadline(from: now) == now + .milliseconds(250))
  }
}
