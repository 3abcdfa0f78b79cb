import Foundation

// The field survey's vocabulary: observations of plants and animals, recorded, revised and
// removed. Stream: `observation-<id>`.

/// What was observed: exactly one of seven kinds. The raw value is stored in the log and names
/// the app's icon (`bird.png`, `bird@2x.png`, `bird@3x.png`).
public enum Classification: String, Sendable, Equatable, Hashable, CaseIterable {
  case amphibian
  case bird
  case fish
  case insect
  case mammal
  case plant
  case reptile

  /// What a classification must be, for messages.
  static let expectation =
    "one of " + allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
}

/// An observation's id: 12 lowercase hexadecimal characters (`3f2a9c0d41b7`).
///
/// The source has no ids; importers derive them with `derived(from:)` so that importing the same
/// record twice yields the same id.
public struct ObservationID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The 12 lowercase hex characters.
  public let rawValue: String

  /// Validates `text` as an id.
  /// - Throws: `EventsError.invalidValue` unless `text` is 12 characters of `0-9a-f`.
  public init(_ text: String) throws(EventsError) {
    func check(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
      utf8.count == 12 && utf8.allSatisfy { $0 &- 0x30 < 10 || $0 &- 0x61 < 6 }
    }
    var copy = text
    let isValid = text.utf8.withContiguousStorageIfAvailable(check) ?? copy.withUTF8(check)
    guard isValid else {
      throw EventsError.invalidValue(
        expected: Self.expectation, found: DomainText.quoted(text))
    }
    rawValue = text
  }

  /// An id whose text the caller has checked (12 lowercase hex digits).
  init(unchecked text: String) {
    rawValue = text
  }

  /// The observation's stream: `observation-<id>`.
  public var streamName: String { EntityKind.observation.streamName(for: rawValue) }

  /// What an observation id must be, for messages.
  static let expectation = "an observation id of 12 lowercase hex digits (e.g. '3f2a9c0d41b7')"

  /// A deterministic id for `name`: the first 12 hex digits of the FNV-1a 64-bit hash of its
  /// UTF-8 bytes.
  ///
  /// - Note: Stable forever. Changing this function changes the id of every imported
  ///   observation, so re-imports would duplicate them. Importers pass
  ///   `"<source>\n<title>\n<date in the log's form>"` (see `derived(source:title:date:)`).
  public static func derived(from name: String) -> ObservationID {
    let hash = fnv1a64(name.utf8)
    let hexDigits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(12)
    for nibble in 0..<12 {
      text.append(hexDigits[Int((hash >> UInt64(60 - 4 * nibble)) & 0xF)])
    }
    return ObservationID(unchecked: String(decoding: text, as: UTF8.self))
  }

  /// The id an importer gives the record titled `title` at `date` from `source` (a file name or
  /// URL): `derived(from: "<source>\n<title>\n<date>")`, the date in the log's form.
  public static func derived(source: String, title: String, date: Timestamp) -> ObservationID {
    derived(from: "\(source)\n\(title)\n\(date)")
  }

  /// FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
  static func fnv1a64(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
  }

  public var description: String { rawValue }

  public static func < (lhs: ObservationID, rhs: ObservationID) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

extension ObservationID: PayloadText {}

/// Parses the dates observations come with.
public enum ObservationDate {
  /// What an observation date must look like, for messages.
  static let expectation =
    "a date as 'YYYY-MM-DD HH:MM' or ISO 8601 with a zone (e.g. '2017-06-14T18:00:03Z')"

