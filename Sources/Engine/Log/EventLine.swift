import Events

/// One decoded line of the log, borrowing the line's bytes: only valid inside the closure that
/// handed it out. Fixed-size fields are decoded; strings stay byte ranges until asked for, and
/// `meta` is parsed only on request, so replay pays for exactly what a projection reads.
package struct EventLine {
  /// The line's first byte (`{`).
  package let base: UnsafePointer<UInt8>
  /// The line's length without its `\n`.
  package let length: Int
  /// 1-based line number in the file.
  package let lineNumber: Int
  /// Byte offset of the line's start in the file.
  package let offset: Int64

  package internal(set) var sequence: Int64 = 0
  package internal(set) var version: Int64 = 0
  package internal(set) var schemaVersion = 1
  package internal(set) var batch: ClosedRange<Int64>?
  /// Offset of the id's 36 characters; parsed only when asked for (replay rarely needs it).
  var idOffset = 0
  /// Offset of `at`'s 24 characters; parsed only when asked for.
  package internal(set) var timestampOffset = 0
  package internal(set) var streamSlice = JSONStringSlice(start: 0, end: 0, hasEscapes: false)
  package internal(set) var typeSlice = JSONStringSlice(start: 0, end: 0, hasEscapes: false)
  package internal(set) var metaRange: Range<Int>?
  var dataRange: Range<Int> = 0..<0

  init(base: UnsafePointer<UInt8>, length: Int, lineNumber: Int, offset: Int64) {
    self.base = base
    self.length = length
    self.lineNumber = lineNumber
    self.offset = offset
  }

  /// The event's id. The decoder checked that it is a UUID.
  package var id: EventID {
    EventID(utf8: UnsafeBufferPointer(start: base + idOffset, count: 36))
      ?? EventID(high: 0, low: 0)
  }

  /// When the event was appended.
  package var timestamp: Timestamp {
    Timestamp.parseLogForm(UnsafeBufferPointer(start: base + timestampOffset, count: 24))
      ?? Timestamp(millisecondsSince1970: 0)
  }

  /// The stream name.
  package var stream: String { streamSlice.string(base: base) }

  /// The event type's name.
  package var type: String { typeSlice.string(base: base) }

  /// The stream name's raw bytes (names with escapes must use `stream`).
  package var streamBytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + streamSlice.start, count: streamSlice.end - streamSlice.start)
  }

  /// The type name's raw bytes.
  package var typeBytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + typeSlice.start, count: typeSlice.end - typeSlice.start)
  }

  /// Whether the type is `name`, compared as bytes.
  @inlinable
  package func hasType(_ name: StaticString) -> Bool {
    let bytes = typeBytes
    return bytes.count == name.utf8CodeUnitCount
      && bytes.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: bytes.count))
  }

  /// The payload object's bytes (`data`), compact JSON.
  package var data: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base + dataRange.lowerBound, count: dataRange.count)
  }

  /// A cursor positioned at the payload object, for decoding it in place.
  package var dataCursor: JSONCursor {
    var cursor = JSONCursor(base: base + dataRange.lowerBound, count: dataRange.count)
    // The payload is followed by `,"crc":"…"}` (18 bytes) within the same line.
    cursor.readableSlack = LogLineCodec.suffixLength
    return cursor
  }

  /// The whole line's bytes, without the `\n`.
  package var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base, count: length)
  }

  /// The audit fields (`meta`); empty when the line has none.
  ///
  /// The line decoder read `meta` with the same reader and refused the line if it broke the
  /// format (an unknown key, a value that is not a string), so this cannot fail.
  package func metadata() -> EventMetadata {
    guard let metaRange else { return EventMetadata() }
    return (try? LogLineCodec.decodeMetadata(base: base, range: metaRange)) ?? EventMetadata()
  }

  /// A self-contained copy of the event.
  package func recordedEvent() -> RecordedEvent {
    RecordedEvent(
      sequence: sequence, id: id, stream: stream, version: version, type: type,
      schemaVersion: schemaVersion, timestamp: timestamp, batch: batch, metadata: metadata(),
      data: Array(data))
  }
}

/// Remembers the last `at` parsed, so that a run of events appended together (which share
/// their `at`) costs one 24-byte comparison each instead of a parse.
package struct TimestampCache {
  private var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
  private var value = Timestamp(millisecondsSince1970: 0)

  package init() {}

  package mutating func timestamp(of line: EventLine) -> Timestamp {
    let raw = UnsafeRawPointer(line.base + line.timestampOffset)
    let current = (
      raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
      raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
    )
    if current != text {
      text = current
      value = line.timestamp
    }
    return value
  }
}
