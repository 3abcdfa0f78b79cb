import Engine
import Events
import Projections

/// The arguments `history`, `diff` and `export` share: a read model's name and points of the
/// log.
enum ReadModelArguments {
  /// `<model>`: one of the five read models.
  static let model = Argument(
    name: "model",
    help: "The read model: " + listing(ReadModels.modelNames, conjunction: "or") + ".")

  /// What a point looks like, for help and errors.
  static let pointExpectation =
    "expected a seq (a whole number ≥ 0) or an ISO 8601 time such as 2026-11-03T14:00:00Z"

  /// Names people may type for a model, and the model they mean: the import kinds and the
  /// command names.
  static let aliases: [String: String] = [
    "states": ZipCodeList.name, "state": ZipCodeList.name, "zips": ZipCodeList.name,
    "zoo": AnimalCatalog.name,
  ]

  /// Declares an option whose value is a point given as a seq or an ISO 8601 time (`--from`,
  /// `--to`): a seq is the state after that event (0: before any); a time is the state after
  /// every event whose `at` is at or before it (`--as-of`). A time without a zone is UTC.
  ///
  /// - Parameters:
  ///   - names: The names, such as `["--from"]`.
  ///   - valueName: The value placeholder, such as `point`.
  ///   - help: One line of help.
  ///   - defaultDescription: What help shows as the default.
  ///   - isRequired: Whether the option must be given.
  /// - Returns: The declaration.
  static func point(
    names: [String], valueName: String, help: String, defaultDescription: String? = nil,
    isRequired: Bool = false
  ) -> ValueOption<ReplayPoint> {
    ValueOption(
      names: names, valueName: valueName, help: help, defaultDescription: defaultDescription,
      isRequired: isRequired, expecting: pointExpectation
    ) { text in
      if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        return Int64(text).map { .sequence($0) }
      }
      return ParsedInvocation.instant(text).map { .instant($0) }
    }
  }

  /// `a, b or c`.
  static func listing(_ items: [String], conjunction: String) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
  }
}

extension ParsedInvocation {
  /// `<model>`, which must name a read model; a usage error suggests the closest name.
  func readModelName() throws(UsageError) -> String {
    try readModelName(requiredValue("model"))
  }

  /// `<model>` when given (`state` takes it optionally); `nil` when left out.
  func optionalReadModelName() throws(UsageError) -> String? {
    guard let text = argument("model") else { return nil }
    return try readModelName(text)
  }

  private func readModelName(_ text: String) throws(UsageError) -> String {
    if ReadModels.modelNames.contains(text) { return text }
    let suggestion =
      ReadModelArguments.aliases[text.lowercased()]
      ?? SpellingSuggestion.closest(to: text.lowercased(), among: ReadModels.modelNames)
    let models = ReadModelArguments.listing(ReadModels.modelNames, conjunction: "or")
    throw UsageError.invalidValue(
      text, for: "<model>",
      reason: ": expected one of \(models)" + (suggestion.map { ". Did you mean '\($0)'?" } ?? ""),
      help: ReadModelArguments.model.help)
  }

  /// An ISO 8601 time within the years 0000-9999; without a zone, UTC.
  static func instant(_ text: String) -> Timestamp? {
    guard let instant = Timestamp.parseISO8601(text), instant >= .earliest, instant <= .latest
    else { return nil }
    return instant
  }
}

extension ReplayPoint {
  /// The point for people: `seq 137`, or the time in the log's form; `.end` as the seq it
  /// reached.
  func text(lastSequence: Int64) -> String {
    switch self {
    case .end: "seq \(lastSequence)"
    case .sequence(let sequence): "seq \(sequence)"
    case .instant(let instant): instant.description
    }
  }

  /// `{"seq": 137}` or `{"time": "2026-11-03T14:00:00.000Z"}`; `.end` as the seq it reached.
  func write(to writer: inout JSONWriter, lastSequence: Int64) {
    writer.beginObject()
    switch self {
    case .end:
      writer.member("seq", lastSequence)
    case .sequence(let sequence):
      writer.member("seq", sequence)
    case .instant(let instant):
      writer.member("time", instant.description)
    }
    writer.endObject()
  }
}

extension ReadModelEntry {
  /// The fields as `[{"name","value"}]`, the shape `state --id` and `diff` print.
  func writeFields(to writer: inout JSONWriter) {
    writer.beginArray()
    for field in fields {
      writer.beginObject()
      writer.member("name", field.name)
      writer.key("value")
      writer.fieldValue(field.value, kind: field.kind)
      writer.endObject()
    }
    writer.endArray()
  }
}

extension JSONWriter {
  /// `[{"<nameKey>", "before", "after"}]`: changed fields as `diff` (`name`) and `history`
  /// (`field`) print them; "before" or "after" is `null` when the entity did not have it.
  mutating func fieldDifferences(
    _ differences: [EntryDiff.FieldDifference], nameKey: StaticString
  ) {
    beginArray()
    for difference in differences {
      beginObject()
      member(nameKey, difference.name)
      key("before")
      fieldValue(difference.before, kind: difference.kind)
      key("after")
      fieldValue(difference.after, kind: difference.kind)
      endObject()
    }
    endArray()
  }

  /// An entry field's value in JSON: a boolean or number field as a JSON boolean or number,
  /// text as a string, an absent value as `null`.
  mutating func fieldValue(_ value: String?, kind: ReadModelEntry.Field.Kind) {
    guard let value else { return null() }
    switch kind {
    case .text: string(value)
    case .boolean: bool(value == "true")
    case .number: numberLiteral(value)
    }
  }
}
