import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Encodes and decodes one line of the log. The format is specified in docs/FORMAT.md:
///
///     {"seq":1,"id":"…","stream":"contact-13","version":1,"type":"ContactAdded","schema":1,
///      "at":"2026-11-22T10:15:00.000Z","batch":[1,3],"meta":{"actor":"ana"},"data":{…},
///      "crc":"1a2b3c4d"}
///
/// (one line; `batch` and `meta` only when present).
///
/// - Note: the checksum is CRC-32C over every byte of the line before `,"crc":"`, written as 8
///   lowercase hex digits, and `crc` is always the last member, so the line always ends with the
///   18 bytes `,"crc":"xxxxxxxx"}`. A change to any single byte is caught: inside the covered
///   part by the CRC, in the suffix by its fixed shape, in the newline by the line structure.
enum LogLineCodec {
  /// `,"crc":"` + 8 hex digits + `"}`.
  static let suffixLength = 18

  // MARK: Encoding

  /// Appends one complete line (with its `\n`) to `bytes`.
  static func encode(
    sequence: Int64, id: EventID, stream: String, version: Int64, type: String, schemaVersion: Int,
    timestamp: Timestamp, batch: ClosedRange<Int64>?, metadata: EventMetadata,
    data: UnsafeRawBufferPointer, into bytes: inout [UInt8]
  ) {
    let shared = timeAndBatch(timestamp, batch: batch)
    let start = bytes.count
    let room = self.room(
      stream: stream, type: type, metadata: metadata, shared: shared.count, dataCount: data.count)
    LineBytes.grow(&bytes, by: room)
    let used = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
      guard let base = buffer.baseAddress else { return 0 }
      return write(
        sequence: sequence, id: id, stream: stream, version: version, type: type,
        schemaVersion: schemaVersion, timeAndBatch: shared, metadata: metadata, data: data,
        at: base + start)
    }
    bytes.removeLast(room - used)
  }

  /// The line's `,"at":"…"` member, and `,"batch":[…]` after it when there is one: the part of
  /// a line that every event of one write shares, made once a write.
  static func timeAndBatch(_ timestamp: Timestamp, batch: ClosedRange<Int64>?) -> [UInt8] {
    var text: [UInt8] = []
    text.reserveCapacity(80)
    append(",\"at\":\"", to: &text)
    timestamp.appendText(to: &text)
    text.append(0x22)
    if let batch {
      append(",\"batch\":[", to: &text)
      JSONWriter.appendDecimal(batch.lowerBound, to: &text)
      text.append(0x2C)
      JSONWriter.appendDecimal(batch.upperBound, to: &text)
      text.append(0x5D)
    }
    return text
  }

  /// Writes one complete line (with its `\n`) at `start`, which has room for it (`room`);
  /// returns its length. `timeAndBatch` is what `timeAndBatch(_:batch:)` made.
  ///
  /// The line is written through a pointer, not appended piece by piece: an append to an array
  /// checks its capacity and uniqueness every time, about 20 times a line. (Generic over the
  /// data's container, so that a caller passes an event's own array and no closure holds its
  /// fields: one that did copied the metadata's four strings.)
  static func write(
    sequence: Int64, id: EventID, stream: String, version: Int64, type: String, schemaVersion: Int,
    timeAndBatch: [UInt8], metadata: EventMetadata, data: some Collection<UInt8>,
    at start: UnsafeMutablePointer<UInt8>
  ) -> Int {
    var line = LineBytes(cursor: start)
    line.literal("{\"seq\":")
    line.decimal(sequence)
    line.literal(",\"id\":\"")
    id.writeText(to: UnsafeMutableRawPointer(line.cursor))
    line.cursor += 36
    line.literal("\",\"stream\":")
    line.quoted(stream)
    line.literal(",\"version\":")
    line.decimal(version)
    line.literal(",\"type\":")
    line.quoted(type)
    line.literal(",\"schema\":")
    line.decimal(Int64(schemaVersion))
    timeAndBatch.withUnsafeBytes { line.bytes($0) }
    if !metadata.isEmpty {
      line.literal(",\"meta\":{")
      // Field by field: an array of the four pairs would be made and destroyed every line.
      var first = true
      if let actor = metadata.actor { line.member("actor", actor, first: &first) }
      if let reason = metadata.reason { line.member("reason", reason, first: &first) }
      if let correlation = metadata.correlation {
        line.member("correlation", correlation, first: &first)
      }
      if let causation = metadata.causation {
        line.member("causation", causation, first: &first)
      }
      line.byte(0x7D)
    }
    line.literal(",\"data\":")
    if data.withContiguousStorageIfAvailable({ line.bytes(UnsafeRawBufferPointer($0)) }) == nil {
      for byte in data { line.byte(byte) }
    }
    let crc = CRC32C.checksum(UnsafeRawBufferPointer(start: start, count: line.cursor - start))
    line.literal(",\"crc\":\"")
    withUnsafeBytes(of: EventID.hexDigits(crc)) { line.bytes($0) }
    line.literal("\"}\n")
    return line.cursor - start
  }

  /// Bytes enough for any line with these fields and `shared` bytes of `timeAndBatch`: the
  /// members' names, punctuation and numbers (at most 20 digits each) fit in 512; each text
  /// byte takes at most 6 escaped.
  static func room(
    stream: String, type: String, metadata: EventMetadata, shared: Int, dataCount: Int
  ) -> Int {
    var text = stream.utf8.count + type.utf8.count
    if let actor = metadata.actor { text += actor.utf8.count }
    if let reason = metadata.reason { text += reason.utf8.count }
    if let correlation = metadata.correlation { text += correlation.utf8.count }
    if let causation = metadata.causation { text += causation.utf8.count }
    return 512 + 6 * text + shared + dataCount
  }

  @inline(__always)
  static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  static func appendHex(_ value: UInt32, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: EventID.hexDigits(value)) { bytes.append(contentsOf: $0) }
  }
}

