#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The typed payload of one event type: its stable name, its schema version, the stream it
/// belongs to, and its byte-level JSON codec.
///
/// Encoding writes one compact JSON object with a fixed key order; decoding reads straight from
/// the bytes with `JSONCursor`. `decode(encode(x)) == x` for every value.
public protocol EventPayload: Sendable, Equatable {
  /// The event type's stable name as the log stores it (`ContactFavorited`). Never derived from
  /// the Swift type's name: renaming the type must not change the log.
  static var eventType: String { get }
  /// The schema version of the payload as a value made in code encodes it: the newest, except
  /// for the contact events, whose sealed form (`sealedSchemaVersion`) only a log writes.
  static var schemaVersion: Int { get }
  /// The newest schema version `init(decoding:)` reads.
  static var newestSchemaVersion: Int { get }
  /// The schema version `encode(to:)` writes for this value (the newest, unless the type has
  /// forms written by different versions, as contact events with and without sealed data).
  var encodedSchemaVersion: Int { get }
  /// The stream this event belongs to (`contact-13`).
  var streamName: String { get }
  /// Writes the payload as one compact JSON object, keys in the type's fixed order.
  func encode(to writer: inout JSONWriter)
  /// Reads a payload written with `schemaVersion`, upcasting older versions.
  /// - Parameters:
  ///   - cursor: positioned at the payload object; left just after it.
  ///   - schemaVersion: the version the payload was written with.
  ///   - strict: `true` for user input (unknown and repeated keys are errors); `false` for
  ///     replay, which skips keys written by newer minor versions.
  /// - Throws: `EventsError` naming the type, the field, what was expected and what was found.
  init(decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool) throws(EventsError)
}

extension EventPayload {
  public var encodedSchemaVersion: Int { Self.schemaVersion }
  public static var newestSchemaVersion: Int { schemaVersion }

  /// The payload's compact JSON bytes.
  public var encodedData: [UInt8] {
    var writer = JSONWriter(capacity: 128)
    encode(to: &writer)
    return writer.bytes
  }

  /// Decodes a payload that must fill `data` (surrounding whitespace allowed).
  /// - Throws: `EventsError` as `init(decoding:schemaVersion:strict:)`, and
  ///   `.malformedData` when bytes follow the object.
  public init(
    decoding data: [UInt8], schemaVersion: Int = Self.schemaVersion, strict: Bool = true
  ) throws(EventsError) {
    let result: Result<Self, EventsError> = data.withUnsafeBytes { buffer in
      Result { () throws(EventsError) -> Self in
        var cursor = JSONCursor(buffer)
        let payload = try Self(decoding: &cursor, schemaVersion: schemaVersion, strict: strict)
        do throws(JSONSyntaxError) {
          try cursor.expectEnd()
        } catch {
          throw EventsError.malformedData(type: Self.eventType, syntax: error)
        }
        return payload
      }
    }
    self = try result.get()
  }

  /// The error for a schema version this type cannot read.
  static func unsupported(_ schemaVersion: Int) -> EventsError {
    .unsupportedSchemaVersion(type: eventType, found: schemaVersion, newest: newestSchemaVersion)
  }
}

/// A value held in a payload as a JSON string and validated when read: zip codes, ids, dates.
protocol PayloadText {
  /// What the text must be, for messages.
  static var expectation: String { get }
  /// Validates `text`; throws `EventsError.invalidValue(expected:found:)` when it is not valid.
  init(_ text: String) throws(EventsError)
}

/// An entity id held in a payload: text checked as `DomainText.identifierProblem` checks it
/// (contact and location ids, state names). Decoders read it with `decodeIdentifier`, whose
/// quick step needs no `String` to check it.
protocol PayloadIdentifier: PayloadText {
  /// An id whose text was checked as `init(_:)` checks it.
  init(unchecked text: String)
}

extension PayloadText {
  /// The one decoder of the payloads that hold only their entity's id, `{"id"}` (the removals
  /// and `ContactErased`), at schema 1.
  static func decodeIDPayload(
    _ cursor: inout JSONCursor, type: any EventPayload.Type, layout: PayloadLayout,
    schemaVersion: Int, strict: Bool
  ) throws(EventsError) -> Self {
    guard schemaVersion == 1 else {
      throw .unsupportedSchemaVersion(
        type: type.eventType, found: schemaVersion, newest: type.newestSchemaVersion)
    }
    let scope = PayloadScope(type: type, layout: layout, strict: strict)
    var id: Self?
    try cursor.decodeObject(scope) { (key: IDPayloadKey, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(Self.self, field, scope)
      }
    }
    return try scope.required(id, IDPayloadKey.id)
  }

