@_spi(Tables) import Events

// MARK: One line of an events file

extension EventsFile {
  /// The members a line may have, in the order a writer usually puts them. Their names are
  /// declared here once; `meta`'s own keys are `EventMetadata.keys`.
  enum Member: Int, CaseIterable {
    case stream, type, data, meta, id, expectedVersion, schema

    /// The member's name.
    var key: StaticString {
      switch self {
      case .stream: "stream"
      case .type: "type"
      case .data: "data"
      case .meta: "meta"
      case .id: "id"
      case .expectedVersion: "expectedVersion"
      case .schema: "schema"
      }
    }

    var name: String { key.description }

    var bit: UInt8 { 1 << UInt8(rawValue) }

    /// The member whose unescaped name `key` spans, trying `hint` (the member a writer puts
    /// next) first.
    init?(_ key: JSONStringSlice, in cursor: JSONCursor, hint: Int) {
      if let member = Member(rawValue: hint), cursor.slice(key, equals: member.key) {
        self = member
        return
      }
      for member in Member.allCases where cursor.slice(key, equals: member.key) {
        self = member
        return
      }
      return nil
    }

    /// The member named `name` (a key read with its escapes resolved).
    init?(named name: String) {
      guard let member = Member.allCases.first(where: { $0.name == name }) else { return nil }
      self = member
    }

    /// `'stream', 'type', ...`, for messages.
    static var expectation: String {
      allCases.map { "'\($0.name)'" }.joined(separator: ", ")
    }
  }

  /// What a line's members hold as they are read, and the first problem found that is not a
  /// syntax error (those end the read at once; these wait for the end of the line, so that a
  /// syntax error anywhere is named first).
  struct LineFields {
    var stream: String?
    var type: String?
    var data: [UInt8]?
    var metadata = EventMetadata()
    var id: EventID?
    var expectedVersion = ExpectedVersion.any
    var schemaVersion = 1
    /// The first problem, and its rank: an unknown member comes first, then the members in
    /// `Member` order (a missing member is ranked as the member).
    var problem: (rank: Int, message: String)?

    mutating func note(_ rank: Int, _ message: @autoclosure () -> String) {
      if let problem, problem.rank <= rank { return }
      problem = (rank, message())
    }

    mutating func note(_ member: Member, _ message: @autoclosure () -> String) {
      note(member.rawValue + 1, message())
    }
  }

  /// Reads and checks one line of an events file (without its line break).
  ///
  /// One read, member by member, in any order, whitespace allowed between tokens. Each
  /// member's read starts with a quick step for the common shape (a string without escapes, a
  /// `data` object written compactly, plain digits); when it does not apply, the general step
  /// reads the same member again from its start with the strict JSON reader (invalid UTF-8, lone
  /// surrogates and repeated keys are errors) and words any problem. `data` is stored compact:
  /// its bytes as they are when they already are, else written again; a repeated key inside it
  /// is the payload's problem, named by its decoder whatever the whitespace.
  /// - Parameters:
  ///   - line: the line's bytes.
  ///   - location: where the line is (`events.jsonl:3`), for messages.
  /// - Returns: the write of the line's one event.
  /// - Throws: `EngineError.invalidEvent` naming `location`, what was expected and what was found.
  public static func decodeLine(
    _ line: some Collection<UInt8>, location: @autoclosure () -> String
  ) throws(EngineError) -> EventLog.StreamWrite {
    let result = line.withContiguousStorageIfAvailable { buffer in
      Result { () throws(EngineError) in
        try decodeLine(raw: UnsafeRawBufferPointer(buffer), location: location())
      }
    }
    if let result { return try result.get() }
    return try decodeLine(Array(line), location: location())
  }

  /// `decodeLine` of the bytes in place.
  static func decodeLine(
    raw line: UnsafeRawBufferPointer, location: @autoclosure () -> String
  ) throws(EngineError) -> EventLog.StreamWrite {
    var fields = LineFields()
    do {
      try readLine(line, into: &fields)
    } catch {
      throw .invalidEvent(location: location(), problem: "not valid JSON: \(error)")
    }
    // A member given with a value of the wrong kind was noted as such, at the same rank.
    if fields.stream == nil { fields.note(.stream, "missing 'stream'") }
    if fields.type == nil { fields.note(.type, "missing 'type'") }
    if fields.data == nil { fields.note(.data, "missing 'data'") }
    if let problem = fields.problem {
      throw .invalidEvent(location: location(), problem: problem.message)
    }
    guard let stream = fields.stream, let type = fields.type, let data = fields.data else {
      throw .invalidEvent(location: location(), problem: "missing 'stream', 'type' or 'data'")
    }
    let event = ProposedEvent(
      id: fields.id, type: type, schemaVersion: fields.schemaVersion, data: data,
      metadata: fields.metadata)
    try check(event, stream: stream, location: location())
    return EventLog.StreamWrite(
      stream: stream, expectedVersion: fields.expectedVersion, events: [event])
  }

