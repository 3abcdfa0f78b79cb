import Foundation

// Schema 2 of `ContactAdded` and `ContactUpdated`: the contact's personal data sealed under its
// own key (docs/FORMAT.md, "Personal data"). What stays in clear is what the apps need without
// a key and what does not describe the person: the id, the favourite flag, the company and the
// import's source.
//
// ContactAdded v2:   {"id","companyName"?,"isFavorite","source"?,"key","sealed"}
// ContactUpdated v2: {"id","companyName"?,"source"?,"key","sealed"}
//
// `sealed` is a `SealedRecord` (base64) whose plaintext is the event's whole schema 1 payload,
// so opening reads it with the schema 1 decoder, the one decoder of each type. `key` names the
// key in the log's key store (16 lowercase hex digits).

/// A contact event's personal data as the log holds it: sealed under the key `keyID`.
public struct SealedPersonalData: Sendable, Hashable {
  /// The key's id in the log's key store.
  public var keyID: UInt64
  /// The sealed record: nonce ‖ ciphertext ‖ tag.
  public var record: SealedRecord

  public init(keyID: UInt64, record: SealedRecord) {
    self.keyID = keyID
    self.record = record
  }

  /// The key id as the payload writes it: 16 lowercase hex digits.
  public var keyText: String {
    let digits = String(keyID, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  static let keyExpectation = "a key id of 16 lowercase hex digits"
  static let sealedExpectation = "a sealed record in standard base64 (nonce, ciphertext, tag)"

  /// Reads `"key"`'s value.
  static func decodeKey(
    _ cursor: inout JSONCursor, _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> UInt64 {
    // Quick step: the digits read from the payload's bytes, without a `String`.
    cursor.skipWhitespace()
    var quick = cursor
    if let slice = quick.plainStringSlice(), let value = keyValue(quick.bytes(of: slice)) {
      cursor = quick
      return value
    }
    var text = try cursor.decodeString(field, scope)
    guard let value = text.withUTF8({ keyValue($0) }) else {
      throw scope.invalid(field, found: "\"\(text)\"")
    }
    return value
  }

  /// The value of exactly 16 lowercase hex digits, or `nil` for anything else: a key id as the
  /// payload and the key store write it.
  package static func keyValue(_ digits: UnsafeBufferPointer<UInt8>) -> UInt64? {
    guard digits.count == 16 else { return nil }
    var value: UInt64 = 0
    for digit in digits {
      let nibble: UInt8
      if digit &- 0x30 < 10 {
        nibble = digit &- 0x30
      } else if digit &- 0x61 < 6 {
        nibble = digit &- 0x61 &+ 10
      } else {
        return nil
      }
      value = value << 4 | UInt64(nibble)
    }
    return value
  }

  /// Reads `"sealed"`'s value.
  static func decodeRecord(
    _ cursor: inout JSONCursor, _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> SealedRecord {
    // Quick step: the text as the writer leaves it (no escapes), decoded from the payload's
    // bytes without a `String`; anything else is read below, by the same base64 decoder.
    cursor.skipWhitespace()
    var quick = cursor
    if let slice = quick.plainStringSlice(),
      let record = SealedRecord(base64: quick.bytes(of: slice)),
      record.bytes.count >= ChaCha20Poly1305.Nonce.byteCount + ChaCha20Poly1305.tagByteCount
    {
      cursor = quick
      return record
    }
    let text = try cursor.decodeString(field, scope)
    guard let record = SealedRecord(text: text),
      record.bytes.count >= ChaCha20Poly1305.Nonce.byteCount + ChaCha20Poly1305.tagByteCount
    else {
      let shown =
        text.count > 24 ? "\"\(text.prefix(24))…\" (\(text.utf8.count) bytes)" : "\"\(text)\""
      throw scope.invalid(field, found: shown)
    }
    return record
  }
}

/// A payload that carries a contact's personal data: `ContactAdded` and `ContactUpdated`, each
/// sealed and opened the same way.
public protocol PersonalDataPayload: EventPayload {
  /// The contact whose key seals it.
  var contactID: ContactID { get }
  /// The personal data as the log holds it; `nil` for the plaintext form.
  var sealed: SealedPersonalData? { get set }
  /// The payload once `plaintext` (the opened record, a schema 1 payload) is read.
  func opened(plaintext: [UInt8]) throws(EventsError) -> Self
  /// The payload for a contact whose key was destroyed.
  var erased: Self { get }
}

extension PersonalDataPayload {
  /// The schema version of the form the log stores, the personal fields sealed.
  public static var sealedSchemaVersion: Int { 2 }

  /// The payload with its personal data sealed as `sealed` (whose plaintext is this payload's
  /// schema 1 form, `encodedData` before sealing).
  public func sealing(_ sealed: SealedPersonalData) -> Self {
    var copy = self
    copy.sealed = sealed
    return copy
  }

  /// `plaintext` read as this type's schema 1 payload, keeping this payload's `sealed`: what
  /// `opened(plaintext:)` answers.
  /// - Parameters:
  ///   - clearFields: the clear fields the record repeats, as the error names them.
  ///   - repeatsClearFields: whether the record has the clear fields' values.
  /// - Throws: `EventsError` when the plaintext is not such a payload or its clear fields differ.
  func opened(
    _ plaintext: [UInt8], clearFields: String, _ repeatsClearFields: (Self) -> Bool
  ) throws(EventsError) -> Self {
    var inner = try Self(decoding: plaintext, schemaVersion: 1, strict: false)
    guard repeatsClearFields(inner) else {
      throw EventsError.invalidField(
        type: Self.eventType, field: "sealed",
        expected: "the same \(clearFields) as the clear fields", found: "a record that differs")
    }
    inner.sealed = sealed
    return inner
  }
}

/// A contact payload in two forms: schema 1 in clear (what a value made in code encodes) and
/// schema 2 with the personal fields sealed (what the log stores). Which form a payload is read
/// and written in is decided here, once for both contact events.
protocol TwoFormPersonalData: PersonalDataPayload {
  /// Reads the clear form (schema 1).
  init(version1 cursor: inout JSONCursor, strict: Bool) throws(EventsError)
  /// Reads the sealed form (schema 2).
  init(version2 cursor: inout JSONCursor, strict: Bool) throws(EventsError)
  /// Writes the clear form.
  func encodeClear(to writer: inout JSONWriter)
  /// Writes the sealed form, holding `sealed`.
  func encodeSealed(_ sealed: SealedPersonalData, to writer: inout JSONWriter)
}

extension TwoFormPersonalData {
  public static var newestSchemaVersion: Int { sealedSchemaVersion }

  public var encodedSchemaVersion: Int {
    sealed == nil ? Self.schemaVersion : Self.sealedSchemaVersion
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    switch schemaVersion {
    case 1: self = try Self(version1: &cursor, strict: strict)
    case Self.sealedSchemaVersion: self = try Self(version2: &cursor, strict: strict)
    default: throw Self.unsupported(schemaVersion)
    }
  }

  public func encode(to writer: inout JSONWriter) {
    if let sealed { encodeSealed(sealed, to: &writer) } else { encodeClear(to: &writer) }
  }
}

extension DomainEvent {
  /// The contact payload inside, when the event carries personal data.
  public var personalDataPayload: (any PersonalDataPayload)? {
    switch self {
    case .contact(.added(let added)): added
    case .contact(.updated(let update)): update
    default: nil
    }
  }

  /// The event as it is made in code: an opened contact event without the sealed form it was
  /// read from (any other event as it is).
  public var withoutSeal: DomainEvent {
    switch self {
    case .contact(.added(var added)):
      added.sealed = nil
      return .contact(.added(added))
    case .contact(.updated(var update)):
      update.sealed = nil
      return .contact(.updated(update))
    default:
      return self
    }
  }
}

extension ContactRecord {
  /// The name a contact shows once its personal data is erased (its key destroyed).
  public static let erasedName = "(erased)"

  /// The record of an erased contact: only what stays in clear.
  static func erased(
    id: ContactID, companyName: String?, isFavorite: Bool
  ) -> ContactRecord {
    ContactRecord(id: id, name: erasedName, companyName: companyName, isFavorite: isFavorite)
  }

  /// This contact once erased: the id, the company and the favourite flag, nothing else.
  public var erased: ContactRecord {
    .erased(id: id, companyName: companyName, isFavorite: isFavorite)
  }
}

/// The keys of a sealed form (schema 2) that every contact event's has: the contact's id, the
/// import's source, the key's id and the sealed record. Each form's key enum has them as cases,
/// beside its own clear fields, and `SealedFormFields` reads them, and `PayloadMembers` writes
/// them, for both.
protocol SealedFormKey: PayloadKey {
  static var id: Self { get }
  static var source: Self { get }
  static var key: Self { get }
  static var sealed: Self { get }
}

extension SealedFormKey {
  /// What the value of this key, one of the shared ones, must be.
  var sharedExpectation: String {
    if self == .id { return ContactID.expectation }
    if self == .source { return "a string" }
    if self == .key { return SealedPersonalData.keyExpectation }
    precondition(self == .sealed, "a form's own clear fields say what they expect")
    return SealedPersonalData.sealedExpectation
  }
}

/// The shared members of a sealed form being read (see `SealedFormKey`).
struct SealedFormFields {
  var id: ContactID?
  var source: String?
  var keyID: UInt64?
  var record: SealedRecord?

  /// Reads the value of `key`, one of the shared keys, held by `field`.
  mutating func read<Key: SealedFormKey>(
    _ key: Key, _ field: Int, _ cursor: inout JSONCursor, _ scope: PayloadScope
  ) throws(EventsError) {
    if key == .id {
      id = try cursor.decodeText(ContactID.self, field, scope)
    } else if key == .source {
      source = try cursor.decodeOptionalString(field, scope)
    } else if key == .key {
      keyID = try SealedPersonalData.decodeKey(&cursor, field, scope)
    } else {
      precondition(key == .sealed, "a form reads its own clear fields")
      record = try SealedPersonalData.decodeRecord(&cursor, field, scope)
    }
  }

  /// The contact's id, or the missing-field error.
  func requiredID<Key: SealedFormKey>(_ scope: PayloadScope, _: Key.Type) throws(EventsError)
    -> ContactID
  {
    try scope.required(id, Key.id)
  }

  /// The sealed personal data, or the missing-field error for its key or its record.
  func requiredData<Key: SealedFormKey>(
    _ scope: PayloadScope, _: Key.Type
  ) throws(EventsError) -> SealedPersonalData {
    SealedPersonalData(
      keyID: try scope.required(keyID, Key.key), record: try scope.required(record, Key.sealed))
  }
}

extension PayloadMembers {
  /// Writes `key`, one of a sealed form's shared keys, of contact `id`'s payload.
  mutating func addShared<Key: SealedFormKey>(
    _ key: Key, id: ContactID, source: String?, sealed: SealedPersonalData
  ) {
    if key == .id {
      add(id.rawValue)
    } else if key == .source {
      add(source)
    } else if key == .key {
      add(sealed.keyText)
    } else {
      precondition(key == .sealed, "a form writes its own clear fields")
      add(sealed.record.text)
    }
  }
}

extension ContactAdded: TwoFormPersonalData {
  /// The keys of the sealed form (schema 2).
  enum SealedKey: String, SealedFormKey {
    case id, companyName, isFavorite, source, key, sealed

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .isFavorite: "true or false"
      case .companyName: "a string"
      case .id, .source, .key, .sealed: sharedExpectation
      }
    }
  }

  public var contactID: ContactID { record.id }

  /// This payload once `plaintext`, the opened record (a schema 1 payload), is read: the
  /// record's personal fields filled in, the clear fields checked against it.
  /// - Throws: `EventsError` when the plaintext is not this contact's schema 1 payload.
  public func opened(plaintext: [UInt8]) throws(EventsError) -> ContactAdded {
    try opened(plaintext, clearFields: "id, companyName, isFavorite and source") { inner in
      inner.record.id == record.id && inner.record.companyName == record.companyName
        && inner.record.isFavorite == record.isFavorite && inner.source == source
    }
  }

  /// This payload for a contact whose key was destroyed: its personal fields gone.
  public var erased: ContactAdded {
    var copy = self
    copy.record = record.erased
    return copy
  }

  func encodeSealed(_ sealed: SealedPersonalData, to writer: inout JSONWriter) {
    writer.object(SealedKey.self) { key, members in
      switch key {
      case .companyName: members.add(record.companyName)
      case .isFavorite: members.add(record.isFavorite)
      case .id, .source, .key, .sealed:
        members.addShared(key, id: record.id, source: source, sealed: sealed)
      }
    }
  }

  init(version2 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: SealedKey.self, strict: strict)
    var shared = SealedFormFields()
    var companyName: String?
    var isFavorite: Bool?
    try cursor.decodeObject(scope) { (key: SealedKey, field, cursor) throws(EventsError) in
      switch key {
      case .companyName: companyName = try cursor.decodeOptionalString(field, scope)
      case .isFavorite: isFavorite = try cursor.decodeBool(field, scope)
      case .id, .source, .key, .sealed: try shared.read(key, field, &cursor, scope)
      }
    }
    self.record = .erased(
      id: try shared.requiredID(scope, SealedKey.self), companyName: companyName,
      isFavorite: try scope.required(isFavorite, SealedKey.isFavorite))
    self.source = shared.source
    sealed = try shared.requiredData(scope, SealedKey.self)
  }
}

extension ContactUpdated: TwoFormPersonalData {
  /// The keys of the sealed form (schema 2).
  enum SealedKey: String, SealedFormKey {
    case id, companyName, source, key, sealed

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .companyName: "a string or null"
      case .id, .source, .key, .sealed: sharedExpectation
      }
    }
  }

  public var contactID: ContactID { id }

  /// This update once `plaintext`, the opened record (a schema 1 payload), is read.
  /// - Throws: `EventsError` when the plaintext is not this contact's schema 1 update.
  public func opened(plaintext: [UInt8]) throws(EventsError) -> ContactUpdated {
    try opened(plaintext, clearFields: "id, companyName and source") { inner in
      inner.id == id && inner.companyName == companyName && inner.source == source
    }
  }

  /// This update for a contact whose key was destroyed: only the clear changes.
  public var erased: ContactUpdated {
    var copy = ContactUpdated(id: id, source: source)
    copy.companyName = companyName
    copy.sealed = sealed
    return copy
  }

  func encodeSealed(_ sealed: SealedPersonalData, to writer: inout JSONWriter) {
    writer.object(SealedKey.self) { key, members in
      switch key {
      case .companyName: members.add(companyName) { value, writer in writer.string(value) }
      case .id, .source, .key, .sealed:
        members.addShared(key, id: id, source: source, sealed: sealed)
      }
    }
  }

  init(version2 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: SealedKey.self, strict: strict)
    var shared = SealedFormFields()
    var companyName: FieldChange<String>?
    try cursor.decodeObject(scope) { (key: SealedKey, field, cursor) throws(EventsError) in
      switch key {
      case .companyName: companyName = try cursor.decodeTextChange(field, scope)
      case .id, .source, .key, .sealed: try shared.read(key, field, &cursor, scope)
      }
    }
    self.init(id: try shared.requiredID(scope, SealedKey.self), source: shared.source)
    self.companyName = companyName
    sealed = try shared.requiredData(scope, SealedKey.self)
  }
}