  /// Writes `{"id":"<text>"}`, the payload of the removals and `ContactErased`.
  static func encodeIDPayload(_ id: String, to writer: inout JSONWriter) {
    writer.object(IDPayloadKey.self) { key, members in
      switch key {
      case .id: members.add(id)
      }
    }
  }

  /// A new layout of `{"id"}` holding this type (each payload keeps its own as a constant).
  static func idPayloadLayout() -> PayloadLayout {
    PayloadLayout(IDPayloadKey.self) { _ in expectation }
  }
}

/// A payload that holds only its entity's id, `{"id"}` (the removals and `ContactErased`), at
/// schema 1: its codec is written once here, on top of `PayloadText`'s.
protocol IDPayload: EventPayload {
  /// The entity's id type.
  associatedtype ID: PayloadText & UTF8Identifier
  /// The entity's id.
  var id: ID { get }
  /// The payload of entity `id`.
  init(id: ID)
  /// `ID.idPayloadLayout()`, made once.
  static var layout: PayloadLayout { get }
}

extension IDPayload {
  public func encode(to writer: inout JSONWriter) {
    ID.encodeIDPayload(id.rawValue, to: &writer)
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    self.init(
      id: try ID.decodeIDPayload(
        &cursor, type: Self.self, layout: Self.layout, schemaVersion: schemaVersion,
        strict: strict))
  }
}

/// The keys of the payloads that hold only their entity's id, `{"id"}`: each payload's layout
/// (`PayloadText.idPayloadLayout()`) says what its id must be.
enum IDPayloadKey: String, PayloadKey {
  case id

  static let layout = PayloadLayout(Self.self)

  var expected: String {
    switch self {
    case .id: "an id"
    }
  }
}

/// A JSON object nested inside a payload (a coordinate, a phone list, an address).
protocol PayloadComponent: Sendable, Equatable {
  /// The object's keys in the order `encode(to:)` writes them.
  associatedtype Key: PayloadKey
  /// Reads the object at `cursor`; `scope` names the event type and the field holding it.
  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError)
  /// Writes the object.
  func encode(to writer: inout JSONWriter)
}

/// The key of a member whose value is a string.
protocol TextKey: PayloadKey {}

extension TextKey {
  var expected: String { "a string" }
}

/// A nested object whose members are all optional strings, an empty one read as absent (a
/// contact's phone numbers, its address): its keys and its `subscript` are all it declares.
protocol TextComponent: PayloadComponent where Key: TextKey {
  /// Every member absent.
  static var absent: Self { get }
  /// The member at `key`.
  subscript(key: Key) -> String? { get set }
}

extension TextComponent {
  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var component = Self.absent
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      component[key] = try cursor.decodeOptionalString(field, scope).nilIfEmpty
    }
    self = component
  }

  // Not inlined into the encoder of the payload holding it: inlined, the two closures broke
  // the optimizer (an ownership error in `ContactAdded.encode`, Swift 6.0 release builds).
  @inline(never)
  func encode(to writer: inout JSONWriter) {
    writer.object(Key.self) { key, members in members.add(self[key]) }
  }
}

/// A payload of one schema version whose object's members are its `Key`'s cases, in order.
///
/// The object and the schema-version check are written once here: a payload writes each
/// member (`encode(_:to:)`, an exhaustive switch over `Key`) and reads its object
/// (`init(decoding:scope:)`, with a scope made from `Key`), so that its keys are spelled only in
/// its enum.
protocol KeyedPayload: EventPayload {
  /// The object's keys in the order `encode(to:)` writes them.
  associatedtype Key: PayloadKey
  /// Writes the member `key` (`members.add`), or leaves it out (`members.skip()`).
  func encode(_ key: Key, to members: inout PayloadMembers)
  /// Reads the payload object at `cursor`, written with the type's one schema version.
  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError)
}

extension KeyedPayload {
  public func encode(to writer: inout JSONWriter) {
    writer.object(Key.self) { key, members in encode(key, to: &members) }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    guard schemaVersion == Self.schemaVersion else { throw Self.unsupported(schemaVersion) }
    try self.init(
      decoding: &cursor, scope: PayloadScope(type: Self.self, keys: Key.self, strict: strict))
  }
}