  /// Reads a line's members into `fields`.
  /// - Throws: `JSONSyntaxError` at the first syntax error (offsets counted from the line's
  ///   start); `EngineError.invalidEvent` for a line that is JSON but not an object.
  static func readLine(_ line: UnsafeRawBufferPointer, into fields: inout LineFields) throws {
    guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
      throw JSONSyntaxError(offset: 0, expected: "a value", found: "end of input")
    }
    var cursor = JSONCursor(base: base, count: line.count)
    cursor.skipWhitespace()
    guard cursor.peek() == 0x7B else {
      let value = try strictValue(&cursor, from: cursor.position)
      try cursor.expectEnd()
      fields.note(0, "expected an object, found \(value.kindDescription)")
      return
    }
    var seen: UInt8 = 0
    var hint = 0
    // Unknown members, kept only to find one given twice (the line is invalid anyway).
    var unknown: [String] = []
    try cursor.readObject { key, cursor in
      var member = Member(key, in: cursor, hint: hint)
      var name: String?
      if member == nil {
        // General step: the key with its escapes resolved, strictly.
        guard case .string(let text) = try strictValue(&cursor, from: key.start - 1) else {
          return
        }
        try cursor.expect(0x3A, "':' after an object key")
        member = Member(named: text)
        name = text
      }
      guard let member else {
        let text = name ?? ""
        guard !unknown.contains(text) else { throw repeated(text, at: key.start - 1) }
        unknown.append(text)
        fields.note(0, "unknown member '\(text)' (expected \(Member.expectation))")
        cursor.skipWhitespace()
        _ = try strictValue(&cursor, from: cursor.position)
        return
      }
      guard seen & member.bit == 0 else { throw repeated(member.name, at: key.start - 1) }
      seen |= member.bit
      hint = member.rawValue + 1
      cursor.skipWhitespace()
      try readMember(member, &cursor, into: &fields)
    }
    try cursor.expectEnd()
  }

  /// The syntax error for a key given twice in one object, as the strict reader words it.
  static func repeated(_ key: String, at offset: Int) -> JSONSyntaxError {
    JSONSyntaxError(
      offset: offset, expected: "each key once in an object", found: "a second '\(key)'")
  }

  /// Reads the value of `member` (the cursor at its first byte).
  static func readMember(
    _ member: Member, _ cursor: inout JSONCursor, into fields: inout LineFields
  ) throws {
    let start = cursor.position
    switch member {
    case .stream, .type:
      var text = try quickString(&cursor)
      if text == nil {
        let value = try strictValue(&cursor, from: start)
        text = value.stringValue
        if text == nil {
          fields.note(member, "'\(member.name)' must be a string, found \(value.kindDescription)")
        }
      }
      if member == .stream { fields.stream = text } else { fields.type = text }
    case .data:
      // Quick step: a compact object (checked a word at a time) without escapes, whose bytes
      // are already what the log stores.
      // (`skipCompactObject` takes no whitespace outside strings.)
      if cursor.peek() == 0x7B, let range = cursor.skipCompactObject() {
        let bytes = cursor.bytes(from: range.lowerBound, to: range.upperBound)
        if isUnescapedUTF8(bytes) {
          fields.data = Array(bytes)
          return
        }
      }
      // Repeated keys are left to the payload's decoder, which names their field.
      let value = try strictValue(&cursor, from: start, allowingRepeatedKeys: true)
      guard case .object = value else {
        return fields.note(.data, "'data' must be an object, found \(value.kindDescription)")
      }
      fields.data = value.compactBytes
    case .meta:
      try readMeta(&cursor, into: &fields)
    case .id:
      if let text = try quickString(&cursor), let id = EventID(text) {
        fields.id = id
        return
      }
      let value = try strictValue(&cursor, from: start)
      guard let text = value.stringValue, let id = EventID(text) else {
        return fields.note(.id, "'id' must be a UUID string, found \(value.snippet)")
      }
      fields.id = id
    case .expectedVersion:
      if let version = cursor.plainPositiveInteger() {
        fields.expectedVersion = .exactly(version)
        return
      }
      let value = try strictValue(&cursor, from: start)
      let version: ExpectedVersion?
      switch value {
      case .string(let text): version = ExpectedVersion(text)
      case .number: version = value.int64Value.flatMap { $0 >= 0 ? .exactly($0) : nil }
      default: version = nil
      }
      guard let version else {
        return fields.note(
          .expectedVersion,
          "'expectedVersion' must be a whole number, \"no-stream\" or \"any\", found \(value.snippet)"
        )
      }
      fields.expectedVersion = version
    case .schema:
      if let number = cursor.plainPositiveInteger(), number <= Int64(Int32.max) {
        fields.schemaVersion = Int(number)
        return
      }
      let value = try strictValue(&cursor, from: start)
      guard let number = value.int64Value, number >= 1, number <= Int64(Int32.max) else {
        return fields.note(.schema, "'schema' must be a whole number ≥ 1, found \(value.snippet)")
      }
      fields.schemaVersion = Int(number)
    }
  }

  /// Reads `meta` with the log's reader of it (`LogLineCodec.readMetadata`, the one place its
  /// keys are matched), when its text has no escape and is valid UTF-8; else the strict reader
  /// checks it and words what is wrong, and the log's reader then fills the fields.
  static func readMeta(_ cursor: inout JSONCursor, into fields: inout LineFields) throws {
    let start = cursor.position
    var quick = cursor
    let isRead = withUnsafeMutablePointer(to: &fields.metadata) { metadata in
      (try? LogLineCodec.readMetadata(&quick, into: metadata)) != nil
    }
    if isRead, isUnescapedUTF8(quick.bytes(from: start, to: quick.position)) {
      cursor = quick
      return
    }
    fields.metadata = EventMetadata()
    let value = try strictValue(&cursor, from: start)
    guard case .object(let meta) = value else {
      return fields.note(.meta, "'meta' must be an object, found \(value.kindDescription)")
    }
    for entry in meta.members {
      guard entry.value.stringValue != nil else {
        return fields.note(
          .meta,
          "'meta.\(entry.key)' must be a string, found \(entry.value.kindDescription)")
      }
      guard EventMetadata.keys.contains(entry.key) else {
        let keys = EventMetadata.keys.map { "'\($0)'" }
        let expected = keys.dropLast().joined(separator: ", ") + " or " + (keys.last ?? "")
        return fields.note(.meta, "unknown 'meta' member '\(entry.key)' (expected \(expected))")
      }
    }
    // Checked: every key known, once, every value a valid string.
    do throws(LogLineCodec.Problem) {
      fields.metadata = try LogLineCodec.decodeMetadata(
        base: cursor.pointer(at: 0), range: start..<cursor.position)
    } catch {
      fields.note(.meta, "'meta': \(error.message)")
    }
  }

  /// Quick step of a string member: a string without escapes that is valid UTF-8, read in
  /// place; `nil` (the cursor where it was) for anything else.
  static func quickString(_ cursor: inout JSONCursor) throws -> String? {
    guard cursor.currentByte == 0x22 else { return nil }
    let start = cursor.position
    let slice = try cursor.readStringSlice()
    if !slice.hasEscapes,
      let text = UTF8Text.string(UnsafeRawBufferPointer(cursor.bytes(of: slice)))
    {
      return text
    }
    cursor.position = start
    return nil
  }

  /// General step of every member: the value from `start` read by the strict JSON reader,
  /// the cursor left after it.
  /// - Throws: `JSONSyntaxError` with its offset counted from the line's start.
  static func strictValue(
    _ cursor: inout JSONCursor, from start: Int, allowingRepeatedKeys: Bool = false
  ) throws -> JSONValue {
    cursor.position = start
    let range = try cursor.skipValue()
    do throws(JSONSyntaxError) {
      return try JSONValue.parse(
        cursor.bytes(from: range.lowerBound, to: range.upperBound),
        allowingRepeatedKeys: allowingRepeatedKeys)
    } catch {
      var shifted = error
      shifted.offset += range.lowerBound
      throw shifted
    }
  }

  /// Whether JSON text has no escape and is valid UTF-8: then its strings are what they say.
  /// Checked a word at a time (ASCII, the commonest, needs nothing more).
  static func isUnescapedUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
    var high: UInt64 = 0
    var index = 0
    while index + 8 <= bytes.count {
      let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      if JSONCursor.zeroBytes(word ^ backslashes) != 0 { return false }
      high |= word
      index += 8
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x5C { return false }
      high |= UInt64(byte)
      index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0 || UTF8Text.string(bytes) != nil
  }

  /// Checks `event` for `stream` as every raw append is checked before it reaches the log: the
  /// envelope rules, then the domain vocabulary (a known type, a readable schema version, a
  /// strictly valid payload, and the stream the payload names).
  /// - Throws: `EngineError.invalidEvent` naming `location` when there is one.
  public static func check(
    _ event: ProposedEvent, stream: String, location: @autoclosure () -> String?
  ) throws(EngineError) {
    if let problem = EnvelopeRules.problem(withStreamName: stream) {
      throw .invalidEvent(location: location(), problem: problem)
    }
    do throws(EventsError) {
      _ = try EventVocabulary.validate(
        type: event.type, schemaVersion: event.schemaVersion, data: event.data, stream: stream)
    } catch {
      throw .invalidEvent(location: location(), problem: error.description)
    }
  }
}
