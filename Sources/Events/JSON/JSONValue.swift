/// A parsed JSON value, for input that must be validated and inspected as a whole: `--data`
/// arguments, lines of an events file, source files being imported.
///
/// The log's read path never builds these; it decodes straight from bytes with `JSONCursor`.
/// Objects keep their members in source order, and numbers keep their literal text, so a value
/// re-encodes to exactly what was meant (`1.0` stays `1.0`; 17 significant digits stay 17).
public indirect enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number, as its literal text (already checked against JSON's grammar).
  case number(String)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The name of this value's kind, for error messages: `an object`, `a string`, ...
  public var kindDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// A short rendering of the value for error messages (strings quoted, long values cut).
  public var snippet: String {
    var writer = JSONWriter()
    encode(to: &writer)
    let text = String(decoding: writer.bytes, as: UTF8.self)
    return text.count > 60 ? String(text.prefix(57)) + "..." : text
  }

  /// The string, if this is a string.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The object, if this is an object.
  public var objectValue: JSONObject? {
    if case .object(let value) = self { return value }
    return nil
  }

  /// The elements, if this is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  /// The boolean, if this is `true` or `false`.
  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The number as a finite `Double`, if this is a number.
  public var doubleValue: Double? {
    if case .number(let literal) = self, let value = Double(literal), value.isFinite {
      return value
    }
    return nil
  }

  /// The number as an `Int64`, if this is an integer literal that fits.
  public var int64Value: Int64? {
    if case .number(let literal) = self { return Int64(literal) }
    return nil
  }

  /// Member lookup when this is an object; `nil` otherwise or when the key is absent.
  public subscript(key: String) -> JSONValue? {
    objectValue?[key]
  }

  /// Writes the value in compact form.
  public func encode(to writer: inout JSONWriter) {
    switch self {
    case .null: writer.null()
    case .bool(let value): writer.bool(value)
    case .number(let literal): writer.numberLiteral(literal)
    case .string(let value): writer.string(value)
    case .array(let elements):
      writer.beginArray()
      for element in elements { element.encode(to: &writer) }
      writer.endArray()
    case .object(let object):
      writer.beginObject()
      for member in object.members {
        writer.key(member.key)
        member.value.encode(to: &writer)
      }
      writer.endObject()
    }
  }

  /// The value's compact encoding.
  public var compactBytes: [UInt8] {
    var writer = JSONWriter()
    encode(to: &writer)
    return writer.bytes
  }
}

/// A JSON object's members in source order.
public struct JSONObject: Sendable, Equatable {
  /// One `"key": value` pair.
  public struct Member: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  /// The members, in the order they were written.
  public var members: [Member]

  public init(_ members: [Member] = []) {
    self.members = members
  }

  /// Creates an object from key-value pairs, in order.
  public init(_ pairs: KeyValuePairs<String, JSONValue>) {
    members = pairs.map { Member(key: $0.key, value: $0.value) }
  }

  /// The value for `key`, or `nil` when absent.
  ///
  /// Keys match code unit for code unit (RFC 8259 §8.3), not by `String`'s canonical equivalence.
  public subscript(key: String) -> JSONValue? {
    get { members.first { Self.sameBytes($0.key, key) }?.value }
    set {
      if let index = members.firstIndex(where: { Self.sameBytes($0.key, key) }) {
        if let newValue {
          members[index].value = newValue
        } else {
          members.remove(at: index)
        }
      } else if let newValue {
        members.append(Member(key: key, value: newValue))
      }
    }
  }

  /// Whether two keys have the same UTF-8 bytes: lengths first (known for native strings), then
  /// the bytes in place, a word at a time (`UTF8Bytes`). `elementsEqual` went a code unit at a
  /// time, about 200 instructions a lookup, and an importer looks up a dozen keys a record.
  @inline(__always)
  static func sameBytes(_ left: String, _ right: String) -> Bool {
    guard left.utf8.count == right.utf8.count else { return false }
    var left = left
    var right = right
    return left.withUTF8 { leftBytes in
      right.withUTF8 {
        UTF8Bytes.equal(UnsafeRawBufferPointer(leftBytes), UnsafeRawBufferPointer($0))
      }
    }
  }