// MARK: - Layouts and scopes

/// The keys of one kind of payload object, declared once: the cases of an enum, whose raw
/// values are the keys as the log writes them, in the order the encoder writes them.
///
/// The layout is made from the cases, and decoders and encoders switch over them with no
/// `default:`: a key added without its decoding or its encoding does not compile.
protocol PayloadKey: RawRepresentable<String>, CaseIterable, Equatable, Sendable
where AllCases == [Self] {
  /// What the key's value must be, for messages.
  var expected: String { get }
  /// The layout of the cases, made once: `static let layout = PayloadLayout(Self.self)`.
  static var layout: PayloadLayout { get }
}

extension PayloadKey {
  /// The key's position in the layout (a search: for messages and nested scopes only).
  var index: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// One key of a payload object and what its value must be, for error messages.
struct PayloadField {
  /// The key.
  var name: String
  /// `"<key>":`, as the writer writes it and the decoder's quick step expects it.
  var quotedKey: UnsafeBufferPointer<UInt8>
  var expected: String
}

/// The keys of one kind of payload object, in the order the encoder writes them (see
/// `PayloadKey`).
///
/// Decoders resolve each key to its index here (checking the expected next key first, since
/// the log writes keys in this order) and switch on the key at that index.
///
/// The fields are allocated once and never freed: every layout is a static constant, so a
/// scope that holds one is copied per payload without touching a reference count.
struct PayloadLayout: @unchecked Sendable {
  let fields: UnsafeBufferPointer<PayloadField>

  /// The layout of `Key`'s cases; `expected` says what each holds (by default, the key's own
  /// `expected`).
  init<Key: PayloadKey>(_: Key.Type, expected: (Key) -> String = \.expected) {
    let keys = Key.allCases
    precondition(keys.count <= 64, "a payload layout holds at most 64 keys")
    let storage = UnsafeMutableBufferPointer<PayloadField>.allocate(capacity: keys.count)
    for (index, key) in keys.enumerated() {
      let quoted = [0x22] + Array(key.rawValue.utf8) + [0x22, 0x3A]
      let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: quoted.count)
      _ = bytes.initialize(from: quoted)
      storage.initializeElement(
        at: index,
        to: PayloadField(
          name: key.rawValue, quotedKey: UnsafeBufferPointer(bytes), expected: expected(key)))
    }
    fields = UnsafeBufferPointer(storage)
  }

  /// The keys as strings, for messages and tests.
  var names: [String] { fields.map(\.name) }

  /// The index of the key whose raw bytes `key` spans, or `nil` when it is not one of these.
  /// Escaped keys never match: the writer never escapes keys.
  @inline(__always)
  func index(of key: JSONStringSlice, in cursor: JSONCursor, hint: Int) -> Int? {
    if hint < fields.count, cursor.slice(key, equalsKey: fields[hint]) { return hint }
    for index in fields.indices where index != hint {
      if cursor.slice(key, equalsKey: fields[index]) { return index }
    }
    return nil
  }
}

/// Where a decoder stands: the event type, the object's layout, and the field holding it when it
/// is nested. Builds field paths (`address.city`, `pictures[2].url`) only for error messages;
/// everything it holds is trivially copyable, so making and passing one costs no reference
/// counting.
struct PayloadScope {
  /// The event type whose payload this is.
  let payload: any EventPayload.Type
  let layout: PayloadLayout
  let strict: Bool
  /// The field of an enclosing object that holds another, and the element index when that
  /// field is an array.
  struct Link {
    let layout: PayloadLayout
    let field: Int
    let index: Int?
  }
  /// The field of the enclosing object that holds this one, and the one that holds that (paths
  /// name at most two enclosing fields; payloads nest one deep).
  var parent: Link?
  var grandparent: Link?

  init(type: any EventPayload.Type, layout: PayloadLayout, strict: Bool) {
    self.payload = type
    self.layout = layout
    self.strict = strict
  }

  /// The scope of a payload object whose keys are `Key`'s.
  init<Key: PayloadKey>(type: any EventPayload.Type, keys: Key.Type, strict: Bool) {
    self.init(type: type, layout: Key.layout, strict: strict)
  }

  /// The event type's name, for messages.
  var type: String { payload.eventType }

  /// The scope of the object held by `field` (element `index` when the field is an array).
  func nested(_ layout: PayloadLayout, in field: Int, index: Int? = nil) -> PayloadScope {
    var scope = PayloadScope(type: payload, layout: layout, strict: strict)
    scope.parent = Link(layout: self.layout, field: field, index: index)
    scope.grandparent = parent
    return scope
  }

