#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The registry of every event type the engine knows: decoding from the log's bytes, encoding for
/// appends, and validation of raw user appends.
///
/// Streams hold one entity each, named `<category>-<id>`:
///
/// | domain | stream | event types |
/// |---|---|---|
/// | observations | `observation-<12 hex digits>` | `ObservationRecorded`, `ObservationRevised`, `ObservationRemoved` |
/// | states | `state-<name>` (`state-New York`; zip code events go to their state's stream) | `StateAdded`, `ZipCodeAdded`, `ZipCodeModified`, `ZipCodeRemoved` |
/// | zoo | `animal-zoo-<source _id>` (imported), `animal-user-<n>` (inserted) | `AnimalImported`, `AnimalInserted`, `AnimalRemoved` |
/// | locations | `location-<GeoJSON feature id>` | `LocationAdded`, `LocationRenamed`, `LocationMoved`, `LocationRemoved` |
/// | contacts | `contact-<id>` (`contact-13`) | `ContactAdded`, `ContactUpdated`, `ContactFavorited`, `ContactUnfavorited`, `ContactErased` |
///
/// Every payload knows its stream (`streamName`); `validate` refuses an event offered for any
/// other stream.
public enum EventVocabulary {
  /// Every event type's stable name, grouped by domain.
  public static let allEventTypes: [String] = payloadTypes.map { $0.eventType }

  /// The newest schema version of every event type: the highest `decode` reads. `encode`
  /// writes it too, except for `ContactAdded` and `ContactUpdated` made in code, which encode
  /// their plaintext form (schema 1) and which a log stores sealed (schema 2).
  public static let newestSchemaVersions: [String: Int] = Dictionary(
    uniqueKeysWithValues: payloadTypes.map { ($0.eventType, $0.newestSchemaVersion) })

  /// Every payload type, in the order of `allEventTypes`.
  static let payloadTypes: [any EventPayload.Type] = [
    ObservationRecorded.self, ObservationRevised.self, ObservationRemoved.self,
    StateAdded.self, ZipCodeAdded.self, ZipCodeModified.self, ZipCodeRemoved.self,
    AnimalImported.self, AnimalInserted.self, AnimalRemoved.self,
    LocationAdded.self, LocationRenamed.self, LocationMoved.self, LocationRemoved.self,
    ContactAdded.self, ContactUpdated.self, ContactFavorited.self, ContactUnfavorited.self,
    ContactErased.self,
  ]

  // MARK: Decoding