  /// Parses `text` as the source writes dates: `YYYY-MM-DD HH:MM` (no zone: read in
  /// `timeZone`, UTC by default) or ISO 8601 with a zone designator (`2017-06-14T18:00:03Z`,
  /// `2017-06-14T20:00:03+02:00`), which wins over `timeZone`.
  ///
  /// Without a zone, seconds and a fraction are accepted too, and a date alone means midnight
  /// in `timeZone`. A wall-clock time skipped by a daylight-saving change resolves with the
  /// offset in force just before it.
  /// - Throws: `EventsError.invalidValue` naming the text.
  public static func parse(
    _ text: String, timeZone: TimeZone = TimeZone(secondsFromGMT: 0) ?? .current
  ) throws(EventsError) -> Timestamp {
    if text.utf8.count > 10, let zoned = Timestamp.parseISO8601(text, defaultOffsetMinutes: nil) {
      return zoned
    }
    guard let wallClock = Timestamp.parseISO8601(text, defaultOffsetMinutes: 0) else {
      throw EventsError.invalidValue(expected: expectation, found: DomainText.quoted(text))
    }
    // The zone's offset at the wall-clock instant read as UTC is a first guess; the offset at
    // the corrected instant is right except within an hour of a transition.
    let guess = wallClock.date.addingTimeInterval(
      -Double(timeZone.secondsFromGMT(for: wallClock.date)))
    let offset = Int64(timeZone.secondsFromGMT(for: guess))
    return Timestamp(millisecondsSince1970: wallClock.millisecondsSince1970 - offset * 1000)
  }
}

/// An observation as the source holds it.
public struct ObservationRecord: Sendable, Equatable, Hashable {
  /// What was observed.
  public var classification: Classification
  /// The observation's title (`Red-tailed Hawk`); never empty or blank once recorded.
  public var title: String
  /// Where and how it was seen; may be empty.
  public var description: String
  /// When it was seen.
  public var date: Timestamp

  public init(classification: Classification, title: String, description: String, date: Timestamp) {
    self.classification = classification
    self.title = title
    self.description = description
    self.date = date
  }

  static let titleExpectation = "a title that is not empty or only white space"
}

// MARK: - Events

/// An observation was recorded (by a user, or imported when `source` is set).
///
/// JSON: `{"id","classification","title","description","date","source"?}`.
public struct ObservationRecorded: KeyedPayload, Hashable {
  public static let eventType = "ObservationRecorded"
  public static let schemaVersion = 1

  /// The observation's id.
  public var id: ObservationID
  /// What was recorded.
  public var record: ObservationRecord
  /// The file name or URL it was imported from; `nil` when a user recorded it.
  public var source: String?

  public init(id: ObservationID, record: ObservationRecord, source: String? = nil) {
    self.id = id
    self.record = record
    self.source = source
  }

  public var streamName: String { id.streamName }

  /// The payload's keys (a revision's too).
  enum Key: String, PayloadKey {
    case id, classification, title, description, date, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: ObservationID.expectation
      case .classification: Classification.expectation
      case .title: ObservationRecord.titleExpectation
      case .description: "a string"
      case .date: "an instant as 'YYYY-MM-DDTHH:MM:SS.sssZ'"
      case .source: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .id: members.add(id.rawValue)
    case .classification: members.add(record.classification.rawValue)
    case .title: members.add(record.title)
    case .description: members.add(record.description)
    case .date: members.add(record.date)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var id: ObservationID?
    var classification: Classification?
    var title: String?
    var description: String?
    var date: Timestamp?
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(ObservationID.self, field, scope)
      case .classification:
        classification = try cursor.decodeEnumeration(Classification.self, field, scope)
      case .title: title = try cursor.decodeTitle(field, scope)
      case .description: description = try cursor.decodeString(field, scope)
      case .date: date = try cursor.decodeTimestamp(field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    self.id = try scope.required(id, Key.id)
    record = ObservationRecord(
      classification: try scope.required(classification, Key.classification),
      title: try scope.required(title, Key.title),
      description: try scope.required(description, Key.description),
      date: try scope.required(date, Key.date))
    self.source = source
  }
}

/// An observation's fields changed; only the changed ones are set.
///
/// JSON: `{"id","classification"?,"title"?,"description"?,"date"?,"source"?}`.
public struct ObservationRevised: KeyedPayload, Hashable {
  public static let eventType = "ObservationRevised"
  public static let schemaVersion = 1

