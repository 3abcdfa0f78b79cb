import Events
import Projections

/// How audits and diffs show entries and changed fields as text, one line each:
/// `isFavorite: false → true`, `companyName: (none) → Muppets`, `zipCodes: 90001 → 90011`.
///
/// Values are shown as they are, except: an absent value is `(none)`, an empty one `(empty)`,
/// and control characters are escaped (`\n`, `\r`, `\t`, `\u{1B}`) so a value stays on its line.
///
/// **List fields** (zip codes' `zipCodes`, the zip codes joined by `, `) show only the part of
/// the list that changed, after the common beginning and end are taken off:
/// `zipCodes: added 90003`, `zipCodes: removed 99501`, `zipCodes: 90001 → 90011`. A state's
/// list can hold thousands of zip codes, and a history shows one change per zip code event.
package enum ChangeText {
  /// The fields of each model that hold a list joined by `listSeparator`.
  public static let listFields: [String: Set<String>] = [ZipCodeList.name: ["zipCodes"]]

  /// What joins the items of a list field.
  public static let listSeparator = ", "

  /// `name: value`.
  public static func field(_ field: ReadModelEntry.Field) -> String {
    field.name + ": " + value(field.value)
  }

  /// `name: before → after`, or for a list field of `model`, the part of the list that changed.
  public static func change(_ difference: EntryDiff.FieldDifference, model: String) -> String {
    let prefix = difference.name + ": "
    if listFields[model]?.contains(difference.name) == true, let before = difference.before,
      let after = difference.after
    {
      let (removed, added) = changedPart(from: items(before), to: items(after))
      switch (removed.isEmpty, added.isEmpty) {
      case (true, false): return prefix + "added " + joined(added)
      case (false, true): return prefix + "removed " + joined(removed)
      case (false, false): return prefix + joined(removed) + " → " + joined(added)
      case (true, true): break
      }
    }
    return prefix + value(difference.before) + " → " + value(difference.after)
  }

  /// A value for display: `(none)` when absent, `(empty)` when empty, control characters
  /// escaped.
  public static func value(_ text: String?) -> String {
    guard let text else { return "(none)" }
    if text.isEmpty { return "(empty)" }
    return escapingControlCharacters(text)
  }

  /// `text` with control characters (below U+0020, and U+007F) escaped: `\n`, `\r`, `\t`,
  /// others as `\u{1B}`.
  public static func escapingControlCharacters(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    return TextEscaping.replacing(text) { scalar in
      switch scalar {
      case "\n": "\\n"
      case "\r": "\\r"
      case "\t": "\\t"
      case _ where isControl(scalar):
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: nil
      }
    }
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F
  }

  private static func items(_ text: String) -> [Substring] {
    text.isEmpty ? [] : text.split(separator: listSeparator, omittingEmptySubsequences: false)
  }

  private static func joined(_ items: ArraySlice<Substring>) -> String {
    escapingControlCharacters(items.joined(separator: listSeparator))
  }

  /// The items between the common beginning and the common end of two lists.
  private static func changedPart(
    from before: [Substring], to after: [Substring]
  ) -> (removed: ArraySlice<Substring>, added: ArraySlice<Substring>) {
    var start = 0
    while start < before.count, start < after.count, before[start] == after[start] { start += 1 }
    var beforeEnd = before.count
    var afterEnd = after.count
    while beforeEnd > start, afterEnd > start, before[beforeEnd - 1] == after[afterEnd - 1] {
      beforeEnd -= 1
      afterEnd -= 1
    }
    return (before[start..<beforeEnd], after[start..<afterEnd])
  }
}

extension ReadModelEntry {
  /// What people call the entity, to show next to its id: its `name`, else its `title`, else
  /// its `englishName`; `nil` when it has none of these (a state's name is its id).
  public var label: String? {
    self["name"] ?? self["title"] ?? self["englishName"]
  }
}
