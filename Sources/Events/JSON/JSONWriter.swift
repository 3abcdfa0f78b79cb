/// Writes compact JSON into a byte buffer, in the order the caller writes members.
///
/// This is the log's encoder: no whitespace, keys in the caller's fixed order, strings escaped
/// minimally (`"`, `\`, and control characters; everything else, including non-ASCII, is written as
/// UTF-8), numbers in Swift's shortest round-trip form. The same value therefore always encodes to
/// the same bytes, which idempotency checks and checksums rely on.
///
/// Commas are placed automatically: write a key, then its value; containers nest freely.
public struct JSONWriter: Sendable {
  /// The bytes written so far.
  public var bytes: [UInt8]
  /// Whether the next key or array element needs a comma before it.
  @usableFromInline var needsComma = false
  /// Whether a key was just written, so the next value follows a colon, not a comma.
  @usableFromInline var afterKey = false

  /// Creates a writer with room for `capacity` bytes.
  public init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// Creates a writer that appends to `bytes`.
  public init(appendingTo bytes: [UInt8]) {
    self.bytes = bytes
  }

  @inlinable
  mutating func beginValue() {
    if afterKey {
      afterKey = false
    } else if needsComma {
      bytes.append(0x2C)
    }
  }

  // MARK: Containers

  /// Writes `{`.
  @inlinable
  public mutating func beginObject() { begin(0x7B) }

  /// Writes `}`.
  @inlinable
  public mutating func endObject() { end(0x7D) }

  /// Writes `[`.
  @inlinable
  public mutating func beginArray() { begin(0x5B) }

  /// Writes `]`.
  @inlinable
  public mutating func endArray() { end(0x5D) }

  /// Opens a container with `bracket`: its first member or element takes no comma.
  @inlinable
  mutating func begin(_ bracket: UInt8) {
    beginValue()
    bytes.append(bracket)
    needsComma = false
  }

  /// Closes a container with `bracket`: what follows it takes a comma.
  @inlinable
  mutating func end(_ bracket: UInt8) {
    bytes.append(bracket)
    needsComma = true
  }

  /// Writes an object key (which must need no escaping) and the colon after it.
  @inlinable
  public mutating func key(_ key: StaticString) {
    if needsComma { bytes.append(0x2C) }
    bytes.append(0x22)
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    bytes.append(0x22)
    bytes.append(0x3A)
    afterKey = true
  }

  /// Writes an object key given at run time, escaped as needed.
  @inlinable
  public mutating func key(_ key: String) {
    if needsComma { bytes.append(0x2C) }
    appendQuoted(key)
    bytes.append(0x3A)
    afterKey = true
  }

  /// Writes `"key":[{…},…]`: an object per element, holding what `members` writes of it.
  @inlinable
  public mutating func member<Elements: Sequence>(
    _ key: StaticString, objects elements: Elements,
    _ members: (inout JSONWriter, Elements.Element) -> Void
  ) {
    self.key(key)
    beginArray()
    for element in elements {
      beginObject()
      members(&self, element)
      endObject()
    }
    endArray()
  }

  // MARK: Scalars

  /// Writes a string value.
  @inlinable
  public mutating func string(_ value: String) {
    beginValue()
    appendQuoted(value)
    needsComma = true
  }

  /// Writes an integer value.
  @inlinable
  public mutating func integer(_ value: Int64) {
    beginValue()
    Self.appendDecimal(value, to: &bytes)
    needsComma = true
  }

  /// Writes an integer value.
  @inlinable
  public mutating func integer(_ value: Int) {
    integer(Int64(value))
  }

  /// Writes a finite number in its shortest round-trip form.
  /// - Precondition: `value.isFinite`; the domain's value types reject non-finite numbers on input.
  public mutating func number(_ value: Double) {
    precondition(value.isFinite, "JSON has no representation for \(value)")
    beginValue()
    // Swift's description is the shortest text that reads back as the same Double, and is valid
    // JSON for every finite value (`5.0`, `1e-05`, `1.5e+300`).
    bytes.append(contentsOf: value.description.utf8)
    needsComma = true
  }

  /// Writes a number from a literal already checked against JSON's grammar, byte for byte.
  public mutating func numberLiteral(_ literal: String) {
    beginValue()
    bytes.append(contentsOf: literal.utf8)
    needsComma = true
  }

  /// Writes `true` or `false`.
  @inlinable
  public mutating func bool(_ value: Bool) {
    beginValue()
    appendLiteral(value ? "true" : "false")
    needsComma = true
  }

  /// Writes `null`.
  @inlinable
  public mutating func null() {
    beginValue()
    appendLiteral("null")
    needsComma = true
  }

  /// Writes bytes that already form one complete, compact JSON value.
  @inlinable
  public mutating func rawValue(_ json: some Collection<UInt8>) {
    beginValue()
    bytes.append(contentsOf: json)
    needsComma = true
  }

  // MARK: Helpers

