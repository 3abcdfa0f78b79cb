import Foundation
import Testing

@testable import Events

@Suite struct TimestampTests {
  /// The log form of `milliseconds`, worked out by counting whole years and months from 1970:
  /// the naive oracle for the closed-form calendar arithmetic.
  static func referenceLogForm(_ milliseconds: Int64) -> String {
    func isLeap(_ year: Int64) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }
    var days = milliseconds / 86_400_000
    var millisecondOfDay = milliseconds % 86_400_000
    if millisecondOfDay < 0 {
      days -= 1
      millisecondOfDay += 86_400_000
    }
    var year: Int64 = 1970
    while days < 0 {
      year -= 1
      days += isLeap(year) ? 366 : 365
    }
    while days >= (isLeap(year) ? 366 : 365) {
      days -= isLeap(year) ? 366 : 365
      year += 1
    }
    let monthLengths: [Int64] = [
      31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
    ]
    var month = 0
    while days >= monthLengths[month] {
      days -= monthLengths[month]
      month += 1
    }
    func padded(_ value: Int64, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: width - digits.count) + digits
    }
    return "\(padded(year, 4))-\(padded(Int64(month + 1), 2))-\(padded(days + 1, 2))T"
      + "\(padded(millisecondOfDay / 3_600_000, 2)):\(padded(millisecondOfDay / 60_000 % 60, 2)):"
      + "\(padded(millisecondOfDay / 1000 % 60, 2)).\(padded(millisecondOfDay % 1000, 3))Z"
  }

  static func parseLogForm(_ text: String) -> Timestamp? {
    Array(text.utf8).withUnsafeBufferPointer { Timestamp.parseLogForm($0) }
  }

  @Test(arguments: [
    (0 as Int64, "1970-01-01T00:00:00.000Z"),
    (-1, "1969-12-31T23:59:59.999Z"),
    (1_497_463_203_123, "2017-06-14T18:00:03.123Z"),
    (-14_182_940_000, "1969-07-20T20:17:40.000Z"),
    (951_782_400_000, "2000-02-29T00:00:00.000Z"),
    (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
    (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
  ])
  func logFormOfKnownInstants(milliseconds: Int64, text: String) {
    let timestamp = Timestamp(millisecondsSince1970: milliseconds)
    #expect(timestamp.description == text)
    #expect(Self.parseLogForm(text) == timestamp)
    var bytes = Array("at=".utf8)
    timestamp.appendText(to: &bytes)
    #expect(bytes == Array(("at=" + text).utf8))
  }

  @Test func logFormRoundTripsRandomInstantsOfEveryYear() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let range = Timestamp.earliest.millisecondsSince1970...Timestamp.latest.millisecondsSince1970
    for _ in 0..<(slowTestsEnabled ? 100_000 : 2000) {
      let timestamp = Timestamp(millisecondsSince1970: Int64.random(in: range, using: &random))
      let text = timestamp.description
      #expect(text == Self.referenceLogForm(timestamp.millisecondsSince1970), "seed \(seed)")
      #expect(Self.parseLogForm(text) == timestamp, "\(text), seed \(seed)")
      #expect(Timestamp(timestamp.date) == timestamp, "\(text), seed \(seed)")
    }
  }

  @Test func everyDayAroundTheEpochAndCenturyLeapRulesMatchesReference() {
    // Day by day from 0000-01-01, 1900-01-01, 1966-12-28 and 1999-01-01, for over three years.
    for startYearDays in [-719_528, -25_567, -1100, 10_592] as [Int64] {
      for day in startYearDays..<(startYearDays + 1200) {
        let timestamp = Timestamp(millisecondsSince1970: day * 86_400_000 + 45_296_789)
        #expect(timestamp.description == Self.referenceLogForm(timestamp.millisecondsSince1970))
        #expect(Self.parseLogForm(timestamp.description) == timestamp)
      }
    }
  }

  @Test(arguments: [
    ("2000-02-29T12:00:00.000Z", true), ("2024-02-29T00:00:00.000Z", true),
    ("2400-02-29T00:00:00.000Z", true), ("0000-02-29T00:00:00.000Z", true),
    ("1900-02-29T00:00:00.000Z", false), ("2100-02-29T00:00:00.000Z", false),
    ("2023-02-29T00:00:00.000Z", false), ("2024-02-30T00:00:00.000Z", false),
  ])
  func leapDaysFollowTheGregorianRules(text: String, isValid: Bool) {
    #expect((Self.parseLogForm(text) != nil) == isValid)
    #expect((Timestamp.parseISO8601(text) != nil) == isValid)
  }

  @Test(arguments: [
    "2017-06-14T18:00:03.123", "2017-06-14T18:00:03.123z", "2017-06-14T18:00:03Z",
    "2017-06-14 18:00:03.123Z", "2017-06-14T18:00:03.123+00:00", " 017-06-14T18:00:03.123Z",
    "2017-13-14T18:00:03.123Z", "2017-00-14T18:00:03.123Z", "2017-06-31T18:00:03.123Z",
    "2017-06-00T18:00:03.123Z", "2017-06-14T24:00:00.000Z", "2017-06-14T18:60:03.123Z",
    "2017-06-14T18:00:60.000Z", "2017-06-14T18:00:03.1a3Z", "2017/06/14T18:00:03.123Z",
    "+017-06-14T18:00:03.123Z", "2017-06-14T18:00:03.123ZZ", "",
  ])
  func logFormParserRejectsAnythingElse(text: String) {
    #expect(Self.parseLogForm(text) == nil)
  }

  @Test(arguments: [
    ("2017-06-14T18:00:03Z", 1_497_463_203_000 as Int64),
    ("2017-06-14T18:00:03.5Z", 1_497_463_203_500),
    ("2017-06-14T18:00:03.123Z", 1_497_463_203_123),
    ("2017-06-14T18:00:03.123999Z", 1_497_463_203_123),
    ("2017-06-14T18:00:03,25Z", 1_497_463_203_250),
    ("2017-06-14T18:00:03+02:00", 1_497_456_003_000),
    ("2017-06-14T18:00:03+0200", 1_497_456_003_000),
    ("2017-06-14T18:00:03+02", 1_497_456_003_000),
    ("2017-06-14T18:00:03-05:30", 1_497_483_003_000),
    ("2017-06-14T18:00:03-0530", 1_497_483_003_000),
    ("2017-06-14T18:00:03.250-05:30", 1_497_483_003_250),
    ("2017-06-14 18:00:03Z", 1_497_463_203_000),
    ("2017-06-14t18:00:03z", 1_497_463_203_000),
    ("2017-06-14T18:00Z", 1_497_463_200_000),
    ("2017-06-14T18:00", 1_497_463_200_000),
    ("2017-06-14T18:00:03", 1_497_463_203_000),
    ("2017-06-14", 1_497_398_400_000),
    ("1969-07-20T20:17:40Z", -14_182_940_000),
    ("0000-01-01T00:00:00Z", -62_167_219_200_000),
    ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
  ])
  func parseISO8601AcceptsCommonForms(text: String, milliseconds: Int64) {
    #expect(Timestamp.parseISO8601(text) == Timestamp(millisecondsSince1970: milliseconds))
  }

  @Test func parseISO8601AppliesDefaultOffsetOnlyWithoutAZone() {
    #expect(
      Timestamp.parseISO8601("2017-06-14T18:00:03", defaultOffsetMinutes: 120)
        == Timestamp(millisecondsSince1970: 1_497_456_003_000))
    #expect(
      Timestamp.parseISO8601("2017-06-14T18:00:03Z", defaultOffsetMinutes: 120)
        == Timestamp(millisecondsSince1970: 1_497_463_203_000))
    #expect(
      Timestamp.parseISO8601("2017-06-14T18:00:03-05:30", defaultOffsetMinutes: 120)
        == Timestamp(millisecondsSince1970: 1_497_483_003_000))
    #expect(Timestamp.parseISO8601("2017-06-14T18:00:03", defaultOffsetMinutes: nil) == nil)
    #expect(
      Timestamp.parseISO8601("2017-06-14T18:00:03Z", defaultOffsetMinutes: nil)
        == Timestamp(millisecondsSince1970: 1_497_463_203_000))
  }

  @Test func parseISO8601TakesADateAloneAsMidnightAtTheDefaultOffset() {
    #expect(
      Timestamp.parseISO8601("2017-06-14", defaultOffsetMinutes: 120)
        == Timestamp(millisecondsSince1970: 1_497_391_200_000))
    #expect(
      Timestamp.parseISO8601("2017-06-14", defaultOffsetMinutes: nil)
        == Timestamp(millisecondsSince1970: 1_497_398_400_000))
  }

  @Test(arguments: [
    "", "2017", "2017-06", "2017-6-14", "17-06-14", "2017-06-14T", "2017-06-14T18",
    "2017-06-14T18:0", "2017-06-14T18:00:3Z", "2017-06-14T18:00:03.Z", "2017-06-14T18:00:03.",
    "2017-06-14T25:00:00Z", "2017-06-14T18:61:00Z", "2017-06-14T18:00:60Z", "2017-02-30",
    "2017-06-14T18:00:03+24:00", "2017-06-14T18:00:03+02:60", "2017-06-14T18:00:03+2",
    "2017-06-14T18:00:03+02:", "2017-06-14T18:00:03+02:0", "2017-06-14T18:00:03+020",
    "2017-06-14T18:00:03Zjunk", "2017-06-14T18:00:03 Z", " 2017-06-14", "2017-06-14 ",
    "2017-06-14X18:00:03Z", "10000-01-01", "0000-01-01T00:30:00+01:00",
    "9999-12-31T23:59:59-00:01", "２０１７-06-14",
  ])
  func parseISO8601RejectsMalformedOrOutOfRangeText(text: String) {
    #expect(Timestamp.parseISO8601(text) == nil)
  }

  @Test(arguments: [
    (1.0006, 1001 as Int64), (1.0004, 1000), (-0.0004, 0), (-0.0006, -1), (0, 0),
    (1_497_463_203.1234, 1_497_463_203_123), (1_497_463_203.1236, 1_497_463_203_124),
    (-14_182_939.9996, -14_182_940_000),
  ])
  func initFromDateRoundsToTheNearestMillisecond(seconds: Double, milliseconds: Int64) {
    let timestamp = Timestamp(Date(timeIntervalSince1970: seconds))
    #expect(timestamp.millisecondsSince1970 == milliseconds)
  }

  @Test func dateOfTimestampIsTheSameInstant() {
    let timestamp = Timestamp(millisecondsSince1970: 1_497_463_203_123)
    #expect(timestamp.date.timeIntervalSince1970 == 1_497_463_203.123)
  }

  @Test func instantsOrderByTime() {
    let earlier = Timestamp(millisecondsSince1970: -1)
    let later = Timestamp(millisecondsSince1970: 0)
    #expect(earlier < later)
    #expect(!(later < earlier))
    #expect(Timestamp.earliest < Timestamp.latest)
    #expect([later, Timestamp.latest, earlier].sorted() == [earlier, later, Timestamp.latest])
  }

  @Test func logFormClampsInstantsOutsideTheFourDigitYears() {
    #expect(Timestamp(millisecondsSince1970: .max).description == "9999-12-31T23:59:59.999Z")
    #expect(Timestamp(millisecondsSince1970: .min).description == "0000-01-01T00:00:00.000Z")
  }

  /// A `Date` outside the years 0000-9999 (a library user's, or a property list's) never
  /// traps: `init(_:)` holds it to the nearer end, `init(exactly:)` refuses it.
  @Test func datesOutsideTheYearsATimestampHoldsNeitherTrapNorWrap() {
    let far = Date(timeIntervalSince1970: 1e300)
    let before = Date(timeIntervalSince1970: -1e300)
    let notANumber = Date(timeIntervalSince1970: .nan)
    #expect(Timestamp(far) == .latest)
    #expect(Timestamp(before) == .earliest)
    #expect(Timestamp(notANumber) == .earliest)
    #expect(Timestamp(exactly: far) == nil)
    #expect(Timestamp(exactly: before) == nil)
    #expect(Timestamp(exactly: notANumber) == nil)
    let now = Date(timeIntervalSince1970: 1_790_000_000.1234)
    #expect(Timestamp(exactly: now) == Timestamp(millisecondsSince1970: 1_790_000_000_123))
    #expect(Timestamp(now) == Timestamp(millisecondsSince1970: 1_790_000_000_123))
  }
}