  /// The path of the field holding this object, and its element index when it is an array's.
  var parentField: (name: String, index: Int?)? {
    guard let parent else { return nil }
    return (
      Self.prefix(grandparent) + parent.layout.fields[parent.field].name.description, parent.index
    )
  }

  private static func prefix(_ link: Link?) -> String {
    guard let link else { return "" }
    let name = link.layout.fields[link.field].name.description
    return link.index.map { "\(name)[\($0)]." } ?? "\(name)."
  }

  /// The dotted path of `field`, e.g. `phone.work` or `pictures[1].url`.
  func path(_ field: Int) -> String {
    prefix + layout.fields[field].name.description
  }

  private var prefix: String {
    guard let (name, index) = parentField else { return "" }
    return index.map { "\(name)[\($0)]." } ?? "\(name)."
  }

  func invalid(_ field: Int, expected: String? = nil, found: String) -> EventsError {
    .invalidField(
      type: type, field: path(field), expected: expected ?? layout.fields[field].expected,
      found: found)
  }

  func malformed(_ error: JSONSyntaxError) -> EventsError {
    .malformedData(type: type, syntax: error)
  }

  /// `value`, or the missing-field error for `key` when it is `nil`.
  func required<Value, Key: PayloadKey>(_ value: Value?, _ key: Key) throws(EventsError) -> Value {
    guard let value else {
      let field = key.index
      throw EventsError.missingField(
        type: type, field: path(field), expected: layout.fields[field].expected)
    }
    return value
  }

  /// Converts a value's validation error into one naming this field.
  func rethrowing(_ error: EventsError, field: Int) -> EventsError {
    if case .invalidValue(let expected, let found) = error {
      return invalid(field, expected: expected, found: found)
    }
    return error
  }
}

// MARK: - Reading

extension JSONCursor {
  /// Reads a payload object member by member, resolving each key against `scope.layout` and
  /// calling `member` with the key's index and the cursor at its value, which `member` must
  /// consume.
  ///
  /// Unknown keys are skipped, or rejected when `scope.strict`; so are repeated keys (the last
  /// one wins when not strict). Required fields are checked by the caller with `scope.required`.
  mutating func decodeObject<Key: PayloadKey>(
    _ scope: PayloadScope, _ member: (Key, Int, inout JSONCursor) throws(EventsError) -> Void
  ) throws(EventsError) {
    assert(
      scope.layout.names == Key.layout.names, "a scope decodes the object its keys describe")
    skipWhitespace()
    guard position < end, base[position] == 0x7B else {
      let found = describeFoundValue()
      if let parent = scope.parentField {
        let field = parent.index.map { "\(parent.name)[\($0)]" } ?? parent.name
        throw EventsError.invalidField(
          type: scope.type, field: field, expected: "an object", found: found)
      }
      throw EventsError.invalidField(
        type: scope.type, field: "", expected: "an object", found: found)
    }
    position += 1
    depth += 1
    defer { depth -= 1 }
    if consumeEmptyContainer(0x7D) { return }
    let keys = Key.allCases
    var seen: UInt64 = 0
    var hint = 0
    while true {
      // Quick step: the layout's next key, as the writer puts it (`"<key>":`, no whitespace).
      if hint < keys.count, consumeKey(scope.layout.fields[hint].quotedKey) {
        let bit: UInt64 = 1 << UInt64(hint)
        if scope.strict, seen & bit != 0 {
          throw EventsError.duplicateField(type: scope.type, field: scope.path(hint))
        }
        seen |= bit
        let field = hint
        hint += 1
        try member(keys[field], field, &self)
        if try consumeMemberSeparator(scope) { continue }
        return
      }
      let key: JSONStringSlice
      do throws(JSONSyntaxError) {
        key = try readStringSlice()
        try expect(0x3A, "':' after an object key")
      } catch {
        throw scope.malformed(error)
      }
      if let field = scope.layout.index(of: key, in: self, hint: hint) {
        let bit: UInt64 = 1 << UInt64(field)
        if scope.strict, seen & bit != 0 {
          throw EventsError.duplicateField(type: scope.type, field: scope.path(field))
        }
        seen |= bit
        hint = field + 1
        try member(keys[field], field, &self)
      } else if scope.strict {
        let name = bytes(of: key)
        var path = String(decoding: name, as: UTF8.self)
        if key.hasEscapes { path = JSONStringSlice.unescape(name) }
        if let parent = scope.parentField {
          path = (parent.index.map { "\(parent.name)[\($0)]." } ?? "\(parent.name).") + path
        }
        throw EventsError.unknownField(type: scope.type, field: path, allowed: scope.layout.names)
      } else {
        do {
          try skipValue()
        } catch let error as JSONSyntaxError {
          throw scope.malformed(error)
        } catch {
          throw scope.malformed(JSONSyntaxError(offset: position, expected: "a value", found: "?"))
        }
      }
      if try consumeMemberSeparator(scope) { continue }
      return
    }
  }

