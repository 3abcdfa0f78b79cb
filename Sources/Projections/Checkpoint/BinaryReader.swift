@_spi(Tables) import Events

/// Reads values written by ``BinaryWriter`` (see there for the encoding), checking every read.
///
/// A read that runs past the end throws ``ProjectionsError/truncatedCheckpoint(what:offset:needed:available:)``;
/// a value the encoding does not allow (a `Bool` byte other than 0 or 1, an overlong varint, a
/// count larger than the bytes left, invalid UTF-8) throws
/// ``ProjectionsError/invalidCheckpoint(what:offset:expected:found:)``. Nothing traps on bad
/// input, and no count read from the bytes can make the reader reserve more memory than the
/// bytes themselves could fill.
public struct BinaryReader: Sendable {
  /// The bytes being read.
  public let bytes: [UInt8]
  /// The offset of the next byte to read, from the start of `bytes`.
  public private(set) var offset: Int
  /// Where reading stops: `bytes.count`, or the end of the range given.
  public let endOffset: Int
  /// The keys that open contacts' sealed checkpoint records (see ``CheckpointKeys``).
  public var keys: (any CheckpointKeys)?

  /// Creates a reader of all of `bytes`.
  public init(_ bytes: [UInt8]) {
    self.init(bytes, range: bytes.startIndex..<bytes.endIndex)
  }

  /// Creates a reader of `bytes[range]`; offsets (in errors too) stay those of `bytes`.
  /// - Precondition: `range` lies within `bytes`.
  public init(_ bytes: [UInt8], range: Range<Int>) {
    precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range out of bounds")
    self.bytes = bytes
    offset = range.lowerBound
    endOffset = range.upperBound
  }

  /// The number of bytes not read yet.
  public var remainingCount: Int { endOffset - offset }

  /// Whether every byte has been read.
  public var isAtEnd: Bool { offset == endOffset }

  func truncated(_ what: StaticString, needed: Int) -> ProjectionsError {
    .truncatedCheckpoint(
      what: what.description, offset: offset, needed: needed, available: remainingCount)
  }

  /// An error for a value at the current offset (or `offset`) that the format does not allow.
  public func invalid(
    _ what: String, expected: String, found: String, at offset: Int? = nil
  ) -> ProjectionsError {
    .invalidCheckpoint(what: what, offset: offset ?? self.offset, expected: expected, found: found)
  }

  /// Reads a little-endian fixed-width integer.
  /// - Throws: `ProjectionsError.truncatedCheckpoint` when fewer bytes are left.
  public mutating func readInteger<Integer: FixedWidthInteger>(
    _: Integer.Type = Integer.self, _ what: StaticString = "an integer"
  ) throws(ProjectionsError) -> Integer {
    let size = MemoryLayout<Integer>.size
    guard remainingCount >= size else { throw truncated(what, needed: size) }
    let start = offset
    let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: Integer.self) }
    offset += size
    return Integer(littleEndian: value)
  }

  /// Reads a byte that must be 0 (`false`) or 1 (`true`).
  public mutating func readBool(_ what: StaticString = "a Bool") throws(ProjectionsError) -> Bool {
    let byte = try readInteger(UInt8.self, what)
    guard byte <= 1 else {
      throw invalid(what.description, expected: "0 or 1", found: "\(byte)", at: offset - 1)
    }
    return byte == 1
  }

  /// Reads a `Double` from its bit pattern.
  public mutating func readDouble(_ what: StaticString = "a Double") throws(ProjectionsError)
    -> Double
  {
    Double(bitPattern: try readInteger(UInt64.self, what))
  }

  /// Reads an unsigned LEB128 varint.
  /// - Throws: `truncatedCheckpoint` when the bytes end inside it, `invalidCheckpoint` when it
  ///   is longer than 10 bytes or does not fit 64 bits.
  public mutating func readVarint(_ what: StaticString = "a varint") throws(ProjectionsError)
    -> UInt64
  {
    // The common case, one byte, first.
    guard offset < endOffset else { throw truncated(what, needed: 1) }
    let first = bytes[offset]
    if first < 0x80 {
      offset += 1
      return UInt64(first)
    }
    let start = offset
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var position = offset
    while true {
      guard position < endOffset else {
        offset = start
        throw truncated(what, needed: position - start + 1)
      }
      let byte = bytes[position]
      position += 1
      if shift == 63, byte > 1 {
        throw invalid(
          what.description, expected: "a varint that fits 64 bits", found: "more bits", at: start)
      }
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { break }
      shift += 7
    }
    offset = position
    return value
  }

  /// Reads a count of things that each take at least `minimumSize` bytes, so a damaged count
  /// can never ask for more than the remaining bytes could hold.
  /// - Throws: `invalidCheckpoint` when the count cannot fit in the bytes left.
  public mutating func readCount(
    _ what: StaticString = "a count", minimumSize: Int = 1
  ) throws(ProjectionsError) -> Int {
    let start = offset
    let value = try readVarint(what)
    guard value <= UInt64(remainingCount / max(minimumSize, 1)) else {
      throw invalid(
        what.description,
        expected: "at most \(remainingCount / max(minimumSize, 1)) (what the bytes left can hold)",
        found: "\(value)", at: start)
    }
    return Int(value)
  }

  /// Reads a string: a varint byte count, then that many bytes of valid UTF-8.
  public mutating func readString(_ what: StaticString = "a string") throws(ProjectionsError)
    -> String
  {
    try readText(what) { UTF8Text.string($0) }
  }

  /// Checks and skips a string `readString` would read, without making it.
  /// - Returns: its length in bytes.
  /// - Throws: as `readString`.
  public mutating func skipString(_ what: StaticString = "a string") throws(ProjectionsError)
    -> Int
  {
    try readText(what) { text in UTF8Text.isValid(text) ? text.count : nil }
  }

  /// Reads a string's byte count, then makes its bytes into a value with `read` (`nil` when
  /// they are not valid UTF-8), and moves past them.
  @inline(__always)
  private mutating func readText<Value>(
    _ what: StaticString, _ read: (UnsafeRawBufferPointer) -> Value?
  ) throws(ProjectionsError) -> Value {
    let start = offset
    let length = try readLength(what)
    let textStart = offset
    let value = bytes.withUnsafeBytes { raw in
      read(UnsafeRawBufferPointer(rebasing: raw[textStart..<textStart + length]))
    }
    guard let value else {
      throw invalid(what.description, expected: "UTF-8 text", found: "invalid UTF-8", at: start)
    }
    offset += length
    return value
  }

  /// Reads a string's byte count and checks that many bytes follow; the offset is left at
  /// the first of them.
  @inline(__always)
  private mutating func readLength(_ what: StaticString) throws(ProjectionsError) -> Int {
    let start = offset
    let count = try readVarint(what)
    guard count <= UInt64(remainingCount) else {
      let available = remainingCount
      offset = start
      throw ProjectionsError.truncatedCheckpoint(
        what: what.description, offset: start, needed: Int(clamping: count), available: available)
    }
    return Int(count)
  }

  /// Reads `count` raw bytes.
  public mutating func readBytes(
    count: Int, _ what: StaticString = "bytes"
  ) throws(ProjectionsError) -> ArraySlice<UInt8> {
    guard count >= 0, remainingCount >= count else { throw truncated(what, needed: count) }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  /// Throws unless every byte has been read.
  public func expectEnd(_ what: String = "the checkpoint") throws(ProjectionsError) {
    guard isAtEnd else {
      throw invalid(what, expected: "the end", found: "\(remainingCount) more bytes")
    }
  }
}
