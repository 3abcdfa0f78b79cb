#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A forward-only, zero-copy reader of JSON text held in memory.
///
/// This is the log's hot path: payloads are decoded straight from the line's bytes into typed
/// events, with no intermediate dictionaries. Strings without escapes become `String`s in one copy
/// (short ones without any allocation); keys are compared as bytes and never become `String`s.
///
/// The cursor borrows the memory it reads: it is only valid inside the closure that handed out
/// the pointer (`withUnsafeBytes` and the like).
///
/// It follows RFC 8259 strictly: no comments, no trailing commas, no leading zeros, no raw control
/// characters in strings. It does not validate UTF-8 or pair surrogates, which the log's own
/// writer guarantees: decoding repairs them to U+FFFD. `JSONValue.parse` rejects them instead.
public struct JSONCursor {
  @usableFromInline let base: UnsafePointer<UInt8>
  /// Byte offset of the next byte to read, relative to `base`.
  public var position: Int
  /// Byte offset one past the last readable byte.
  public let end: Int
  /// Nesting depth of arrays and objects being read; bounded so hostile input cannot overflow the
  /// stack.
  @usableFromInline var depth = 0
  /// Short strings come from here when set (replay sets one for its whole run; the cache must
  /// outlive every cursor that refers to it, which is why the reference is unmanaged).
  public var strings: Unmanaged<StringCache>?
  /// How many bytes past `end` may be read (never interpreted), so that short strings near the
  /// end can be loaded a word at a time. A payload inside a log line is followed by the line's
  /// checksum member, so replay sets this.
  public var readableSlack = 0
  /// Set where the decoded event goes only to the package's read models (replay) or is only
  /// checked (`verify`): text no read model keeps (an imported animal's descriptions, a few kilobytes of each `AnimalImported`)
  /// is checked exactly as it is when made, but not made; the event holds `""` there. Decoding
  /// accepts and refuses the same payloads either way.
  public var skipsUnshownText = false

  /// The deepest nesting the reader accepts.
  public static let maximumDepth = 512

  /// Creates a cursor over `count` bytes at `base`.
  @inlinable
  package init(base: UnsafePointer<UInt8>, count: Int) {
    self.base = base
    self.position = 0
    self.end = count
  }

  /// Creates a cursor over the bytes of `buffer`, which must outlive the cursor.
  @inlinable
  package init(_ buffer: UnsafeRawBufferPointer) {
    // An empty buffer may have no address; nothing is ever read through it then, so any
    // non-null pointer serves (bit pattern 1 is never nil).
    let pointer = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    self.init(base: pointer ?? UnsafePointer(bitPattern: 1).unsafelyUnwrapped, count: buffer.count)
  }

  /// Creates a cursor over the bytes of `buffer`, which must outlive the cursor: the fuzz
  /// targets' way in (Fuzz/ is a package of its own, so it cannot see the `package` initializers;
  /// it imports this one with `@_spi(Fuzzing) import Events`).
  @_spi(Fuzzing) @inlinable
  public init(unsafeBytes buffer: UnsafeRawBufferPointer) {
    self.init(buffer)
  }

  // MARK: Errors

  @usableFromInline
  func error(_ expected: String, at offset: Int? = nil) -> JSONSyntaxError {
    let at = offset ?? position
    return JSONSyntaxError(
      offset: at, expected: expected, found: JSONSyntaxError.describe(base, at: at, end: end))
  }

  // MARK: Whitespace and punctuation

  /// Skips JSON whitespace (space, tab, line feed, carriage return).
  ///
  /// Inlined for its first step: the common case, a byte above 0x20 (never whitespace), costs
  /// one comparison and no call.
  @inlinable @inline(__always)
  public mutating func skipWhitespace() {
    guard position < end, base[position] <= 0x20 else { return }
    skipWhitespaceFromHere()
  }

