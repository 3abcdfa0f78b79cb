/// A day in the proleptic Gregorian calendar with no time and no zone, written `YYYY-MM-DD`:
/// a contact's birthdate.
public struct CalendarDate: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The year, 0 through 9999.
  public let year: Int
  /// The month, 1 through 12.
  public let month: Int
  /// The day of the month, 1 through 28, 29, 30 or 31.
  public let day: Int

  /// What a calendar date must look like, for messages.
  static let expectation = "a date as YYYY-MM-DD (e.g. 1987-05-11)"

  /// Creates a date from its fields.
  /// - Throws: `EventsError.invalidValue` when a field is out of range (`2023-02-29`).
  public init(year: Int, month: Int, day: Int) throws(EventsError) {
    guard (0...9999).contains(year), (1...12).contains(month), day >= 1,
      day <= Int(Timestamp.daysInMonth(year: Int64(year), month: Int64(month)))
    else {
      throw EventsError.invalidValue(
        expected: "an existing day of the Gregorian calendar, years 0000-9999",
        found: "year \(year), month \(month), day \(day)")
    }
    self.year = year
    self.month = month
    self.day = day
  }

  /// Parses `YYYY-MM-DD` exactly (four-digit year, two-digit month and day).
  /// - Throws: `EventsError.invalidValue` naming the text, e.g. for `1987-5-11` or `1987-02-30`.
  public init(_ text: String) throws(EventsError) {
    let utf8 = Array(text.utf8)
    func number(_ start: Int, _ count: Int) -> Int? {
      var value = 0
      for index in start..<(start + count) {
        let digit = utf8[index] &- 0x30
        guard digit < 10 else { return nil }
        value = value * 10 + Int(digit)
      }
      return value
    }
    guard utf8.count == 10, utf8[4] == 0x2D, utf8[7] == 0x2D, let year = number(0, 4),
      let month = number(5, 2), let day = number(8, 2)
    else {
      throw EventsError.invalidValue(
        expected: Self.expectation, found: DomainText.quoted(text))
    }
    do throws(EventsError) {
      try self.init(year: year, month: month, day: day)
    } catch {
      throw EventsError.invalidValue(
        expected: "\(Self.expectation) that exists in the calendar",
        found: DomainText.quoted(text))
    }
  }

  /// The date as `YYYY-MM-DD`.
  public var description: String {
    // Ten bytes written in place: a payload encodes its birthdate through this, once per
    // contact written.
    String(unsafeUninitializedCapacity: 10) { out in
      Timestamp.writeDate(
        year: Int64(year), month: Int64(month), day: Int64(day),
        into: UnsafeMutableRawBufferPointer(out))
      return 10
    }
  }

  public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }
}

extension CalendarDate: PayloadText {}