  /// Decodes the payload of an event whose type name is `type` (raw UTF-8 bytes, as the log
  /// holds them) from `cursor`, which is left just after the payload object.
  ///
  /// Dispatch costs a switch on the name's length and first byte and one `memcmp`: this runs
  /// once per event during replay.
  /// - Parameters:
  ///   - type: the event type's name.
  ///   - schemaVersion: the payload's schema version; older versions are upcast.
  ///   - cursor: positioned at the payload object.
  ///   - strict: `true` for user input: unknown types, unknown keys and repeated keys are errors.
  ///     `false` for replay: unknown types decode to `nil` and unknown keys are skipped.
  /// - Returns: the event, or `nil` for a type outside the vocabulary when not strict.
  /// - Throws: `EventsError.unknownEventType` (strict only, with a suggestion),
  ///   `.unsupportedSchemaVersion`, and the payload's decoding errors.
  package static func decode(
    type: UnsafeBufferPointer<UInt8>, schemaVersion: Int, data cursor: inout JSONCursor,
    strict: Bool
  ) throws(EventsError) -> DomainEvent? {
    func matches(_ name: StaticString) -> Bool {
      guard let base = type.baseAddress else { return false }
      return memcmp(base, name.utf8Start, name.utf8CodeUnitCount) == 0
    }
    func payload<Payload: EventPayload>(_: Payload.Type) throws(EventsError) -> Payload {
      try Payload(decoding: &cursor, schemaVersion: schemaVersion, strict: strict)
    }
    let first = type.first ?? 0
    switch (type.count, first) {
    case (10, 0x53) where matches("StateAdded"):
      return .state(.stateAdded(try payload(StateAdded.self)))
    case (12, 0x5A) where matches("ZipCodeAdded"):
      return .state(.zipCodeAdded(try payload(ZipCodeAdded.self)))
    case (12, 0x43) where matches("ContactAdded"):
      return .contact(.added(try payload(ContactAdded.self)))
    case (13, 0x43) where matches("ContactErased"):
      return .contact(.erased(try payload(ContactErased.self)))
    case (13, 0x41) where matches("AnimalRemoved"):
      return .zoo(.removed(try payload(AnimalRemoved.self)))
    case (13, 0x4C) where matches("LocationAdded"):
      return .location(.added(try payload(LocationAdded.self)))
    case (13, 0x4C) where matches("LocationMoved"):
      return .location(.moved(try payload(LocationMoved.self)))
    case (14, 0x5A) where matches("ZipCodeRemoved"):
      return .state(.zipCodeRemoved(try payload(ZipCodeRemoved.self)))
    case (14, 0x41) where matches("AnimalImported"):
      return .zoo(.imported(try payload(AnimalImported.self)))
    case (14, 0x41) where matches("AnimalInserted"):
      return .zoo(.inserted(try payload(AnimalInserted.self)))
    case (14, 0x43) where matches("ContactUpdated"):
      return .contact(.updated(try payload(ContactUpdated.self)))
    case (15, 0x5A) where matches("ZipCodeModified"):
      return .state(.zipCodeModified(try payload(ZipCodeModified.self)))
    case (15, 0x4C) where matches("LocationRenamed"):
      return .location(.renamed(try payload(LocationRenamed.self)))
    case (15, 0x4C) where matches("LocationRemoved"):
      return .location(.removed(try payload(LocationRemoved.self)))
    case (16, 0x43) where matches("ContactFavorited"):
      return .contact(.favorited(try payload(ContactFavorited.self)))
    case (18, 0x4F) where matches("ObservationRevised"):
      return .observation(.revised(try payload(ObservationRevised.self)))
    case (18, 0x4F) where matches("ObservationRemoved"):
      return .observation(.removed(try payload(ObservationRemoved.self)))
    case (18, 0x43) where matches("ContactUnfavorited"):
      return .contact(.unfavorited(try payload(ContactUnfavorited.self)))
    case (19, 0x4F) where matches("ObservationRecorded"):
      return .observation(.recorded(try payload(ObservationRecorded.self)))
    default:
      guard strict else { return nil }
      throw unknownType(String(decoding: type, as: UTF8.self))
    }
  }

  /// Decodes a payload held in `data`, which it must fill (surrounding whitespace allowed).
  /// - Returns: the event, or `nil` for a type outside the vocabulary when not strict.
  /// - Throws: as `decode(type:schemaVersion:data:strict:)`, and `.malformedData` when bytes
  ///   follow the payload.
  public static func decode(
    type: String, schemaVersion: Int, data: [UInt8], strict: Bool
  ) throws(EventsError) -> DomainEvent? {
    var type = type
    let result: Result<DomainEvent?, EventsError> = type.withUTF8 { typeBytes in
      data.withUnsafeBytes { buffer in
        Result { () throws(EventsError) -> DomainEvent? in
          var cursor = JSONCursor(buffer)
          guard
            let event = try decode(
              type: typeBytes, schemaVersion: schemaVersion, data: &cursor, strict: strict)
          else { return nil }
          do throws(JSONSyntaxError) {
            try cursor.expectEnd()
          } catch {
            throw EventsError.malformedData(type: event.eventType, syntax: error)
          }
          return event
        }
      }
    }
    return try result.get()
  }

  /// Decodes the payload of an event read from the log.
  /// - Parameter strict: `false` (the default) for replay.
  /// - Returns: the event, or `nil` for a type outside the vocabulary when not strict.
  public static func decode(
    _ event: RecordedEvent, strict: Bool = false
  ) throws(EventsError) -> DomainEvent? {
    try decode(
      type: event.type, schemaVersion: event.schemaVersion, data: event.data, strict: strict)
  }

  /// Replay's way to the commonest events, `ContactFavorited` and `ContactUnfavorited`:
  /// whether the event makes the contact a favourite, and the id's UTF-8 bytes, so that the
  /// contact can be found without making a `String` or a `DomainEvent`. The payload is read by
  /// the events' own decoder (`ContactID.decodeFavoritePayload`), leniently as replay reads.
  ///
  /// - Returns: `nil`, with the cursor untouched, for any other type, a schema version other
  ///   than 1, an id written with escapes, or a payload the decoder refuses; `decode` then reads
  ///   the payload (and names what is wrong). Otherwise the cursor is left just after it.
  package static func favoriteToggle(
    type: UnsafeBufferPointer<UInt8>, schemaVersion: Int, data cursor: inout JSONCursor
  ) -> (isFavorite: Bool, contactID: UnsafeBufferPointer<UInt8>)? {
    let isFavorite: Bool
    switch type.count {
    case 16: isFavorite = true
    case 18: isFavorite = false
    default: return nil
    }
    guard schemaVersion == 1, let base = type.baseAddress,
      isFavorite
        ? memcmp(base, ("ContactFavorited" as StaticString).utf8Start, 16) == 0
        : memcmp(base, ("ContactUnfavorited" as StaticString).utf8Start, 18) == 0
    else { return nil }
    var copy = cursor
    guard
      let id = try? ContactID.decodeFavoritePayload(
        &copy, type: isFavorite ? ContactFavorited.self : ContactUnfavorited.self,
        strict: false, readingSource: false
      ).id, !id.hasEscapes
    else { return nil }
    cursor = copy
    return (isFavorite, copy.bytes(of: id))
  }