  /// Consumes what follows an object member: `,` (returns `true`, another member follows) or
  /// `}` (returns `false`), whitespace before it allowed.
  @inline(__always)
  mutating func consumeMemberSeparator(_ scope: PayloadScope) throws(EventsError) -> Bool {
    try consumeSeparator(0x7D, "',' or '}' after an object member", scope)
  }

  /// `consumeSeparator(_:_:)`, its error converted into one naming the payload.
  @inline(__always)
  mutating func consumeSeparator(
    _ closer: UInt8, _ expected: String, _ scope: PayloadScope
  ) throws(EventsError) -> Bool {
    do throws(JSONSyntaxError) {
      return try consumeSeparator(closer, expected)
    } catch {
      throw scope.malformed(error)
    }
  }

  /// Consumes `quotedKey` (`"<key>":`) exactly (no whitespace), or nothing. Compares whole
  /// words.
  @inline(__always)
  mutating func consumeKey(_ quotedKey: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = quotedKey.count
    guard position + count <= end, let expected = quotedKey.baseAddress else { return false }
    let found = UnsafeRawPointer(base + position)
    let wanted = UnsafeRawPointer(expected)
    var index = 0
    while index + 8 <= count {
      guard
        found.loadUnaligned(fromByteOffset: index, as: UInt64.self)
          == wanted.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      else { return false }
      index += 8
    }
    while index < count {
      guard
        found.load(fromByteOffset: index, as: UInt8.self)
          == wanted.load(fromByteOffset: index, as: UInt8.self)
      else { return false }
      index += 1
    }
    position += count
    return true
  }

  /// Whether the raw content of `slice` is `field`'s key (escaped keys never are).
  @inline(__always)
  func slice(_ slice: JSONStringSlice, equalsKey field: PayloadField) -> Bool {
    let count = slice.end - slice.start
    guard !slice.hasEscapes, count == field.quotedKey.count - 3,
      let name = field.quotedKey.baseAddress
    else { return false }
    return memcmp(base + slice.start, name + 1, count) == 0
  }

  /// Reads an array held by `field`, calling `element` with each index and the cursor at it.
  mutating func decodeArray(
    _ field: Int, _ scope: PayloadScope,
    _ element: (Int, inout JSONCursor) throws(EventsError) -> Void
  ) throws(EventsError) {
    skipWhitespace()
    guard position < end, base[position] == 0x5B else {
      throw scope.invalid(field, found: describeFoundValue())
    }
    position += 1
    depth += 1
    defer { depth -= 1 }
    if consumeEmptyContainer(0x5D) { return }
    var index = 0
    while true {
      try element(index, &self)
      index += 1
      guard try consumeSeparator(0x5D, "',' or ']' after an array element", scope) else { return }
    }
  }

  /// Reads the nested object held by `field` (element `index` when it is an array's).
  mutating func decodeComponent<Component: PayloadComponent>(
    _: Component.Type, _ field: Int, _ scope: PayloadScope, index: Int? = nil
  ) throws(EventsError) -> Component {
    try Component(
      decoding: &self, scope: scope.nested(Component.Key.layout, in: field, index: index))
  }

  /// Reads the string held by `field`.
  mutating func decodeString(_ field: Int, _ scope: PayloadScope) throws(EventsError) -> String {
    makeString(try stringSlice(field, scope))
  }

