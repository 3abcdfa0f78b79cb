import Events

/// Reads the fields of one source record, collecting a `RecordProblem` for every bad one
/// instead of stopping at the first, so a report lists everything wrong with the file at once.
///
/// Accessors return `nil` (or a default) for a bad field after recording its problem; the
/// record is valid when `problems(label:)` holds nothing that rejects it.
struct RecordFields {
  /// The kind of source.
  let kind: ImportKind
  /// The record's position, from 1.
  let index: Int
  /// The record's members.
  let object: JSONObject
  private var found: [(field: String, value: String, reason: String, rejectsRecord: Bool)] = []

  /// Starts reading record `index`; `nil`, with `problem` set, when it is not an object.
  static func reading(
    _ value: JSONValue, kind: ImportKind, index: Int, expected: String
  ) -> (fields: RecordFields?, problem: RecordProblem?) {
    guard case .object(let object) = value else {
      let problem = RecordProblem(
        kind: kind, index: index, label: nil, field: "", value: RecordProblem.render(value),
        reason: "expected \(expected)")
      return (nil, problem)
    }
    return (RecordFields(kind: kind, index: index, object: object), nil)
  }

  init(kind: ImportKind, index: Int, object: JSONObject) {
    self.kind = kind
    self.index = index
    self.object = object
  }

  /// Whether any problem so far rejects the record.
  var isRejected: Bool { found.contains { $0.rejectsRecord } }

  /// The problems found, labelled.
  func problems(label: String?) -> [RecordProblem] {
    found.map {
      RecordProblem(
        kind: kind, index: index, label: label, field: $0.field, value: $0.value,
        reason: $0.reason, rejectsRecord: $0.rejectsRecord)
    }
  }

  /// Records a problem with `field`, whose value is `value` (`nil`: missing).
  mutating func report(
    _ field: String, _ value: JSONValue?, _ reason: String, rejectsRecord: Bool = true
  ) {
    found.append((field, RecordProblem.render(value), reason, rejectsRecord))
  }

  // MARK: Reading

  /// A string that must be present. Numbers are accepted as their literal text when
  /// `acceptingNumbers` (ids some exporters write as numbers).
  mutating func requiredText(
    _ field: String, _ value: JSONValue?, expected: String, acceptingNumbers: Bool = false
  ) -> String? {
    switch value {
    case .string(let text)?:
      return text
    case .number(let literal)? where acceptingNumbers:
      return literal
    default:
      report(field, value, "expected \(expected)")
      return nil
    }
  }

  /// A string that may be missing or `null` (both `nil`); an empty string stays empty.
  mutating func optionalText(_ field: String, _ value: JSONValue?) -> String? {
    switch value {
    case nil, .null?:
      return nil
    case .string(let text)?:
      return text
    default:
      report(field, value, "expected a string or null")
      return nil
    }
  }

  /// Text that must pass a domain validation (`ContactID.init`, `ZipCode.init`).
  mutating func validated<Value>(
    _ field: String, _ value: JSONValue?, expected: String, acceptingNumbers: Bool = false,
    rejectsRecord: Bool = true, _ make: (String) throws(EventsError) -> Value
  ) -> Value? {
    let text: String
    switch value {
    case .string(let string)?:
      text = string
    case .number(let literal)? where acceptingNumbers:
      text = literal
    default:
      report(field, value, "expected \(expected)", rejectsRecord: rejectsRecord)
      return nil
    }
    do throws(EventsError) {
      return try make(text)
    } catch {
      report(field, value, RecordProblem.reason(from: error), rejectsRecord: rejectsRecord)
      return nil
    }
  }

  /// A title or name: a string that is not empty or only white space.
  mutating func title(_ field: String, _ value: JSONValue?, noun: String) -> String? {
    let expectation = "\(noun) that is not empty or only white space"
    guard let text = requiredText(field, value, expected: expectation) else { return nil }
    guard !text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
      report(field, value, "expected \(expectation)")
      return nil
    }
    return text
  }

  /// An object that may be missing or `null` (both empty).
  mutating func optionalObject(_ field: String, _ value: JSONValue?, expected: String)
    -> JSONObject
  {
    switch value {
    case nil, .null?: return JSONObject()
    case .object(let object)?: return object
    default:
      report(field, value, "expected \(expected) or null")
      return JSONObject()
    }
  }

  /// A number, written as a JSON number or as a string holding one (`"121.58"`); `nil` with no
  /// problem when missing, `null` or an empty string.
  mutating func optionalNumber(_ field: String, _ value: JSONValue?) -> Double? {
    switch value {
    case nil, .null?:
      return nil
    case .string(let text)? where text.isEmpty:
      return nil
    case .string(let text)?:
      if let number = Double(text), number.isFinite { return number }
    case .number?:
      if let number = value?.doubleValue { return number }
    default:
      break
    }
    report(field, value, "expected a number (or a string holding one)")
    return nil
  }
}

/// Labels for messages: `id '13', name 'Miss Piggy'`.
enum RecordLabel {
  /// `name 'text'` with control characters escaped and long text cut.
  static func quoted(_ name: String, _ text: String?) -> String? {
    guard let text else { return nil }
    // Short text with nothing to escape (the commonest: an id, a name) is shown as it is; a
    // scalar at a time costs more than the rest of the record's label.
    if text.utf8.count <= 40, !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xEF })
    {
      return "\(name) '\(text)'"
    }
    return "\(name) '\(DomainText.escaped(text, cutAt: 40))'"
  }

  /// The parts that are known, joined: `id '13', name 'Miss Piggy'`; `nil` when none is.
  static func joined(_ parts: String?...) -> String? {
    let known = parts.compactMap { $0 }
    return known.isEmpty ? nil : known.joined(separator: ", ")
  }
}
