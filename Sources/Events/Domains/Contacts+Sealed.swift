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

extension ContactAdded: PersonalDataPayload {
  /// The keys of the sealed form (schema 2).
  enum SealedKey: String, PayloadKey {
    case id, companyName, isFavorite, source, key, sealed

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: ContactID.expectation
      case .isFavorite: "true or false"
      case .companyName, .source: "a string"
      case .key: SealedPersonalData.keyExpectation
      case .sealed: SealedPersonalData.sealedExpectation
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
      case .id: members.add(record.id.rawValue)
      case .companyName: members.add(record.companyName)
      case .isFavorite: members.add(record.isFavorite)
      case .source: members.add(source)
      case .key: members.add(sealed.keyText)
      case .sealed: members.add(sealed.record.text)
      }
    }
  }

  init(version2 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: SealedKey.self, strict: strict)
    var id: ContactID?
    var companyName: String?
    var isFavorite: Bool?
    var source: String?
    var keyID: UInt64?
    var record: SealedRecord?
    try cursor.decodeObject(scope) { (key: SealedKey, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(ContactID.self, field, scope)
      case .companyName: companyName = try cursor.decodeOptionalString(field, scope)
      case .isFavorite: isFavorite = try cursor.decodeBool(field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      case .key: keyID = try SealedPersonalData.decodeKey(&cursor, field, scope)
      case .sealed: record = try SealedPersonalData.decodeRecord(&cursor, field, scope)
      }
    }
    self.record = .erased(
      id: try scope.required(id, SealedKey.id), companyName: companyName,
      isFavorite: try scope.required(isFavorite, SealedKey.isFavorite))
    self.source = source
    sealed = SealedPersonalData(
      keyID: try scope.required(keyID, SealedKey.key),
      record: try scope.required(record, SealedKey.sealed))
  }
}

extension ContactUpdated: PersonalDataPayload {
  /// The keys of the sealed form (schema 2).
  enum SealedKey: String, PayloadKey {
    case id, companyName, source, key, sealed

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: ContactID.expectation
      case .companyName: "a string or null"
      case .source: "a string"
      case .key: SealedPersonalData.keyExpectation
      case .sealed: SealedPersonalData.sealedExpectation
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
      case .id: members.add(id.rawValue)
      case .companyName: members.add(companyName) { value, writer in writer.string(value) }
      case .source: members.add(source)
      case .key: members.add(sealed.keyText)
      case .sealed: members.add(sealed.record.text)
      }
    }
  }

  init(version2 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: SealedKey.self, strict: strict)
    var id: ContactID?
    var companyName: FieldChange<String>?
    var source: String?
    var keyID: UInt64?
    var record: SealedRecord?
    try cursor.decodeObject(scope) { (key: SealedKey, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(ContactID.self, field, scope)
      case .companyName: companyName = try cursor.decodeTextChange(field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      case .key: keyID = try SealedPersonalData.decodeKey(&cursor, field, scope)
      case .sealed: record = try SealedPersonalData.decodeRecord(&cursor, field, scope)
      }
    }
    self.init(id: try scope.required(id, SealedKey.id), source: source)
    self.companyName = companyName
    sealed = SealedPersonalData(
      keyID: try scope.required(keyID, SealedKey.key),
      record: try scope.required(record, SealedKey.sealed))
  }
}