  // MARK: Encoding

  /// The envelope fields and payload bytes for appending `event`.
  /// - Returns: the type's stable name, the newest schema version, the stream the payload
  ///   names, and the payload as compact JSON with the type's fixed key order.
  public static func encode(
    _ event: DomainEvent
  ) -> (type: String, schemaVersion: Int, stream: String, data: [UInt8]) {
    let payload = event.payload
    let payloadType = type(of: payload)
    var writer = JSONWriter(capacity: 128)
    payload.encode(to: &writer)
    return (payloadType.eventType, payload.encodedSchemaVersion, payload.streamName, writer.bytes)
  }

  /// `event` as an event to append to its stream.
  public static func proposedEvent(
    _ event: DomainEvent, id: EventID? = nil, metadata: EventMetadata = EventMetadata()
  ) -> (stream: String, event: ProposedEvent) {
    let encoded = encode(event)
    return (
      encoded.stream,
      ProposedEvent(
        id: id, type: encoded.type, schemaVersion: encoded.schemaVersion, data: encoded.data,
        metadata: metadata)
    )
  }

  // MARK: Validation

  /// Checks an event a user offers for appending as raw JSON: the type must be known, the
  /// schema version readable, the payload strictly valid (well-formed UTF-8 JSON, no unknown,
  /// repeated or missing fields, valid values) and `stream` the one the payload names.
  /// - Returns: the decoded event.
  /// - Throws: `EventsError`: `.unknownEventType` (with a suggestion), `.unsupportedSchemaVersion`,
  ///   `.malformedData`, the field errors, or `.streamMismatch` naming the stream expected.
  @discardableResult
  public static func validate(
    type: String, schemaVersion: Int, data: [UInt8], stream: String
  ) throws(EventsError) -> DomainEvent {
    guard newestSchemaVersions[type] != nil else { throw unknownType(type) }
    // The full parser rejects what the cursor tolerates: invalid UTF-8 and lone surrogates
    // (written `\uD800`). Text without a backslash that is valid UTF-8 can hold neither.
    let needsFullParse = !Self.isValidUTF8WithoutEscapes(data)
    // The payload's decoder first, so that what it checks (a repeated or unknown key, a wrong
    // value) is named by field whatever else the text holds.
    guard
      let event = try decode(type: type, schemaVersion: schemaVersion, data: data, strict: true)
    else { throw unknownType(type) }
    if needsFullParse {
      do throws(JSONSyntaxError) {
        _ = try JSONValue.parse(data)
      } catch {
        throw EventsError.malformedData(type: type, syntax: error)
      }
    }
    guard event.streamName == stream else {
      throw EventsError.streamMismatch(type: type, expected: event.streamName, found: stream)
    }
    return event
  }

  /// Whether `bytes` hold no backslash and are valid UTF-8 (plain ASCII is checked byte by
  /// byte; anything else by the standard library's validation).
  static func isValidUTF8WithoutEscapes(_ bytes: [UInt8]) -> Bool {
    var ascii = true
    for byte in bytes {
      if byte == 0x5C { return false }
      if byte >= 0x80 { ascii = false }
    }
    return ascii || bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) != nil }
  }

  /// The unknown-type error for `name`, with the closest known name as a suggestion.
  static func unknownType(_ name: String) -> EventsError {
    .unknownEventType(name, suggestion: Suggestion.closest(to: name, among: allEventTypes))
  }

  /// The kind of entity a stream holds, from its category (`contact-13` → `.contact`), or `nil`
  /// for a stream outside the five domains.
  public static func entityKind(ofStream stream: String) -> EntityKind? {
    EntityKind(rawValue: String(EnvelopeRules.category(ofStream: stream)))
  }
}
