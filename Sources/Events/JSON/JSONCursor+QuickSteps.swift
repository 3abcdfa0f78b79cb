// The quick steps of the cursor's readers: what the general readers try first on text laid out
// as this project's writer lays it out (no whitespace, keys in a fixed order, plain strings and
// numbers). Each either reads what it is for or leaves the cursor where it was, so the general
// reader goes on from the same place; none is a reader on its own.
extension JSONCursor {
  /// Consumes `literal` (at most 16 bytes) if the bytes at the current position, no whitespace
  /// skipped, are exactly it, and returns whether they were.
  ///
  /// Compares whole words where the readable slack allows, so that inlined with a literal
  /// argument the comparison folds into one or two word comparisons against constants.
  @_transparent
  public mutating func consume(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard end - position >= count else { return false }
    let expected = literal.utf8Start
    if count <= 16, count >= 4, end + readableSlack - position >= 16 {
      var low: UInt64 = 0
      var high: UInt64 = 0
      for index in 0..<min(count, 8) {
        low |= UInt64(expected[index]) << UInt64(8 * index)
      }
      for index in 8..<max(count, 8) {
        high |= UInt64(expected[index]) << UInt64(8 * (index - 8))
      }
      let source = UnsafeRawPointer(base + position)
      let lowMask: UInt64 = count >= 8 ? ~0 : (1 << UInt64(8 * count)) &- 1
      guard UInt64(littleEndian: source.loadUnaligned(as: UInt64.self)) & lowMask == low else {
        return false
      }
      if count > 8 {
        let mask: UInt64 = count == 16 ? ~0 : (1 << UInt64(8 * (count - 8))) &- 1
        let found = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        guard found & mask == high else { return false }
      }
      position += count
      return true
    }
    return matchLiteral(literal)
  }

  /// The byte at the current position, without skipping whitespace; `nil` at the end.
  @inlinable
  public var currentByte: UInt8? {
    position < end ? base[position] : nil
  }

  /// The byte at `offset` (which must be below `end` plus the readable slack).
  @inlinable @inline(__always)
  package func byte(at offset: Int) -> UInt8 { base[offset] }

  /// The address of the byte at `offset`, for checks made in place.
  @inlinable @inline(__always)
  package func pointer(at offset: Int) -> UnsafePointer<UInt8> { base + offset }