  /// The keys, in order.
  public var keys: [String] { members.map(\.key) }
}

extension JSONValue {
  /// Parses one JSON value that must fill `bytes` (surrounding whitespace allowed).
  ///
  /// Stricter than the cursor: invalid UTF-8, lone surrogates and duplicate object keys are
  /// errors, since this is where user input enters the log.
  /// - Parameter allowingRepeatedKeys: keep a key given twice in an object as two members,
  ///   for a caller whose own decoder names that problem better (a payload's field path).
  /// - Throws: `JSONSyntaxError` with the byte offset of the first problem.
  public static func parse(
    _ bytes: some Collection<UInt8>, allowingRepeatedKeys: Bool = false
  ) throws(JSONSyntaxError) -> JSONValue {
    let array = Array(bytes)
    let result: Result<JSONValue, JSONSyntaxError> = array.withUnsafeBufferPointer { buffer in
      Result { () throws(JSONSyntaxError) -> JSONValue in
        var parser = JSONValueParser(JSONCursor(UnsafeRawBufferPointer(buffer)))
        parser.allowsRepeatedKeys = allowingRepeatedKeys
        let value = try parser.parseValue()
        try parser.cursor.expectEnd()
        return value
      }
    }
    return try result.get()
  }

  /// Parses one JSON value from text.
  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try parse(Array(text.utf8))
  }
}

/// Builds `JSONValue`s on top of `JSONCursor`, adding the checks user input needs.
struct JSONValueParser {
  var cursor: JSONCursor
  /// Whether a key given twice in one object is kept (as two members) rather than an error.
  var allowsRepeatedKeys = false

  init(_ cursor: JSONCursor) {
    self.cursor = cursor
  }

  mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    guard let next = cursor.peek() else { throw cursor.error("a value") }
    switch next {
    case 0x22: return .string(try parseString())
    case 0x7B: return try parseObject()
    case 0x5B: return try parseArray()
    case 0x74, 0x66, 0x6E:
      // A word that is not a literal is most likely text without quotes: say what fits.
      if cursor.readNull() { return .null }
      if let value = try? cursor.readBool() { return .bool(value) }
      throw cursor.error("a value (object, array, string, number, true, false or null)")
    case 0x2D, 0x30...0x39:
      let literal = try cursor.readNumberLiteral()
      let bytes = cursor.bytes(from: literal.lowerBound, to: literal.upperBound)
      return .number(String(decoding: bytes, as: UTF8.self))
    default:
      throw cursor.error("a value (object, array, string, number, true, false or null)")
    }
  }

  mutating func parseString() throws(JSONSyntaxError) -> String {
    let slice = try cursor.readStringSlice()
    let raw = cursor.bytes(of: slice)
    if !slice.hasEscapes {
      // ASCII, the commonest, is checked a word at a time; `String(validating:)` is generic
      // (about a thousand instructions a call) and only checks the rest.
      guard let text = UTF8Text.string(UnsafeRawBufferPointer(raw)) else {
        throw JSONSyntaxError(
          offset: slice.start + Self.firstInvalidUTF8Offset(raw), expected: "valid UTF-8",
          found: "an invalid byte sequence")
      }
      return text
    }
    return try decodeEscaped(raw, startOffset: slice.start)
  }

  /// Decodes a string with escapes, rejecting invalid UTF-8 and lone surrogates.
  private func decodeEscaped(
    _ raw: UnsafeBufferPointer<UInt8>, startOffset: Int
  ) throws(JSONSyntaxError) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(raw.count)
    var index = 0
    func hex4(_ at: Int) -> UInt32 {
      var value: UInt32 = 0
      for offset in 0..<4 { value = value << 4 | (JSONCursor.hexValue(raw[at + offset]) ?? 0) }
      return value
    }
    while index < raw.count {
      let byte = raw[index]
      guard byte == 0x5C else {
        output.append(byte)
        index += 1
        continue
      }
      let escaped = raw[index + 1]
      let escapeOffset = startOffset + index
      index += 2
      switch escaped {
      case 0x62: output.append(0x08)
      case 0x66: output.append(0x0C)
      case 0x6E: output.append(0x0A)
      case 0x72: output.append(0x0D)
      case 0x74: output.append(0x09)
      case 0x75:
        var scalarValue = hex4(index)
        index += 4
        if (0xDC00..<0xE000).contains(scalarValue) {
          throw JSONSyntaxError(
            offset: escapeOffset, expected: "a high surrogate before a low one",
            found: "a lone low surrogate")
        }
        if (0xD800..<0xDC00).contains(scalarValue) {
          guard index + 6 <= raw.count, raw[index] == 0x5C, raw[index + 1] == 0x75 else {
            throw JSONSyntaxError(
              offset: escapeOffset, expected: "a low surrogate after a high one",
              found: "a lone high surrogate")
          }
          let low = hex4(index + 2)
          guard (0xDC00..<0xE000).contains(low) else {
            throw JSONSyntaxError(
              offset: escapeOffset, expected: "a low surrogate after a high one",
              found: "a lone high surrogate")
          }
          scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
          index += 6
        }
        // Every value left is a valid scalar: surrogates were handled above.
        let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
        output.append(contentsOf: String(Character(scalar)).utf8)
      default: output.append(escaped)
      }
    }
    return try output.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
      guard let text = UTF8Text.string(UnsafeRawBufferPointer(buffer)) else {
        // Escapes decode to valid UTF-8 and are ASCII themselves, so the raw text is invalid
        // exactly where the output is: report that byte, not the string's start.
        throw JSONSyntaxError(
          offset: startOffset + Self.firstInvalidUTF8Offset(raw), expected: "valid UTF-8",
          found: "an invalid byte sequence")
      }
      return text
    }
  }

  /// The offset of the first byte that breaks UTF-8 in `bytes` (0 if none is found).
  static func firstInvalidUTF8Offset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      let length =
        byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 ? 2 : 0
      guard length > 0, index + length <= bytes.count,
        String(
          validating: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]), as: UTF8.self)
          != nil
      else { return index }
      index += length
    }
    return 0
  }

  mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    var members: [JSONObject.Member] = []
    // Keys are compared as code units, as RFC 8259 §8.3 says: `String`'s `==` would take the
    // canonically equivalent "é" (U+00E9) and "e\u{301}" for the same key. The keys before are
    // searched in place while they are few; a set of them is made only for a large object (a
    // set for every object cost more than the rest of its parse).
    var seen: Set<[UInt8]>?
    do {
      try cursor.readObject { keySlice, cursor in
        var keyParser = JSONValueParser(cursor)
        // Re-read the key through the validating path: rewind to its opening quote.
        keyParser.cursor.position = keySlice.start - 1
        let key = try keyParser.parseString()
        let isRepeated: Bool
        if let inserted = seen?.insert(Array(key.utf8)).inserted {
          isRepeated = !inserted
        } else {
          isRepeated = members.contains { JSONObject.sameBytes($0.key, key) }
          if !isRepeated, members.count >= 16 {
            seen = Set(members.map { Array($0.key.utf8) } + [Array(key.utf8)])
          }
        }
        guard !isRepeated || allowsRepeatedKeys else {
          throw JSONSyntaxError(
            offset: keySlice.start - 1, expected: "each key once in an object",
            found: "a second '\(key)'")
        }
        keyParser.cursor.position = cursor.position
        keyParser.allowsRepeatedKeys = allowsRepeatedKeys
        let value = try keyParser.parseValue()
        cursor.position = keyParser.cursor.position
        members.append(JSONObject.Member(key: key, value: value))
      }
    } catch let error as JSONSyntaxError {
      throw error
    } catch {
      throw JSONSyntaxError(offset: cursor.position, expected: "an object", found: "\(error)")
    }
    return .object(JSONObject(members))
  }

  mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    var elements: [JSONValue] = []
    do {
      try cursor.readArray { cursor in
        var elementParser = JSONValueParser(cursor)
        elementParser.allowsRepeatedKeys = allowsRepeatedKeys
        elements.append(try elementParser.parseValue())
        cursor.position = elementParser.cursor.position
      }
    } catch let error as JSONSyntaxError {
      throw error
    } catch {
      throw JSONSyntaxError(offset: cursor.position, expected: "an array", found: "\(error)")
    }
    return .array(elements)
  }
}
