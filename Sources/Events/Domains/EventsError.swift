/// The kinds of entity the five domains hold, one stream category each.
///
/// The raw value is the stream category: an entity's stream is `<kind>-<id>` (`contact-13`).
public enum EntityKind: String, Sendable, Equatable, Hashable, CaseIterable {
  /// A field-survey observation (`observation-<id>`).
  case observation
  /// A state and its zip codes (`state-<name>`).
  case state
  /// A zoo animal, imported or inserted (`animal-<id>`).
  case animal
  /// A named point (`location-<id>`).
  case location
  /// A contact (`contact-<id>`).
  case contact

  /// The stream that holds the entity with `id`.
  public func streamName(for id: String) -> String {
    rawValue + "-" + id
  }
}

/// Everything that can go wrong in the domain layer: decoding payloads, validating values and
/// commands, and the deciders' rules.
///
/// Every case says what was expected, what was found and where (event type and field, or entity).
/// `description` is one phrase with names in quotes and the fix when one is known, e.g.
/// `'ZipCodeModified' data: field 'to': expected a zip code of 5 digits or ZIP+4 (12345 or
/// 12345-6789), found '350HH'`.
public enum EventsError: Error, Sendable, Equatable, CustomStringConvertible {
  // MARK: Payloads

  /// The payload of `type` is not well-formed JSON.
  case malformedData(type: String, syntax: JSONSyntaxError)
  /// A required field of `type`'s payload is absent. `field` is a path (`address.city`).
  case missingField(type: String, field: String, expected: String)
  /// A strict decode met a field that `type`'s payload does not have.
  case unknownField(type: String, field: String, allowed: [String])
  /// A strict decode met the same field twice.
  case duplicateField(type: String, field: String)
  /// A field holds the wrong kind of JSON value, or a value that fails validation. An empty
  /// `field` means the payload as a whole (e.g. an array where an object belongs).
  case invalidField(type: String, field: String, expected: String, found: String)
  /// The payload's schema version is not one this engine can read (newer, or below 1).
  case unsupportedSchemaVersion(type: String, found: Int, newest: Int)
  /// The event type is not in the vocabulary; `suggestion` is the closest known name.
  case unknownEventType(String, suggestion: String?)
  /// An event was offered for a stream other than the one its payload names.
  case streamMismatch(type: String, expected: String, found: String)

  // MARK: Values and commands

  /// A value failed validation outside any payload (a zip code, a coordinate, a date, an id).
  case invalidValue(expected: String, found: String)
  /// A command's argument failed validation. `command` is the command's name (`recordObservation`).
  case invalidCommand(command: String, field: String, expected: String, found: String)

  // MARK: Rules

  /// The command needs an entity that does not exist (its stream has no events).
  case unknownEntity(kind: EntityKind, id: String)
  /// The command would create an entity that already exists.
  case entityAlreadyExists(kind: EntityKind, id: String)
  /// The command would change an entity that was removed.
  case entityRemoved(kind: EntityKind, id: String)
  /// The state already has `zipCode`. When the command was a modification, `replacing` is the
  /// zip code it tried to change into `zipCode`.
  case zipCodeAlreadyInState(state: String, zipCode: String, replacing: String?)
  /// The state does not have `zipCode`. When the command was a modification, `replacement` is
  /// the zip code it tried to change `zipCode` into.
  case zipCodeNotInState(state: String, zipCode: String, replacement: String?)

