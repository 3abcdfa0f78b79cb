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
  @inlinable @inline(__always)
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
}
