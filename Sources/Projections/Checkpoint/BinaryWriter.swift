/// Appends values to a byte buffer in the checkpoint encoding.
///
/// The encoding, read back by ``BinaryReader``:
/// - fixed-width integers: little-endian, two's complement for signed ones;
/// - `Bool`: one byte, 0 or 1;
/// - `Double`: its IEEE 754 bit pattern as a little-endian `UInt64` (so `-0.0` and every NaN
///   payload round-trip exactly);
/// - varints (lengths, counts, small numbers): unsigned LEB128, 7 bits a byte, low bits first,
///   at most 10 bytes;
/// - strings: a varint byte count, then the UTF-8 bytes.
///
/// Nothing here allocates but the buffer's growth; reserve the expected size up front.
public struct BinaryWriter: Sendable {
  /// The bytes written so far.
  public var bytes: [UInt8]
  /// The keys that seal contacts' personal data in the checkpoint being written; without them,
  /// a contact whose data came from sealed events is written withheld (see ``CheckpointKeys``).
  public var keys: (any CheckpointKeys)?
  /// Whether contacts' personal data is written in clear whatever its source: for comparing
  /// two states in memory (a migration's proof), never for bytes that reach a file.
  public var writesPersonalDataInClear = false

  /// Creates a writer with room for `capacity` bytes.
  public init(capacity: Int = 4096) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// The number of bytes written so far.
  public var count: Int { bytes.count }

  /// Writes a fixed-width integer, little-endian.
  public mutating func writeInteger<Integer: FixedWidthInteger>(_ value: Integer) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  /// Writes `1` for `true`, `0` for `false`.
  public mutating func writeBool(_ value: Bool) {
    bytes.append(value ? 1 : 0)
  }

  /// Writes a `Double` as its bit pattern.
  public mutating func writeDouble(_ value: Double) {
    writeInteger(value.bitPattern)
  }

  /// Writes an unsigned LEB128 varint: 1 byte below 128, 2 below 16,384, at most 10.
  public mutating func writeVarint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  /// Writes a count or length as a varint.
  /// - Precondition: `value >= 0`.
  public mutating func writeCount(_ value: Int) {
    precondition(value >= 0, "a count is not negative")
    writeVarint(UInt64(value))
  }

  /// Writes a string: its UTF-8 byte count as a varint, then the bytes.
  public mutating func writeString(_ value: String) {
    let written: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
      writeCount(utf8.count)
      bytes.append(contentsOf: utf8)
    }
    if written == nil {
      let utf8 = Array(value.utf8)
      writeCount(utf8.count)
      bytes.append(contentsOf: utf8)
    }
  }

  /// Overwrites the fixed-width integer written at `offset` (to fill in a length once known).
  /// - Precondition: `offset + MemoryLayout<Integer>.size <= count`.
  public mutating func overwriteInteger<Integer: FixedWidthInteger>(
    _ value: Integer, at offset: Int
  ) {
    let size = MemoryLayout<Integer>.size
    precondition(offset >= 0 && offset + size <= bytes.count, "offset out of bounds")
    bytes.withUnsafeMutableBytes {
      $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Integer.self)
    }
  }

  /// Writes raw bytes, with no length before them.
  public mutating func writeBytes(_ value: some Collection<UInt8>) {
    bytes.append(contentsOf: value)
  }
}