  /// The loop of `skipWhitespace`.
  @usableFromInline
  mutating func skipWhitespaceFromHere() {
    while position < end {
      switch base[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  /// The next non-whitespace byte, without consuming it; `nil` at the end.
  @inlinable
  public mutating func peek() -> UInt8? {
    skipWhitespace()
    return position < end ? base[position] : nil
  }

  /// Whether only whitespace remains.
  @inlinable
  public mutating func isAtEnd() -> Bool {
    skipWhitespace()
    return position >= end
  }

  /// Consumes `byte` (after whitespace) or throws, naming `what` as the expectation.
  @inlinable
  public mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String)
    throws(JSONSyntaxError)
  {
    skipWhitespace()
    guard position < end, base[position] == byte else { throw error(what()) }
    position += 1
  }

  /// Throws unless only whitespace remains.
  public mutating func expectEnd() throws(JSONSyntaxError) {
    skipWhitespace()
    guard position >= end else { throw error("end of input") }
  }

  // MARK: Strings

  /// Reads a string and returns it decoded.
  @inlinable
  public mutating func readString() throws(JSONSyntaxError) -> String {
    makeString(try readStringSlice())
  }

  /// Reads a string and returns where its raw (still escaped) content lies, without copying.
  @inlinable
  public mutating func readStringSlice() throws(JSONSyntaxError) -> JSONStringSlice {
    skipWhitespace()
    guard position < end, base[position] == 0x22 else { throw error("a string") }
    position += 1
    let start = position
    var hasEscapes = false
    // Eight bytes at a time wherever a whole word is readable (the slack past `end` counts),
    // jumping straight to the first quote, backslash or control character; byte by byte only
    // in the last few bytes of a cursor without slack.
    let lastWord = end + readableSlack - 8
    while true {
      if position <= lastWord {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
        let flags = Self.specialBytes(word)
        if flags == 0 {
          position += 8
          continue
        }
        // The lowest flag is exact: it marks a byte that needs attention.
        position += flags.trailingZeroBitCount &>> 3
      }
      guard position < end else { break }
      let byte = base[position]
      if byte == 0x22 {
        let slice = JSONStringSlice(start: start, end: position, hasEscapes: hasEscapes)
        position += 1
        return slice
      }
      if byte == 0x5C {
        hasEscapes = true
        position += 1
        try skipEscape()
        continue
      }
      if byte < 0x20 {
        throw error("control characters to be escaped inside a string")
      }
      position += 1
    }
    // Words may have run past `end`: the string is unterminated where the input ends.
    position = end
    throw error("'\"' to close the string")
  }

  /// The high bit of each byte of `word` (little-endian) that is `"`, `\` or below 0x20, and
  /// perhaps of some bytes above the lowest such byte; zero when there is none. The classic
  /// "has zero byte" and "has byte less than" bit tricks: borrows only run upwards, so the
  /// lowest flag is always exact.
  @inlinable @inline(__always)
  package static func specialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quotes = word ^ (ones &* 0x22)
    let backslashes = word ^ (ones &* 0x5C)
    let hasQuote = (quotes &- ones) & ~quotes
    let hasBackslash = (backslashes &- ones) & ~backslashes
    let hasControl = (word &- ones &* 0x20) & ~word
    return (hasQuote | hasBackslash | hasControl) & highs
  }

  /// Validates the escape after a backslash (position is just after the `\`).
  @usableFromInline
  mutating func skipEscape() throws(JSONSyntaxError) {
    guard position < end else { throw error("an escape character after '\\'") }
    switch base[position] {
    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
      position += 1
    case 0x75:  // \uXXXX, checked fully (surrogates included) when decoding.
      position += 1
      for _ in 0..<4 {
        guard position < end, Self.hexValue(base[position]) != nil else {
          throw error("four hex digits after '\\u'")
        }
        position += 1
      }
    default:
      throw error("one of '\"\\/bfnrtu' after '\\'")
    }
  }

  @usableFromInline
  static func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case 0x30...0x39: return UInt32(byte - 0x30)
    case 0x41...0x46: return UInt32(byte - 0x41 + 10)
    case 0x61...0x66: return UInt32(byte - 0x61 + 10)
    default: return nil
    }
  }

  /// Compares the raw content of a string slice with `literal` (which must need no escaping).
  @inlinable
  public func slice(_ slice: JSONStringSlice, equals literal: StaticString) -> Bool {
    let count = slice.end - slice.start
    guard !slice.hasEscapes, count == literal.utf8CodeUnitCount else { return false }
    return memcmp(base + slice.start, literal.utf8Start, count) == 0
  }

  /// The raw bytes of a string slice (escapes not decoded).
  @inlinable
  package func bytes(of slice: JSONStringSlice) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + slice.start, count: slice.end - slice.start)
  }

  /// The raw bytes between two offsets, for handing a sub-value to another reader.
  @inlinable
  package func bytes(from start: Int, to stop: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base + start, count: stop - start)
  }

  // MARK: Numbers

  /// Reads a number and returns the offsets of its literal, checked against RFC 8259's grammar.
  @inlinable
  public mutating func readNumberLiteral() throws(JSONSyntaxError) -> Range<Int> {
    skipWhitespace()
    let start = position
    if position < end, base[position] == 0x2D {
      position += 1
      guard position < end, base[position] &- 0x30 < 10 else { throw error("a digit after '-'") }
    }
    guard position < end, base[position] &- 0x30 < 10 else { throw error("a number", at: start) }
    if base[position] == 0x30 {
      position += 1
      // `01` is not a number followed by garbage but a malformed number: say so.
      if position < end, base[position] &- 0x30 < 10 {
        throw error("a number without leading zeros", at: start)
      }
    } else {
      while position < end, base[position] &- 0x30 < 10 { position += 1 }
    }
    if position < end, base[position] == 0x2E {
      position += 1
      guard position < end, base[position] &- 0x30 < 10 else {
        throw error("a digit after the decimal point")
      }
      while position < end, base[position] &- 0x30 < 10 { position += 1 }
    }
    if position < end, base[position] | 0x20 == 0x65 {
      position += 1
      if position < end, base[position] == 0x2B || base[position] == 0x2D { position += 1 }
      guard position < end, base[position] &- 0x30 < 10 else {
        throw error("a digit in the exponent")
      }
      while position < end, base[position] &- 0x30 < 10 { position += 1 }
    }
    return start..<position
  }

  /// Reads an integer that fits in `Int64` (no fraction, no exponent).
  @inlinable
  public mutating func readInt64() throws(JSONSyntaxError) -> Int64 {
    skipWhitespace()
    let start = position
    var negative = false
    if position < end, base[position] == 0x2D {
      negative = true
      position += 1
    }
    guard position < end, base[position] &- 0x30 < 10 else { throw error("an integer", at: start) }
    if base[position] == 0x30, position + 1 < end, base[position + 1] &- 0x30 < 10 {
      throw error("an integer without leading zeros", at: start)
    }
    var value: Int64 = 0
    while position < end {
      let digit = base[position] &- 0x30
      guard digit < 10 else { break }
      let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) =
        negative
        ? times10.subtractingReportingOverflow(Int64(digit))
        : times10.addingReportingOverflow(Int64(digit))
      guard !overflow1, !overflow2 else { throw error("an integer within 64 bits", at: start) }
      value = sum
      position += 1
    }
    if position < end, base[position] == 0x2E || base[position] | 0x20 == 0x65 {
      throw error("an integer (no fraction or exponent)", at: start)
    }
    return value
  }

  /// Reads a number as a `Double`; throws if it is not finite.
  @inlinable
  public mutating func readDouble() throws(JSONSyntaxError) -> Double {
    // Quick step: a plain decimal (`-64.324401`), read and converted in one pass.
    skipWhitespace()
    if let value = plainDecimal() { return value }
    let literal = try readNumberLiteral()
    // The literal passed the grammar check; parse it in place (no String, no allocation).
    let value = DecimalParsing.parse(
      UnsafeBufferPointer(start: base + literal.lowerBound, count: literal.count))
    guard let value, value.isFinite else {
      throw error("a finite number", at: literal.lowerBound)
    }
    return value
  }

  // MARK: Literals

  /// Reads `true` or `false`.
  @inlinable
  public mutating func readBool() throws(JSONSyntaxError) -> Bool {
    skipWhitespace()
    if matchLiteral("true") { return true }
    if matchLiteral("false") { return false }
    throw error("true or false")
  }

  /// Consumes `null` if it is next and returns whether it did.
  @inlinable
  public mutating func readNull() -> Bool {
    skipWhitespace()
    return matchLiteral("null")
  }

  @inlinable
  mutating func matchLiteral(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard end - position >= count, memcmp(base + position, literal.utf8Start, count) == 0 else {
      return false
    }
    position += count
    return true
  }

  // MARK: Containers

  /// Reads an object, calling `body` with each key and the cursor positioned at the member's value.
  /// `body` must consume exactly that value (read it or `skipValue()`).
  @inlinable
  public mutating func readObject(
    _ body: (JSONStringSlice, inout JSONCursor) throws -> Void
  ) throws {
    try enterContainer(0x7B, "'{' to start an object")
    defer { depth -= 1 }
    if consumeEmptyContainer(0x7D) { return }
    while true {
      let key = try readStringSlice()
      try expect(0x3A, "':' after an object key")
      try body(key, &self)
      guard try consumeSeparator(0x7D, "',' or '}' after an object member") else { return }
    }
  }

  /// Reads an array, calling `body` with the cursor positioned at each element.
  /// `body` must consume exactly that element.
  @inlinable
  public mutating func readArray(_ body: (inout JSONCursor) throws -> Void) throws {
    try enterContainer(0x5B, "'[' to start an array")
    defer { depth -= 1 }
    if consumeEmptyContainer(0x5D) { return }
    while true {
      try body(&self)
      guard try consumeSeparator(0x5D, "',' or ']' after an array element") else { return }
    }
  }

  /// Consumes `opener` and goes one level deeper; the caller goes back up (`depth -= 1`) when
  /// the container ends.
  /// - Throws: `JSONSyntaxError` when `opener` is not next, or when the container would be
  ///   more than `maximumDepth` levels deep.
  @inlinable @inline(__always)
  mutating func enterContainer(_ opener: UInt8, _ expected: String) throws(JSONSyntaxError) {
    try expect(opener, expected)
    guard depth < Self.maximumDepth else {
      // Point at the bracket that opened one level too many.
      throw error("at most \(Self.maximumDepth) levels of nesting", at: position - 1)
    }
    depth += 1
  }

  /// Consumes `closer` when it comes next (whitespace before it allowed): whether the container
  /// whose opener was just read is empty.
  @inlinable @inline(__always)
  mutating func consumeEmptyContainer(_ closer: UInt8) -> Bool {
    guard peek() == closer else { return false }
    position += 1
    return true
  }

  /// Consumes what follows a member or an element: `,` (answers `true`: another follows) or
  /// the container's `closer` (answers `false`), whitespace before it allowed.
  /// - Parameter expected: what may follow, for the error (`',' or ']' after an array element`).
  @inlinable @inline(__always)
  mutating func consumeSeparator(
    _ closer: UInt8, _ expected: String
  ) throws(JSONSyntaxError) -> Bool {
    skipWhitespace()
    guard position < end else { throw error(expected) }
    let next = base[position]
    position += 1
    if next == 0x2C { return true }
    if next == closer { return false }
    throw error(expected, at: position - 1)
  }

  /// Skips one value of any kind, checking its syntax; returns the offsets it spanned.
  @discardableResult
  public mutating func skipValue() throws -> Range<Int> {
    skipWhitespace()
    // The quick step only for the outermost value: nested values are inside its reach, and a
    // retry at every level of a deep value would count its depth wrong.
    if depth == 0, position < end, base[position] == 0x7B, let range = skipCompactObject() {
      return range
    }
    let start = position
    guard position < end else { throw error("a value") }
    switch base[position] {
    case 0x22: _ = try readStringSlice()
    case 0x7B: try readObject { _, cursor in try cursor.skipValue() }
    case 0x5B: try readArray { cursor in try cursor.skipValue() }
    case 0x74, 0x66, 0x6E:
      guard readNull() || matchLiteral("true") || matchLiteral("false") else {
        throw error("a value (object, array, string, number, true, false or null)")
      }
    case 0x2D, 0x30...0x39: _ = try readNumberLiteral()
    default: throw error("a value (object, array, string, number, true, false or null)")
    }
    return start..<position
  }
}

