import Foundation
import ReplayTestSupport

@testable import Events

/// The shared generator's former name here.
typealias DomainRandom = SplitMix64

extension SplitMix64 {
  /// The seed for a test run: `REPLAY_TEST_SEED` from the environment, or a fixed default.
  static func seed(for test: String) -> UInt64 {
    seed(for: test, fallback: 0x5EED_2026_1122)
  }

  /// Pieces that stress the codec: Chinese, emoji (with joiners), `\r\n`, a byte-order mark,
  /// quotes, backslashes, control characters, combining marks.
  private static let pieces: [String] = [
    "a", "Z", "7", " ", "-", "大貓熊", "館", "🐼", "👨‍👩‍👧", "\r\n", "\u{FEFF}", "\"", "\\", "/",
    "\t", "\u{0}", "\u{1F}", "\u{7F}", "e\u{301}", "é", "Ω", "𝄞", "Miss Piggy", "'", "\u{2028}",
  ]

  /// Any string, possibly empty.
  mutating func text(maximumPieces: Int = 8) -> String {
    let count = Int.random(in: 0...maximumPieces, using: &self)
    var result = ""
    for _ in 0..<count { result += pick(Self.pieces) }
    return result
  }

  /// A string that is not blank.
  mutating func title() -> String {
    let text = text()
    return DomainText.isBlank(text) ? "t" + text : text
  }

  /// A string that is a valid id or name (no control characters, no edge white space).
  mutating func identifier() -> String {
    let cleaned = String(
      String.UnicodeScalarView(
        text().unicodeScalars.filter {
          $0.value >= 0x20 && $0.value != 0x7F && !$0.properties.isWhitespace
        }))
    return "x" + cleaned + "y"
  }

  mutating func optionalText() -> String? {
    chance(0.3) ? nil : "s" + text()
  }

  mutating func timestamp() -> Timestamp {
    Timestamp(
      millisecondsSince1970: Int64.random(
        in: Timestamp.earliest.millisecondsSince1970...Timestamp.latest.millisecondsSince1970,
        using: &self))
  }

  mutating func zipCode() throws -> ZipCode {
    var digits = ""
    for _ in 0..<5 { digits += String(Int.random(in: 0...9, using: &self)) }
    if chance(0.3) {
      digits += "-"
      for _ in 0..<4 { digits += String(Int.random(in: 0...9, using: &self)) }
    }
    return try ZipCode(digits)
  }

  mutating func coordinate() throws -> Coordinate {
    let latitude =
      chance(0.1) ? pick([-90.0, 90.0, 0.0, -0.0]) : Double.random(in: -90...90, using: &self)
    let longitude =
      chance(0.1) ? pick([-180.0, 180.0, 0.0]) : Double.random(in: -180...180, using: &self)
    return try Coordinate(latitude: latitude, longitude: longitude)
  }

  mutating func calendarDate() throws -> CalendarDate {
    let year = Int.random(in: 0...9999, using: &self)
    let month = Int.random(in: 1...12, using: &self)
    let day = Int.random(
      in: 1...Int(Timestamp.daysInMonth(year: Int64(year), month: Int64(month))), using: &self)
    return try CalendarDate(year: year, month: month, day: day)
  }

  mutating func observationRecord() -> ObservationRecord {
    ObservationRecord(
      classification: pick(Classification.allCases), title: title(), description: text(),
      date: timestamp())
  }

  mutating func mediaLinks() -> [MediaLink] {
    (0..<Int.random(in: 0...4, using: &self)).map { _ in
      MediaLink(url: chance(0.2) ? "" : "http://x/" + text(), alternativeText: text())
    }
  }

  mutating func animalRecord() throws -> AnimalRecord {
    AnimalRecord(
      sourceID: Int.random(in: 0...1_000_000, using: &self), nameChinese: text(),
      nameEnglish: text(), nameLatin: text(), alsoKnownAs: text(), location: text(), geo: text(),
      coordinate: chance(0.5) ? try coordinate() : nil, phylum: text(), taxonomicClass: text(),
      order: text(), family: text(), conservation: text(), distribution: text(), habitat: text(),
      feature: text(), behavior: text(), diet: text(), crisis: text(), interpretation: text(),
      themeName: text(), themeURL: text(), adopt: text(), code: text(), pictures: mediaLinks(),
      pdfs: mediaLinks(), voices: mediaLinks(), videoURL: text(), update: text(), cid: text(),
      summary: text(), keywords: text(), poiGroup: text())
  }

  mutating func contactRecord() throws -> ContactRecord {
    ContactRecord(
      id: try ContactID(identifier()), name: title(), companyName: optionalText(),
      isFavorite: chance(0.5), smallImageURL: optionalText(), largeImageURL: optionalText(),
      emailAddress: optionalText(), birthdate: chance(0.5) ? try calendarDate() : nil,
      phone: PhoneNumbers(work: optionalText(), home: optionalText(), mobile: optionalText()),
      address: PostalAddress(
        street: optionalText(), city: optionalText(), state: optionalText(),
        country: optionalText(), zipCode: optionalText()))
  }

  mutating func change() -> FieldChange<String>? {
    guard chance(0.5) else { return nil }
    return optionalText().map { .set($0) } ?? .cleared
  }

