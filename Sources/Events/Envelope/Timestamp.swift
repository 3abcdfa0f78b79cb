import Foundation

/// An instant with millisecond precision, as the log stores it in `at`:
/// `2026-11-22T10:15:00.000Z` (UTC, always 24 characters).
///
/// Kept as an integer so that the read path parses and compares it without `Date` arithmetic or a
/// formatter; convert with `date` and `init(_:)` at the edges.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// Milliseconds since 1970-01-01T00:00:00Z.
  public var millisecondsSince1970: Int64

  /// The earliest instant the log's text form can hold (year 0000).
  public static let earliest = Timestamp(millisecondsSince1970: -62_167_219_200_000)
  /// The latest instant the log's text form can hold (the last millisecond of year 9999).
  public static let latest = Timestamp(millisecondsSince1970: 253_402_300_799_999)

  public init(millisecondsSince1970: Int64) {
    self.millisecondsSince1970 = millisecondsSince1970
  }

  /// The instant of `date`, rounded to the nearest millisecond, and held within the years
  /// 0000-9999 (``earliest`` ... ``latest``): a date outside them (or not a number) becomes
  /// the nearer end. Use ``init(exactly:)`` to refuse such dates instead.
  public init(_ date: Date) {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    if milliseconds.isNaN || milliseconds < Double(Self.earliest.millisecondsSince1970) {
      millisecondsSince1970 = Self.earliest.millisecondsSince1970
    } else if milliseconds > Double(Self.latest.millisecondsSince1970) {
      millisecondsSince1970 = Self.latest.millisecondsSince1970
    } else {
      millisecondsSince1970 = Int64(milliseconds)
    }
  }

  /// The instant of `date`, rounded to the nearest millisecond, or `nil` when it is outside
  /// the years 0000-9999 or not a number.
  public init?(exactly date: Date) {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    guard milliseconds >= Double(Self.earliest.millisecondsSince1970),
      milliseconds <= Double(Self.latest.millisecondsSince1970)
    else { return nil }
    millisecondsSince1970 = Int64(milliseconds)
  }

  /// This instant as a `Date`.
  public var date: Date {
    Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.millisecondsSince1970 < rhs.millisecondsSince1970
  }

  /// The log's form, `YYYY-MM-DDTHH:MM:SS.sssZ`.
  public var description: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    appendText(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the log's 24-character form to `bytes`.
  /// - Precondition: the instant lies within years 0000-9999 (`earliest...latest`); clocks and
  ///   parsers only produce such instants.
  public func appendText(to bytes: inout [UInt8]) {
    let clamped = min(max(self, .earliest), .latest).millisecondsSince1970
    let (days, millisecondOfDay) = Self.floorDivide(clamped, 86_400_000)
    let (year, month, day) = Self.civil(fromDays: days)
    let hour = millisecondOfDay / 3_600_000
    let minute = millisecondOfDay / 60_000 % 60
    let second = millisecondOfDay / 1000 % 60
    let millisecond = millisecondOfDay % 1000
    // Written into a fixed 24 bytes and appended once: an append per character checks the
    // array's capacity and uniqueness each time, ten times the cost of the digits.
    withUnsafeTemporaryAllocation(byteCount: 24, alignment: 1) { out in
      Self.writeDate(year: year, month: month, day: day, into: out)
      out[10] = 0x54
      Self.writeDigits(hour, count: 2, into: out, at: 11)
      out[13] = 0x3A
      Self.writeDigits(minute, count: 2, into: out, at: 14)
      out[16] = 0x3A
      Self.writeDigits(second, count: 2, into: out, at: 17)
      out[19] = 0x2E
      Self.writeDigits(millisecond, count: 3, into: out, at: 20)
      out[23] = 0x5A
      bytes.append(contentsOf: UnsafeRawBufferPointer(out))
    }
  }

  /// Writes `YYYY-MM-DD` into the first 10 bytes of `out` (the time's date, and
  /// ``CalendarDate``'s text).
  /// - Precondition: `year` is 0...9999, `month` and `day` two digits; `out` holds 10 bytes.
  static func writeDate(
    year: Int64, month: Int64, day: Int64, into out: UnsafeMutableRawBufferPointer
  ) {
    writeDigits(year, count: 4, into: out, at: 0)
    out[4] = 0x2D
    writeDigits(month, count: 2, into: out, at: 5)
    out[7] = 0x2D
    writeDigits(day, count: 2, into: out, at: 8)
  }

  /// Writes the last `count` decimal digits of `value` (≥ 0), zero-padded, at `start`.
  private static func writeDigits(
    _ value: Int64, count: Int, into out: UnsafeMutableRawBufferPointer, at start: Int
  ) {
    var rest = value
    for place in stride(from: start + count - 1, through: start, by: -1) {
      out[place] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
    }
  }

  /// Parses the log's exact form (`YYYY-MM-DDTHH:MM:SS.sssZ`); `nil` for anything else.
  /// This is the read path's parser: no allocation, no formatter.
  @inlinable
  package static func parseLogForm(_ utf8: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard utf8.count == 24, utf8[4] == 0x2D, utf8[7] == 0x2D, utf8[10] == 0x54, utf8[13] == 0x3A,
      utf8[16] == 0x3A, utf8[19] == 0x2E, utf8[23] == 0x5A
    else { return nil }
    func number(_ start: Int, _ count: Int) -> Int64? {
      var value: Int64 = 0
      for index in start..<(start + count) {
        let digit = utf8[index] &- 0x30
        guard digit < 10 else { return nil }
        value = value * 10 + Int64(digit)
      }
      return value
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      let millisecond = number(20, 3)
    else { return nil }
    return make(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second,
      millisecond: millisecond, offsetMinutes: 0)
  }

  /// Parses ISO 8601 as people write it: `2017-06-14T18:00:03Z`, with or without seconds and a
  /// fraction (digits past milliseconds are dropped), `Z` or a `±HH:MM`, `±HHMM` or `±HH` offset,
  /// a space instead of `T`, or a date alone (midnight).
  /// Without a zone designator, `defaultOffsetMinutes` applies (minutes east of UTC); when it is
  /// `nil`, a time without a zone is rejected and a date alone means midnight UTC.
  public static func parseISO8601(_ text: String, defaultOffsetMinutes: Int? = 0) -> Timestamp? {
    let utf8 = Array(text.utf8)
    var index = 0
    func digits(_ count: Int) -> Int64? {
      guard index + count <= utf8.count else { return nil }
      var value: Int64 = 0
      for offset in 0..<count {
        let digit = utf8[index + offset] &- 0x30
        guard digit < 10 else { return nil }
        value = value * 10 + Int64(digit)
      }
      index += count
      return value
    }
    func take(_ byte: UInt8) -> Bool {
      guard index < utf8.count, utf8[index] == byte else { return false }
      index += 1
      return true
    }
    guard let year = digits(4), take(0x2D), let month = digits(2), take(0x2D), let day = digits(2)
    else { return nil }
    var hour: Int64 = 0
    var minute: Int64 = 0
    var second: Int64 = 0
    var millisecond: Int64 = 0
    var offset: Int64? = defaultOffsetMinutes.map(Int64.init)
    if index < utf8.count {
      guard take(0x54) || take(0x74) || take(0x20), let parsedHour = digits(2), take(0x3A),
        let parsedMinute = digits(2)
      else { return nil }
      hour = parsedHour
      minute = parsedMinute
      if take(0x3A) {
        guard let parsedSecond = digits(2) else { return nil }
        second = parsedSecond
        if take(0x2E) || take(0x2C) {
          var scale: Int64 = 100
          var fractionDigits = 0
          while index < utf8.count, utf8[index] &- 0x30 < 10 {
            millisecond += Int64(utf8[index] - 0x30) * scale
            scale /= 10
            index += 1
            fractionDigits += 1
          }
          guard fractionDigits > 0 else { return nil }
        }
      }
      if take(0x5A) || take(0x7A) {
        offset = 0
      } else if index < utf8.count, utf8[index] == 0x2B || utf8[index] == 0x2D {
        let sign: Int64 = utf8[index] == 0x2D ? -1 : 1
        index += 1
        guard let offsetHours = digits(2) else { return nil }
        let offsetMinutes: Int64
        if take(0x3A) {
          // `+02:` is a typo, not `+02`.
          guard let parsedMinutes = digits(2) else { return nil }
          offsetMinutes = parsedMinutes
        } else {
          offsetMinutes = digits(2) ?? 0
        }
        guard offsetHours < 24, offsetMinutes < 60 else { return nil }
        offset = sign * (offsetHours * 60 + offsetMinutes)
      }
    } else {
      offset = offset ?? 0
    }
    guard index == utf8.count, let offset else { return nil }
    return make(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second,
      millisecond: millisecond, offsetMinutes: offset)
  }

  /// Builds an instant from calendar fields, or `nil` when a field is out of range.
  @usableFromInline
  static func make(
    year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64,
    millisecond: Int64, offsetMinutes: Int64
  ) -> Timestamp? {
    guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
      hour < 24, minute < 60, second < 60, millisecond < 1000
    else { return nil }
    let days = Self.days(fromCivil: year, month, day)
    let milliseconds =
      days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond
      - offsetMinutes * 60_000
    let result = Timestamp(millisecondsSince1970: milliseconds)
    guard result >= .earliest, result <= .latest else { return nil }
    return result
  }

  @usableFromInline
  static func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  @usableFromInline
  static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01.
  static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
    var quotient = value / divisor
    var remainder = value % divisor
    if remainder < 0 {
      quotient -= 1
      remainder += divisor
    }
    return (quotient, remainder)
  }
}