/// Where a JSON string's content lies in the text: the bytes between the quotes, still escaped.
public struct JSONStringSlice: Sendable, Equatable {
  /// Offset of the first byte after the opening quote.
  public var start: Int
  /// Offset of the closing quote.
  public var end: Int
  /// Whether the content holds a backslash escape and so must be decoded.
  public var hasEscapes: Bool

  @inlinable
  public init(start: Int, end: Int, hasEscapes: Bool) {
    self.start = start
    self.end = end
    self.hasEscapes = hasEscapes
  }

  /// Decodes the string. The bytes were already checked by the cursor that produced the slice.
  @inlinable
  package func string(base: UnsafePointer<UInt8>) -> String {
    let raw = UnsafeBufferPointer(start: base + start, count: end - start)
    if !hasEscapes {
      return String(decoding: raw, as: UTF8.self)
    }
    return JSONStringSlice.unescape(raw)
  }

  /// Decodes backslash escapes. Lone surrogates become U+FFFD; use `JSONValue` parsing where they
  /// must be rejected.
  ///
  /// Writes straight into the new string's storage: no escape decodes to more bytes than it
  /// takes (`\uXXXX` is 6 bytes for at most 3 of UTF-8, a surrogate pair 12 for 4).
  @usableFromInline
  static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String {
    func hex4(_ at: Int) -> UInt32 {
      var value: UInt32 = 0
      for offset in 0..<4 {
        value = value << 4 | (JSONCursor.hexValue(raw[at + offset]) ?? 0)
      }
      return value
    }
    return String(unsafeUninitializedCapacity: raw.count) { output in
      var written = 0
      var index = 0
      while index < raw.count {
        let byte = raw[index]
        guard byte == 0x5C, index + 1 < raw.count else {
          output[written] = byte
          written += 1
          index += 1
          continue
        }
        let escaped = raw[index + 1]
        index += 2
        switch escaped {
        case 0x62: output[written] = 0x08
        case 0x66: output[written] = 0x0C
        case 0x6E: output[written] = 0x0A
        case 0x72: output[written] = 0x0D
        case 0x74: output[written] = 0x09
        case 0x75 where index + 4 <= raw.count:
          var scalar = hex4(index)
          index += 4
          if (0xD800..<0xDC00).contains(scalar), index + 6 <= raw.count, raw[index] == 0x5C,
            raw[index + 1] == 0x75
          {
            let low = hex4(index + 2)
            if (0xDC00..<0xE000).contains(low) {
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
              index += 6
            }
          }
          UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { unit in
            output[written] = unit
            written += 1
          }
          continue
        default: output[written] = escaped
        }
        written += 1
      }
      return written
    }
  }
}