  /// Reads the string held by `field` and returns where it lies, still escaped.
  private mutating func stringSlice(
    _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> JSONStringSlice {
    skipWhitespace()
    guard position < end, base[position] == 0x22 else {
      throw scope.invalid(field, found: describeFoundValue())
    }
    do throws(JSONSyntaxError) {
      return try readStringSlice()
    } catch {
      throw scope.malformed(error)
    }
  }

  /// Reads the entity id held by `field` and returns where it lies, checked as
  /// `DomainText.identifierProblem` checks it. Quick step: printable ASCII without a space at
  /// either end is an id whatever it says, and needs no `String`.
  mutating func decodeIdentifier(
    _ field: Int, _ scope: PayloadScope, expected: String? = nil
  ) throws(EventsError) -> JSONStringSlice {
    let slice = try stringSlice(field, scope)
    if isPlainIdentifier(slice) { return slice }
    if let problem = DomainText.identifierProblem(slice.string(base: base)) {
      throw scope.invalid(field, expected: expected, found: problem)
    }
    return slice
  }

  /// Reads the entity id held by `field` (see `decodeIdentifier`).
  mutating func decodeText<Value: PayloadIdentifier>(
    _: Value.Type, _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> Value {
    Value(unchecked: makeString(try decodeIdentifier(field, scope, expected: Value.expectation)))
  }

  /// Whether `slice` is an id that needs no other check: no escapes, 1 to 200 bytes of
  /// printable ASCII, no space at either end.
  @inline(__always)
  func isPlainIdentifier(_ slice: JSONStringSlice) -> Bool {
    let count = slice.end - slice.start
    return !slice.hasEscapes && count > 0 && count <= 200 && base[slice.start] != 0x20
      && base[slice.end - 1] != 0x20 && Self.isPrintableASCII(base + slice.start, count: count)
  }

  /// Checks that `field` holds a string or `null`, without making it.
  mutating func skipString(_ field: Int, _ scope: PayloadScope) throws(EventsError) {
    if readNull() { return }
    try checkString(field, scope)
  }

  /// Reads the string held by `field`, or checks it as `decodeString` would and returns `""`
  /// when `skipsUnshownText` is set: for text no read model keeps.
  mutating func decodeUnshownString(
    _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> String {
    guard skipsUnshownText else { return try decodeString(field, scope) }
    try checkString(field, scope)
    return ""
  }

  /// Checks that `field` holds a string, as `decodeString` reads it, without making it.
  mutating func checkString(_ field: Int, _ scope: PayloadScope) throws(EventsError) {
    _ = try stringSlice(field, scope)
  }

  /// Reads the string held by `field`, or `nil` for `null`.
  mutating func decodeOptionalString(
    _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> String? {
    if readNull() { return nil }
    return try decodeString(field, scope)
  }

  /// Reads the string held by `field` and validates it as a `Value`.
  mutating func decodeText<Value: PayloadText>(
    _: Value.Type, _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> Value {
    let text = try decodeString(field, scope)
    do throws(EventsError) {
      return try Value(text)
    } catch {
      throw scope.rethrowing(error, field: field)
    }
  }

  /// Reads the string held by `field` as one of `Value`'s raw values.
  mutating func decodeEnumeration<Value: RawRepresentable<String>>(
    _: Value.Type, _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> Value {
    let text = try decodeString(field, scope)
    guard let value = Value(rawValue: text) else {
      throw scope.invalid(field, found: DomainText.quoted(text))
    }
    return value
  }

  /// Reads `true` or `false` held by `field`.
  mutating func decodeBool(_ field: Int, _ scope: PayloadScope) throws(EventsError) -> Bool {
    try decodeScalar(field, scope) { cursor in try? cursor.readBool() }
  }

  /// Reads the integer held by `field`.
  mutating func decodeInt(_ field: Int, _ scope: PayloadScope) throws(EventsError) -> Int {
    try decodeScalar(field, scope) { cursor in (try? cursor.readInt64()).flatMap(Int.init(exactly:))
    }
  }

  /// Reads the finite number held by `field`.
  mutating func decodeDouble(_ field: Int, _ scope: PayloadScope) throws(EventsError) -> Double {
    try decodeScalar(field, scope) { cursor in try? cursor.readDouble() }
  }

  /// The value `read` reads at `field`, or, when it reads none, the invalid-field error that
  /// describes what is there instead.
  @inline(__always)
  private mutating func decodeScalar<Value>(
    _ field: Int, _ scope: PayloadScope, _ read: (inout JSONCursor) -> Value?
  ) throws(EventsError) -> Value {
    skipWhitespace()
    let start = position
    if let value = read(&self) { return value }
    position = start
    throw scope.invalid(field, found: describeFoundValue())
  }

  /// Reads the instant held by `field`, in the log's form `2026-11-22T10:15:00.000Z`.
  mutating func decodeTimestamp(
    _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> Timestamp {
    skipWhitespace()
    guard position < end, base[position] == 0x22 else {
      throw scope.invalid(field, found: describeFoundValue())
    }
    let slice: JSONStringSlice
    do throws(JSONSyntaxError) {
      slice = try readStringSlice()
    } catch {
      throw scope.malformed(error)
    }
    if !slice.hasEscapes, let timestamp = Timestamp.parseLogForm(bytes(of: slice)) {
      return timestamp
    }
    throw scope.invalid(field, found: DomainText.quoted(slice.string(base: base)))
  }

  /// Consumes the next value and describes it for an error message: strings quoted, numbers and
  /// literals as written, containers by kind.
  mutating func describeFoundValue() -> String {
    skipWhitespace()
    guard position < end else { return "end of input" }
    let start = position
    switch base[position] {
    case 0x22:
      if let slice = try? readStringSlice() { return DomainText.quoted(slice.string(base: base)) }
    case 0x7B: return "an object"
    case 0x5B: return "an array"
    case 0x74, 0x66:
      if let value = try? readBool() { return value ? "true" : "false" }
    case 0x6E:
      if readNull() { return "null" }
    case 0x2D, 0x30...0x39:
      if let literal = try? readNumberLiteral() {
        let text = String(
          decoding: UnsafeBufferPointer(start: base + literal.lowerBound, count: literal.count),
          as: UTF8.self)
        return "the number \(text)"
      }
    default: break
    }
    position = start
    return JSONSyntaxError.describe(base, at: start, end: end)
  }
}

// MARK: - Writing

extension JSONWriter {
  /// Writes an instant in the log's form, as a string.
  mutating func timestamp(_ value: Timestamp) {
    beginValue()
    bytes.append(0x22)
    value.appendText(to: &bytes)
    bytes.append(0x22)
    needsComma = true
  }

  /// Writes one object whose members are `Key`'s cases, in order: `body` writes the value of
  /// each key it is given (an exhaustive switch over the keys), or leaves the member out, so
  /// that a key is spelled only in its enum.
  mutating func object<Key: PayloadKey>(
    _: Key.Type, _ body: (Key, inout PayloadMembers) -> Void
  ) {
    beginObject()
    var members = PayloadMembers(layout: Key.layout)
    swap(&self, &members.writer)
    for (index, key) in Key.allCases.enumerated() {
      members.next = index
      body(key, &members)
      assert(
        members.next == index + 1,
        "an encoder wrote '\(key.rawValue)' \(members.next - index) times")
    }
    swap(&self, &members.writer)
    endObject()
  }
}

/// The members of one object being written, in its layout's order (see `JSONWriter.object`).
/// Each call writes the layout's next key and its value, or leaves the member out (a `nil`, an
/// unchanged field, an empty component).
struct PayloadMembers {
  /// The writer, lent by `JSONWriter.object` while the members are written.
  fileprivate var writer = JSONWriter(capacity: 0)
  let layout: PayloadLayout
  /// The position in the layout of the next member.
  fileprivate(set) var next = 0

  /// Writes the next member's key and returns the writer at its value.
  private mutating func key() {
    if writer.needsComma { writer.bytes.append(0x2C) }
    writer.bytes.append(contentsOf: layout.fields[next].quotedKey)
    writer.afterKey = true
    next += 1
  }

  /// Leaves the next member out.
  mutating func skip() {
    next += 1
  }

  /// `"key":"value"`.
  mutating func add(_ value: String) {
    key()
    writer.string(value)
  }

  /// `"key":"value"`, or nothing for `nil`.
  mutating func add(_ value: String?) {
    guard let value else { return skip() }
    add(value)
  }

  /// `"key":"value"`, or nothing when `value` is empty.
  mutating func add(unlessEmpty value: String) {
    guard !value.isEmpty else { return skip() }
    add(value)
  }

  /// `"key":[{...},...]`, or nothing when `elements` is empty.
  mutating func add(unlessEmpty elements: [some PayloadComponent]) {
    guard !elements.isEmpty else { return skip() }
    key()
    writer.beginArray()
    for element in elements { element.encode(to: &writer) }
    writer.endArray()
  }

  /// `"key":true` or `"key":false`.
  mutating func add(_ value: Bool) {
    key()
    writer.bool(value)
  }

  /// `"key":<integer>`.
  mutating func add(_ value: Int) {
    key()
    writer.integer(value)
  }

  /// `"key":<number>`.
  mutating func add(_ value: Double) {
    key()
    writer.number(value)
  }

  /// `"key":"<instant in the log's form>"`, or nothing for `nil`.
  mutating func add(_ value: Timestamp?) {
    guard let value else { return skip() }
    key()
    writer.timestamp(value)
  }

  /// `"key":{...}`, or nothing when `omitted`.
  mutating func add(_ value: some PayloadComponent, omitted: Bool = false) {
    guard !omitted else { return skip() }
    key()
    value.encode(to: &writer)
  }

  /// `"key":{...}`, or nothing for `nil`.
  mutating func add<Component: PayloadComponent>(_ value: Component?) {
    guard let value else { return skip() }
    add(value)
  }

  /// `"key":<value>` for a change, `"key":null` for clearing, nothing when unchanged.
  mutating func add<Value>(
    _ change: FieldChange<Value>?, _ write: (Value, inout JSONWriter) -> Void
  ) {
    guard let change else { return skip() }
    key()
    switch change {
    case .set(let value): write(value, &writer)
    case .cleared: writer.null()
    }
  }

  /// `"key":{...}` with the members `body` writes following `layout`, or nothing when
  /// `omitted`.
  mutating func addObject<Key: PayloadKey>(
    _: Key.Type, omitted: Bool = false, _ body: (Key, inout PayloadMembers) -> Void
  ) {
    guard !omitted else { return skip() }
    key()
    writer.object(Key.self, body)
  }
}

// MARK: - Text helpers

/// Text rendering and checks shared by the domains.
package enum DomainText {
  /// `text` in single quotes for an error message, control characters escaped, cut at 60
  /// characters; `an empty string` when empty.
  static func quoted(_ text: String) -> String {
    if text.isEmpty { return "an empty string" }
    return "'" + escaped(text, cutAt: 60) + "'"
  }

  /// `text` for a message: line feeds, carriage returns and tabs as `\n`, `\r`, `\t`, other
  /// control characters and U+FEFF as `\u{...}`, and cut after `limit` characters with `...`.
  package static func escaped(_ text: String, cutAt limit: Int) -> String {
    var result = ""
    for (count, scalar) in text.unicodeScalars.enumerated() {
      if count == limit {
        result += "..."
        break
      }
      switch scalar {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{FEFF}" {
          result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
  }

  /// Whether `text` is empty or only white space.
  static func isBlank(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
  }

  /// Why `text` cannot be an entity id (it must make a valid stream name), or `nil` when it can:
  /// 1 to 200 bytes of UTF-8, no control characters, no leading or trailing white space.
  static func identifierProblem(_ text: String) -> String? {
    // Fast path, taken by nearly every id replay decodes: printable ASCII with no space at
    // either end is always acceptable. It runs once per event, so it avoids Unicode tables.
    var text = text
    let isPlainASCII = text.withUTF8 { bytes in
      bytes.count > 0 && bytes.count <= 200 && bytes.first != 0x20 && bytes.last != 0x20
        && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F || $0 == 0x20 }
    }
    if isPlainASCII { return nil }
    if text.isEmpty { return "an empty string" }
    if text.utf8.count > 200 { return "\(quoted(text)) (\(text.utf8.count) bytes)" }
    if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      return "\(quoted(text)) (it holds a control character)"
    }
    if let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
      first.properties.isWhitespace || last.properties.isWhitespace
    {
      return "\(quoted(text)) (it starts or ends with white space; trim it)"
    }
    return nil
  }

  /// What an entity id must be, for messages.
  static let identifierExpectation =
    "1 to 200 bytes with no control characters and no leading or trailing white space"
}

/// A change to a field that may be absent: set it to a value, or clear it. A payload holds
/// `FieldChange?`, where `nil` means "unchanged"; in JSON an unchanged field is omitted and a
/// cleared one is `null`.
public enum FieldChange<Value: Sendable & Equatable>: Sendable, Equatable {
  /// The field now holds `value`.
  case set(Value)
  /// The field is now absent.
  case cleared

  /// The value after the change (`nil` when cleared).
  public var newValue: Value? {
    switch self {
    case .set(let value): value
    case .cleared: nil
    }
  }

  /// The change from `old` to `new`, or `nil` when they are equal.
  public static func between(_ old: Value?, _ new: Value?) -> FieldChange? {
    guard old != new else { return nil }
    return new.map { .set($0) } ?? .cleared
  }
}

extension FieldChange: Hashable where Value: Hashable {}