  /// Quick step of integer readers: an integer from 1 with at most 18 plain digits (no sign, no
  /// leading zero, no fraction or exponent after it), which cannot overflow; `nil` with the
  /// cursor untouched for anything else.
  @inlinable @inline(__always)
  package mutating func plainPositiveInteger() -> Int64? {
    guard position < end, base[position] &- 0x31 < 9 else { return nil }
    var value = Int64(base[position] &- 0x30)
    var index = position + 1
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { break }
      value = value &* 10 &+ Int64(digit)
      index += 1
    }
    guard index - position <= 18,
      index >= end || (base[index] != 0x2E && base[index] | 0x20 != 0x65)
    else { return nil }
    position = index
    return value
  }

  /// Whether `count` bytes at `bytes` are all printable ASCII (0x20 through 0x7E).
  @inlinable @inline(__always)
  package static func isPrintableASCII(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
    var flags: UInt8 = 0
    for index in 0..<count {
      let byte = bytes[index]
      // Below 0x20 or 0x7F and above: `byte + 1` below 0x21 or above 0x7F, or byte itself high.
      flags |= (byte &- 0x20) | (byte &+ 1)
    }
    return flags < 0x80
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 19 significant digits, a significand within
  /// 2^53 and at most 22 fraction digits, computed exactly as `DecimalParsing.fastPath` computes
  /// it, in one pass (the quick step of `readDouble`); `nil` (cursor untouched) for anything else, exponents included.
  @usableFromInline
  mutating func plainDecimal() -> Double? {
    var index = position
    let negative = index < end && base[index] == 0x2D
    if negative { index += 1 }
    guard index < end, base[index] &- 0x30 < 10 else { return nil }
    if base[index] == 0x30, index + 1 < end, base[index + 1] &- 0x30 < 10 { return nil }
    var significand: UInt64 = 0
    var digits = 0
    var exponent = 0
    while index < end, base[index] &- 0x30 < 10 {
      significand = significand &* 10 &+ UInt64(base[index] &- 0x30)
      if significand != 0 { digits += 1 }
      index += 1
    }
    if index < end, base[index] == 0x2E {
      index += 1
      guard index < end, base[index] &- 0x30 < 10 else { return nil }
      while index < end, base[index] &- 0x30 < 10 {
        significand = significand &* 10 &+ UInt64(base[index] &- 0x30)
        if significand != 0 { digits += 1 }
        exponent -= 1
        index += 1
      }
    }
    guard digits <= 19, significand <= 1 << 53, exponent >= -22,
      index >= end || base[index] | 0x20 != 0x65
    else { return nil }
    var value = Double(significand)
    if exponent < 0 { value /= DecimalParsing.powersOfTen[-exponent] }
    position = index
    return negative ? -value : value
  }

  /// The string of `count` bytes at offset `start` (content without escapes): from the
  /// short-string cache when the cursor has one and a whole slot can be read.
  @inlinable @inline(__always)
  func makeString(start: Int, count: Int) -> String {
    if let strings, count <= StringCache.maximumLength,
      start + StringCache.maximumLength <= end + readableSlack
    {
      return strings._withUnsafeGuaranteedRef { $0.string(base + start, count: count) }
    }
    return String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
  }

  /// The decoded string a slice of this cursor's text holds, as `readString` makes it.
  @inlinable @inline(__always)
  func makeString(_ slice: JSONStringSlice) -> String {
    if slice.hasEscapes { return slice.string(base: base) }
    return makeString(start: slice.start, count: slice.end - slice.start)
  }

  /// Quick step of `readStringSlice`: a string (the cursor at its opening quote) without escapes
  /// or control characters, scanned a word at a time; `nil` with the cursor untouched for
  /// anything else, or when too few bytes are readable past the end for whole words.
  @inlinable @inline(__always)
  package mutating func plainStringSlice() -> JSONStringSlice? {
    stringSlice(ofBytesNotFlaggedBy: Self.specialBytes)
  }

  /// Quick step of the envelope's name readers: a string (the cursor at its opening quote)
  /// whose bytes are all ones `outside` does not flag, scanned a word at a time; `nil` with the
  /// cursor untouched at the first flagged byte that is not the closing quote, or when too few
  /// bytes are readable past the end for whole words. `outside` must flag the quote and flag
  /// exactly: the lowest flagged byte of a word must be one it means.
  @inlinable @inline(__always)
  package mutating func stringSlice(
    ofBytesNotFlaggedBy outside: (UInt64) -> UInt64
  ) -> JSONStringSlice? {
    guard position < end, base[position] == 0x22 else { return nil }
    let start = position + 1
    var index = start
    let lastWord = end + readableSlack - 8
    while index <= lastWord {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let flags = outside(word)
      if flags != 0 {
        index += flags.trailingZeroBitCount &>> 3
        guard index < end, base[index] == 0x22 else { return nil }
        position = index + 1
        return JSONStringSlice(start: start, end: index, hasEscapes: false)
      }
      index += 8
    }
    return nil
  }

  /// The high bit of each byte of `word` that is zero, exactly (no borrow between bytes).
  @inlinable @inline(__always)
  package static func zeroBytes(_ word: UInt64) -> UInt64 {
    let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    return ~(((word & low7) &+ low7) | word | low7)
  }

  /// The high bit of each byte of `word` whose low seven bits are at least `value` (≤ 0x7F),
  /// exactly: with every high bit forced on, no borrow crosses a byte.
  @inlinable @inline(__always)
  package static func lowSevenBitsAtLeast(_ word: UInt64, _ value: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    return ((word | highs) &- ones &* value) & highs
  }

  /// Flags (high bit per byte, exactly) the bytes of `word` that are not printable ASCII (below
  /// 0x20, 0x7F and above), and `"` and `\`.
  @inlinable @inline(__always)
  package static func nonPrintableOrSpecialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let control = ~lowSevenBitsAtLeast(word, 0x20) & highs
    let delete = zeroBytes(word ^ (ones &* 0x7F))
    let quote = zeroBytes(word ^ (ones &* 0x22))
    let backslash = zeroBytes(word ^ (ones &* 0x5C))
    return (word & highs) | control | delete | quote | backslash
  }

  /// Flags (high bit per byte, exactly) the bytes of `word` that are not an ASCII letter, digit,
  /// `_` or `.` (the characters of an event type's name).
  @inlinable @inline(__always)
  package static func nonTypeNameBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let folded = word | (ones &* 0x20)
    let letter = lowSevenBitsAtLeast(folded, 0x61) & ~lowSevenBitsAtLeast(folded, 0x7B)
    let digit = lowSevenBitsAtLeast(word, 0x30) & ~lowSevenBitsAtLeast(word, 0x3A)
    let underscore = zeroBytes(word ^ (ones &* 0x5F))
    let dot = zeroBytes(word ^ (ones &* 0x2E))
    return (word & highs) | (~(letter | digit | underscore | dot) & highs)
  }

  /// A string slice: `plainStringSlice`, else the general `readStringSlice` from the same place.
  @inlinable @inline(__always)
  package mutating func readStringSliceQuickly() throws(JSONSyntaxError) -> JSONStringSlice {
    if let slice = plainStringSlice() { return slice }
    return try readStringSlice()
  }

  /// Quick step of `skipValue` for an object in compact form (no whitespace, at most 64 levels
  /// deep): checks its syntax in one loop without recursion and returns its range; `nil` with
  /// the cursor untouched for anything else, and `skipValue` reads it from the same place.
  @usableFromInline
  package mutating func skipCompactObject() -> Range<Int>? {
    let start = position
    // One bit per open container, innermost lowest: 1 for an object, 0 for an array.
    var stack: UInt64 = 0
    var depth = 0
    var index = position
    func fail() -> Range<Int>? {
      position = start
      return nil
    }
    // After `{` or `,` in an object: a key and its colon.
    @inline(__always) func key(_ index: inout Int) -> Bool {
      guard index < end, base[index] == 0x22 else { return false }
      position = index
      guard (try? readStringSliceQuickly()) != nil, position < end, base[position] == 0x3A else {
        return false
      }
      index = position + 1
      return true
    }
    guard index < end, base[index] == 0x7B else { return nil }
    while true {
      // A value at `index`.
      guard index < end else { return fail() }
      switch base[index] {
      case 0x7B, 0x5B:
        guard depth < 64 else { return fail() }
        let isObject = base[index] == 0x7B
        stack = stack << 1 | (isObject ? 1 : 0)
        depth += 1
        index += 1
        guard index < end else { return fail() }
        if base[index] == (isObject ? 0x7D : 0x5D) {
          index += 1
          stack >>= 1
          depth -= 1
        } else {
          if isObject, !key(&index) { return fail() }
          continue
        }
      case 0x22:
        position = index
        guard (try? readStringSliceQuickly()) != nil else { return fail() }
        index = position
      case 0x2D, 0x30...0x39:
        position = index
        guard (try? readNumberLiteral()) != nil else { return fail() }
        index = position
      case 0x74:
        position = index
        guard matchLiteral("true") else { return fail() }
        index = position
      case 0x66:
        position = index
        guard matchLiteral("false") else { return fail() }
        index = position
      case 0x6E:
        position = index
        guard matchLiteral("null") else { return fail() }
        index = position
      default: return fail()
      }
      // After a value: close containers, or go on to the next member or element.
      while depth > 0 {
        guard index < end else { return fail() }
        let byte = base[index]
        let inObject = stack & 1 == 1
        if byte == 0x2C {
          index += 1
          if inObject, !key(&index) { return fail() }
          break
        }
        guard byte == (inObject ? 0x7D : 0x5D) else { return fail() }
        index += 1
        stack >>= 1
        depth -= 1
      }
      if depth == 0 {
        position = index
        return start..<index
      }
    }
  }
}