  public var description: String {
    switch self {
    case .malformedData(let type, let syntax):
      return "'\(type)' data: \(syntax)"
    case .missingField(let type, let field, let expected):
      return "'\(type)' data: field '\(field)' is missing; expected \(expected)"
    case .unknownField(let type, let field, let allowed):
      let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
      var message = "'\(type)' data: unknown field '\(field)'; allowed fields are \(list)"
      let leaf = field.split(separator: ".").last.map(String.init) ?? field
      if let suggestion = Suggestion.closest(to: leaf, among: allowed) {
        message += "; did you mean '\(suggestion)'?"
      }
      return message
    case .duplicateField(let type, let field):
      return "'\(type)' data: field '\(field)' appears more than once; keep one"
    case .invalidField(let type, let field, let expected, let found):
      if field.isEmpty { return "'\(type)' data: expected \(expected), found \(found)" }
      return "'\(type)' data: field '\(field)': expected \(expected), found \(found)"
    case .unsupportedSchemaVersion(let type, let found, let newest):
      if found < 1 {
        return
          "event type '\(type)' has schema version \(found), but versions start at 1; "
          + "use a version from 1 to \(newest)"
      }
      return
        "event type '\(type)' has schema version \(found), but this engine knows versions up "
        + "to \(newest); upgrade replay to read it"
    case .unknownEventType(let name, let suggestion):
      if let suggestion {
        return "unknown event type '\(name)'; did you mean '\(suggestion)'?"
      }
      let known = EventVocabulary.allEventTypes.joined(separator: ", ")
      return "unknown event type '\(name)'; the known types are \(known)"
    case .streamMismatch(let type, let expected, let found):
      return
        "'\(type)' belongs in stream '\(expected)', not '\(found)'; append it to '\(expected)'"
    case .invalidValue(let expected, let found):
      return "expected \(expected), found \(found)"
    case .invalidCommand(let command, let field, let expected, let found):
      return "'\(command)': '\(field)': expected \(expected), found \(found)"
    case .unknownEntity(let kind, let id):
      return
        "no \(kind.rawValue) '\(id)' exists (stream '\(kind.streamName(for: id))' has no "
        + "events); \(kind == .state ? "add the state first" : "add or import it first")"
    case .entityAlreadyExists(let kind, let id):
      return
        "\(kind.rawValue) '\(id)' already exists (stream '\(kind.streamName(for: id))'); "
        + (kind == .state ? "add its zip codes instead" : "choose another id")
    case .entityRemoved(let kind, let id):
      return "\(kind.rawValue) '\(id)' was removed; a removed \(kind.rawValue) cannot be changed"
    case .zipCodeAlreadyInState(let state, let zipCode, let replacing):
      if let replacing {
        return Self.refusedChange(of: replacing, to: zipCode, in: state, "already has '\(zipCode)'")
      }
      return "state '\(state)' already has zip code '\(zipCode)'; a zip code appears once per state"
    case .zipCodeNotInState(let state, let zipCode, let replacement):
      if let replacement {
        return Self.refusedChange(of: zipCode, to: replacement, in: state, "has no '\(zipCode)'")
      }
      return "state '\(state)' has no zip code '\(zipCode)'"
    }
  }

  /// Why `modifyZipCode` from `old` to `new` in `state` is refused: the state `problem`.
  private static func refusedChange(
    of old: String, to new: String, in state: String, _ problem: String
  ) -> String {
    "cannot change zip code '\(old)' to '\(new)' in state '\(state)': the state \(problem)"
  }
}

/// "Did you mean" suggestions by edit distance.
enum Suggestion {
  /// The candidate closest to `word` (case-insensitive Levenshtein distance), when it is close
  /// enough to be a plausible typo: at most a third of the word's length, and at most 3 edits.
  static func closest(to word: String, among candidates: [String]) -> String? {
    let limit = min(3, max(1, word.count / 3))
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(word.lowercased(), candidate.lowercased())
      if distance <= limit, distance < (best?.distance ?? Int.max) {
        best = (candidate, distance)
      }
    }
    return best?.candidate
  }

  /// Levenshtein distance over Unicode scalars.
  static func editDistance(_ first: String, _ second: String) -> Int {
    let lhs = Array(first.unicodeScalars)
    let rhs = Array(second.unicodeScalars)
    if lhs.isEmpty { return rhs.count }
    if rhs.isEmpty { return lhs.count }
    var previous = Array(0...rhs.count)
    var current = [Int](repeating: 0, count: rhs.count + 1)
    for row in 1...lhs.count {
      current[0] = row
      for column in 1...rhs.count {
        let substitution = previous[column - 1] + (lhs[row - 1] == rhs[column - 1] ? 0 : 1)
        current[column] = min(substitution, previous[column] + 1, current[column - 1] + 1)
      }
      swap(&previous, &current)
    }
    return previous[rhs.count]
  }
}