  /// Appends the bytes of a literal word (`true`, `false`, `null`).
  ///
  /// - Important: Never write an array literal (`[0x74, 0x72, …]`) in an `@inlinable` function.
  ///   The optimizer turns each constant array literal into a hidden, weak global named after the
  ///   function and the literal's position among those it kept (`…Tv_`, `…Tv0_`), and a module
  ///   that inlines the function numbers them again by its own count; the linker then keeps one
  ///   definition of each name, so `bool(true)` wrote `false` in release builds. Static strings
  ///   live in the object file's merged string section and have no such name.
  ///   docs/COMPILER-HAZARDS.md has the reproduction; `.ci/check-outlined-literals` guards it.
  @inlinable
  mutating func appendLiteral(_ literal: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// Appends `value` in quotes, escaping `"`, `\` and control characters.
  @inlinable
  public mutating func appendQuoted(_ value: String) {
    bytes.append(0x22)
    var value = value
    value.withUTF8 { utf8 in Self.appendEscaped(utf8, to: &bytes) }
    bytes.append(0x22)
  }

  /// Appends UTF-8 text with JSON string escaping (no quotes), through `forEachEscapedPiece`.
  @inlinable
  package static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
    forEachEscapedPiece(
      of: UnsafeRawBufferPointer(utf8), run: { bytes.append(contentsOf: $0) },
      escape: { sequence in
        // Byte by byte from the word: see `appendLiteral` for why no array literal.
        var word = sequence.bytes
        for _ in 0..<sequence.count {
          bytes.append(UInt8(truncatingIfNeeded: word))
          word >>= 8
        }
      })
  }

  /// Walks UTF-8 text as a JSON string holds it: `run` gets each stretch of bytes that stand
  /// as themselves (found a word at a time, `nextEscape`), `escape` the sequence of each byte
  /// that does not (`escapeSequence`), in order. The writers' one loop: each says only where
  /// the bytes go (`appendEscaped` into an array, the log's line encoder into a buffer).
  @inlinable @inline(__always)
  package static func forEachEscapedPiece(
    of utf8: UnsafeRawBufferPointer, run: (UnsafeRawBufferPointer) -> Void,
    escape: ((bytes: UInt64, count: Int)) -> Void
  ) {
    var runStart = 0
    while runStart < utf8.count {
      let index = nextEscape(in: utf8, from: runStart)
      if runStart < index { run(UnsafeRawBufferPointer(rebasing: utf8[runStart..<index])) }
      // `nextEscape` stops only at the end or at a byte that has a sequence.
      guard index < utf8.count, let sequence = escapeSequence(for: utf8[index]) else { return }
      escape(sequence)
      runStart = index + 1
    }
  }

  /// Where the next byte of `utf8` from `index` on that a JSON string must escape is
  /// (`escapeSequence` is not nil for it), or `utf8.count`: eight bytes at a time, the last
  /// few in one word too. The writers' one scan for it.
  @inlinable @inline(__always)
  package static func nextEscape(in utf8: UnsafeRawBufferPointer, from index: Int) -> Int {
    var index = index
    while index + 8 <= utf8.count {
      let word = UInt64(littleEndian: utf8.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      let flags = JSONCursor.specialBytes(word)
      // The lowest flag is exact: that byte needs an escape.
      if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
      index += 8
    }
    let left = utf8.count - index
    guard left > 0 else { return index }
    // The last `left` bytes in the low end of one word, zeros above them: the text's last
    // eight shifted down past those already scanned (whose flags could borrow into the
    // next), or byte by byte when the text is shorter than a word.
    var word: UInt64
    if utf8.count >= 8 {
      word =
        UInt64(littleEndian: utf8.loadUnaligned(fromByteOffset: utf8.count - 8, as: UInt64.self))
        >> UInt64(8 * (8 - left))
    } else {
      word = 0
      for offset in 0..<left { word |= UInt64(utf8[index + offset]) << UInt64(8 * offset) }
    }
    // The zeros above flag too (as control characters), above every real byte's flag.
    let flags = JSONCursor.specialBytes(word) & (1 << UInt64(8 * left) - 1)
    return flags == 0 ? utf8.count : index + flags.trailingZeroBitCount >> 3
  }

  /// How a JSON string holds `byte`, when not as itself: `"`, `\` and the control characters
  /// are escaped (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, else `\u00XX` in lowercase hex).
  /// The sequence's bytes are packed into a word, the first in its lowest byte.
  @inlinable
  public static func escapeSequence(for byte: UInt8) -> (bytes: UInt64, count: Int)? {
    guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { return nil }
    let second: UInt8
    switch byte {
    case 0x22: second = 0x22
    case 0x5C: second = 0x5C
    case 0x0A: second = 0x6E
    case 0x0D: second = 0x72
    case 0x09: second = 0x74
    case 0x08: second = 0x62
    case 0x0C: second = 0x66
    default:
      let high = byte >> 4
      let low = byte & 0xF
      let highDigit = UInt64(high < 10 ? 0x30 + high : 0x57 + high)
      let lowDigit = UInt64(low < 10 ? 0x30 + low : 0x57 + low)
      // `\u00` then the two digits.
      return (0x3030_755C | highDigit << 32 | lowDigit << 40, 6)
    }
    return (0x5C | UInt64(second) << 8, 2)
  }

  /// Appends the decimal digits of `value`.
  @inlinable
  public static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
    if value >= 0, value < 10 {
      bytes.append(0x30 + UInt8(value))
      return
    }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
      guard let base = text.baseAddress else { return }
      bytes.append(
        contentsOf: UnsafeBufferPointer(start: base, count: writeDecimal(value, to: base)))
    }
  }

  /// Writes the decimal digits of `value` (after a `-` when it is negative) at `text`, which has
  /// room for 20 bytes; returns how many it wrote.
  @inlinable
  package static func writeDecimal(_ value: Int64, to text: UnsafeMutablePointer<UInt8>) -> Int {
    var count = 0
    if value < 0 {
      text.pointee = 0x2D
      count = 1
    }
    // Work on the magnitude as unsigned so Int64.min has one.
    var magnitude = value.magnitude
    var digits = 1
    var power: UInt64 = 10
    while digits < 20, magnitude >= power {
      digits += 1
      power = power &* 10
    }
    count += digits
    var place = text + count
    repeat {
      place -= 1
      place.pointee = 0x30 + UInt8(magnitude % 10)
      magnitude /= 10
    } while magnitude > 0
    return count
  }
}