  /// The observation's id.
  public var id: ObservationID
  /// The new classification, if it changed.
  public var classification: Classification?
  /// The new title, if it changed.
  public var title: String?
  /// The new description, if it changed.
  public var description: String?
  /// The new date, if it changed.
  public var date: Timestamp?
  /// The file name or URL whose new version brought the change; `nil` for a user's revision.
  public var source: String?

  public init(
    id: ObservationID, classification: Classification? = nil, title: String? = nil,
    description: String? = nil, date: Timestamp? = nil, source: String? = nil
  ) {
    self.id = id
    self.classification = classification
    self.title = title
    self.description = description
    self.date = date
    self.source = source
  }

  /// The revision that turns `old` into `new` (only the differing fields), or `nil` when they
  /// are equal.
  public static func between(
    _ old: ObservationRecord, _ new: ObservationRecord, id: ObservationID, source: String?
  ) -> ObservationRevised? {
    let revision = ObservationRevised(
      id: id,
      classification: old.classification == new.classification ? nil : new.classification,
      title: old.title == new.title ? nil : new.title,
      description: old.description == new.description ? nil : new.description,
      date: old.date == new.date ? nil : new.date, source: source)
    return revision.changesNothing ? nil : revision
  }

  /// Whether no field is set.
  public var changesNothing: Bool {
    classification == nil && title == nil && description == nil && date == nil
  }

  /// `record` with this revision's fields applied.
  public func applied(to record: ObservationRecord) -> ObservationRecord {
    var result = record
    if let classification { result.classification = classification }
    if let title { result.title = title }
    if let description { result.description = description }
    if let date { result.date = date }
    return result
  }

  public var streamName: String { id.streamName }

  /// The same keys, with the same expectations, as a recording's.
  typealias Key = ObservationRecorded.Key

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .id: members.add(id.rawValue)
    case .classification: members.add(classification?.rawValue)
    case .title: members.add(title)
    case .description: members.add(description)
    case .date: members.add(date)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var id: ObservationID?
    var revision = ObservationRevised(id: ObservationID(unchecked: ""))
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(ObservationID.self, field, scope)
      case .classification:
        revision.classification = try cursor.decodeEnumeration(Classification.self, field, scope)
      case .title: revision.title = try cursor.decodeTitle(field, scope)
      case .description: revision.description = try cursor.decodeString(field, scope)
      case .date: revision.date = try cursor.decodeTimestamp(field, scope)
      case .source: revision.source = try cursor.decodeOptionalString(field, scope)
      }
    }
    revision.id = try scope.required(id, Key.id)
    self = revision
  }
}

/// An observation was removed.
///
/// JSON: `{"id"}`.
public struct ObservationRemoved: IDPayload, Hashable {
  public static let eventType = "ObservationRemoved"
  public static let schemaVersion = 1

  /// The observation's id.
  public var id: ObservationID

  public init(id: ObservationID) {
    self.id = id
  }

  public var streamName: String { id.streamName }

  static let layout = ObservationID.idPayloadLayout()
}

/// The field survey's events.
public enum ObservationEvent: Sendable, Equatable, Hashable {
  case recorded(ObservationRecorded)
  case revised(ObservationRevised)
  case removed(ObservationRemoved)

  /// The stream the event belongs to.
  public var streamName: String { DomainEvent.observation(self).streamName }
}

extension JSONCursor {
  /// Reads a title or name: a string that must not be blank when decoding strictly (user input).
  /// Replay accepts what the log holds.
  mutating func decodeTitle(_ field: Int, _ scope: PayloadScope) throws(EventsError) -> String {
    let text = try decodeString(field, scope)
    if scope.strict, DomainText.isBlank(text) {
      throw scope.invalid(field, found: DomainText.quoted(text))
    }
    return text
  }
}