/// Writes a line at a pointer, into room made for it beforehand (`LogLineCodec.room`).
struct LineBytes {
  var cursor: UnsafeMutablePointer<UInt8>

  /// Zeros to grow an array by with one copy (`Array` has no way to grow uninitialised).
  nonisolated(unsafe) private static let zeros: UnsafeRawBufferPointer = {
    let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 64)
    zeros.initializeMemory(as: UInt8.self, repeating: 0)
    return UnsafeRawBufferPointer(zeros)
  }()

  /// Appends `count` zero bytes to `bytes`.
  static func grow(_ bytes: inout [UInt8], by count: Int) {
    var left = count
    while left > 0 {
      let piece = min(left, zeros.count)
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: zeros[0..<piece]))
      left -= piece
    }
  }

  @inline(__always)
  mutating func byte(_ value: UInt8) {
    cursor.pointee = value
    cursor += 1
  }

  @inline(__always)
  mutating func literal(_ literal: StaticString) {
    cursor.update(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
    cursor += literal.utf8CodeUnitCount
  }

  /// Copies `raw`. From 8 to 16 bytes (most names) as two words that may overlap, not through
  /// `memcpy`.
  @inline(__always)
  mutating func bytes(_ raw: UnsafeRawBufferPointer) {
    guard let base = raw.baseAddress else { return }
    let count = raw.count
    let target = UnsafeMutableRawPointer(cursor)
    if count >= 8, count <= 16 {
      let first = base.loadUnaligned(as: UInt64.self)
      let last = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
      target.storeBytes(of: first, as: UInt64.self)
      target.storeBytes(of: last, toByteOffset: count - 8, as: UInt64.self)
    } else {
      target.copyMemory(from: base, byteCount: count)
    }
    cursor += count
  }

  /// The decimal digits of `value` (`JSONWriter.writeDecimal`).
  @inline(__always)
  mutating func decimal(_ value: Int64) {
    cursor += JSONWriter.writeDecimal(value, to: cursor)
  }

  /// `text` in quotes, escaped as JSON strings are: `JSONWriter.forEachEscapedPiece`, the walk
  /// `JSONWriter.appendEscaped` takes too, with the pieces written into the line.
  mutating func quoted(_ text: String) {
    byte(0x22)
    // In place (no copy of the string, so no reference count); a bridged string is copied.
    if text.utf8.withContiguousStorageIfAvailable({ escaped(UnsafeRawBufferPointer($0)) }) == nil {
      var text = text
      text.withUTF8 { escaped(UnsafeRawBufferPointer($0)) }
    }
    byte(0x22)
  }

  /// UTF-8 text as a JSON string holds it, without its quotes.
  @inline(__always)
  private mutating func escaped(_ utf8: UnsafeRawBufferPointer) {
    // The walk's first step: most names need no escape, and are copied whole.
    if JSONWriter.nextEscape(in: utf8, from: 0) == utf8.count {
      bytes(utf8)
      return
    }
    JSONWriter.forEachEscapedPiece(
      of: utf8, run: { bytes($0) },
      escape: { sequence in
        withUnsafeBytes(of: sequence.bytes.littleEndian) {
          bytes(UnsafeRawBufferPointer(rebasing: $0[0..<sequence.count]))
        }
      })
  }

  /// `"key":"value"`, after a comma unless it is the object's first member.
  @inline(__always)
  mutating func member(_ key: StaticString, _ value: String, first: inout Bool) {
    if !first { byte(0x2C) }
    first = false
    byte(0x22)
    literal(key)
    literal("\":")
    quoted(value)
  }
}
