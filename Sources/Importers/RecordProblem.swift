import Events
import Foundation

/// Why one record of a source (or one entry of it) cannot be imported: which record, which
/// field, the value found there, and what was expected.
///
/// `description` is one line:
///
///     contact record 2 (id '19', name 'Winnie-the-Pooh'): field 'birthdate': "1988-02-30" — expected a date as YYYY-MM-DD (e.g. 1987-05-11) that exists in the calendar
///
/// - Note: `index` counts records from 1 in source order (the second element of the array is
///   record 2); indexes inside a field path count from 0, as JSON paths do (`ZipCodes[0]` is a
///   state's first zip code).
package struct RecordProblem: Sendable, Equatable, CustomStringConvertible {
  /// The kind of source.
  public var kind: ImportKind
  /// The record's position in the source, from 1.
  public var index: Int
  /// What identifies the record, when the source gives it (`id '13', name 'Miss Piggy'`).
  public var label: String?
  /// The field's path in the record (`birthdate`, `phone.work`, `geometry.coordinates[1]`,
  /// `ZipCodes[3]`); empty when the record as a whole is wrong (not an object).
  public var field: String
  /// The value found, rendered as JSON (`"1988-02-30"`, `null`, `42`), or `missing`.
  public var value: String
  /// What was expected, and the fix when one is known.
  public var reason: String
  /// Whether the whole record is left out (`true`), or only this entry of it (`false`: one
  /// invalid zip code of a state that is otherwise imported).
  public var rejectsRecord = true

  /// `contact record 2 (id '19')`: the record, named for messages.
  public var recordName: String {
    "\(kind.recordNoun) record \(index)" + (label.map { " (\($0))" } ?? "")
  }

  public var description: String {
    let place = field.isEmpty ? "the record is" : "field '\(field)':"
    return "\(recordName): \(place) \(value) — \(reason)"
  }
}

extension RecordProblem {
  /// How a JSON value (or its absence) is shown in a problem.
  static func render(_ value: JSONValue?) -> String {
    value?.snippet ?? "missing"
  }

  /// The reason a domain value was refused: `expected ...`, keeping a hint the domain adds
  /// after the value it found (`(4 digits; leading zeros may have been lost)`).
  static func reason(from error: EventsError) -> String {
    switch error {
    case .invalidValue(let expected, let found),
      .invalidCommand(_, _, let expected, let found):
      return "expected \(expected)" + hint(in: found)
    default:
      return error.description
    }
  }

  /// The parenthesised hint after a quoted value (`'3500' (4 digits; ...)`), with its leading
  /// space, or an empty string.
  private static func hint(in found: String) -> String {
    guard found.hasSuffix(")"), let quoteEnd = found.range(of: "' (", options: .backwards) else {
      return ""
    }
    return String(found[found.index(after: quoteEnd.lowerBound)...])
  }
}