  /// A random event of the named type, with every optional part present or not at random.
  mutating func event(ofType type: String) throws -> DomainEvent {
    switch type {
    case "ObservationRecorded":
      return .observation(
        .recorded(
          ObservationRecorded(
            id: .derived(from: text()), record: observationRecord(), source: optionalText())))
    case "ObservationRevised":
      return .observation(
        .revised(
          ObservationRevised(
            id: .derived(from: text()),
            classification: chance(0.5) ? pick(Classification.allCases) : nil,
            title: chance(0.5) ? title() : nil, description: chance(0.5) ? text() : nil,
            date: chance(0.5) ? timestamp() : nil, source: optionalText())))
    case "ObservationRemoved":
      return .observation(.removed(ObservationRemoved(id: .derived(from: text()))))
    case "StateAdded":
      return .state(
        .stateAdded(StateAdded(state: try StateName(identifier()), source: optionalText())))
    case "ZipCodeAdded":
      return .state(
        .zipCodeAdded(
          ZipCodeAdded(
            state: try StateName(identifier()), zipCode: try zipCode(), source: optionalText())))
    case "ZipCodeModified":
      return .state(
        .zipCodeModified(
          ZipCodeModified(
            state: try StateName(identifier()), from: try zipCode(), to: try zipCode())))
    case "ZipCodeRemoved":
      return .state(
        .zipCodeRemoved(ZipCodeRemoved(state: try StateName(identifier()), zipCode: try zipCode())))
    case "AnimalImported":
      return .zoo(.imported(AnimalImported(record: try animalRecord(), source: optionalText())))
    case "AnimalInserted":
      return .zoo(
        .inserted(
          AnimalInserted(
            id: .inserted(number: Int.random(in: 0...999_999, using: &self)), name: title(),
            description: text(), picturePath: optionalText())))
    case "AnimalRemoved":
      let number = Int.random(in: 0...999_999, using: &self)
      return .zoo(
        .removed(
          AnimalRemoved(
            id: chance(0.5) ? .inserted(number: number) : .imported(sourceID: number))))
    case "LocationAdded":
      return .location(
        .added(
          LocationAdded(
            record: LocationRecord(
              id: try LocationID(identifier()), name: title(), coordinate: try coordinate()),
            source: optionalText())))
    case "LocationRenamed":
      return .location(
        .renamed(
          LocationRenamed(id: try LocationID(identifier()), name: title(), source: optionalText())))
    case "LocationMoved":
      return .location(
        .moved(
          LocationMoved(
            id: try LocationID(identifier()), coordinate: try coordinate(),
            source: optionalText())))
    case "LocationRemoved":
      return .location(.removed(LocationRemoved(id: try LocationID(identifier()))))
    case "ContactAdded":
      return .contact(.added(ContactAdded(record: try contactRecord(), source: optionalText())))
    case "ContactUpdated":
      var update = ContactUpdated(id: try ContactID(identifier()), source: optionalText())
      update.name = chance(0.5) ? title() : nil
      update.companyName = change()
      update.smallImageURL = change()
      update.largeImageURL = change()
      update.emailAddress = change()
      if chance(0.5) { update.birthdate = chance(0.5) ? .set(try calendarDate()) : .cleared }
      update.workPhone = change()
      update.homePhone = change()
      update.mobilePhone = change()
      update.street = change()
      update.city = change()
      update.state = change()
      update.country = change()
      update.zipCode = change()
      return .contact(.updated(update))
    case "ContactFavorited":
      return .contact(
        .favorited(ContactFavorited(id: try ContactID(identifier()), source: optionalText())))
    case "ContactUnfavorited":
      return .contact(
        .unfavorited(ContactUnfavorited(id: try ContactID(identifier()), source: optionalText())))
    case "ContactErased":
      return .contact(.erased(ContactErased(id: try ContactID(identifier()))))
    default:
      throw DomainTestFailure("no generator for '\(type)'")
    }
  }
}

struct DomainTestFailure: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }
}

/// Decodes `json` as a payload of `type`, strictly unless told otherwise.
func domainDecode(
  _ type: String, _ json: String, schemaVersion: Int? = nil, strict: Bool = true
) throws(EventsError) -> DomainEvent? {
  // By default the version the encoder writes for a value made in code: the newest, or for
  // the contact payloads their plaintext form (the log stores them sealed, at 2).
  let plaintext = ["ContactAdded", "ContactUpdated"].contains(type)
  return try EventVocabulary.decode(
    type: type,
    schemaVersion: schemaVersion
      ?? (plaintext ? 1 : EventVocabulary.newestSchemaVersions[type] ?? 1),
    data: Array(json.utf8), strict: strict)
}

/// The message of the `EventsError` that `body` throws, or `nil` when it throws none.
func domainErrorMessage(_ body: () throws -> Void) -> String? {
  do {
    try body()
    return nil
  } catch let error as EventsError {
    return error.description
  } catch {
    return "not an EventsError: \(error)"
  }
}

/// The payload's JSON as text.
func domainJSON(_ event: DomainEvent) -> String {
  String(decoding: EventVocabulary.encode(event).data, as: UTF8.self)
}

/// Runs `commands` in order against a stream, appending each decision's events, and returns the
/// final state and the last decision.
func domainRun<D: Decider>(
  _: D.Type, _ commands: [D.Command], from state: D.State = D.State.initial
) throws -> (state: D.State, last: Decision<D.Event>) {
  var state = state
  var last = Decision<D.Event>.noChange("no command")
  for command in commands {
    last = try D.decision(command, state)
    for event in last.events { state.apply(event) }
  }
  return (state, last)
}

/// Every event's stream, to check a decider keeps each command in its stream.
func domainStreams<D: Decider>(_: D.Type, _ events: [D.Event]) -> Set<String> {
  Set(events.map { D.domainEvent($0).streamName })
}
