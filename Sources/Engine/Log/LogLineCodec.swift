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
    var text: [UInt8] = []
    timestamp.appendText(to: &text)
    encode(
      sequence: sequence, id: id, stream: stream, version: version, type: type,
      schemaVersion: schemaVersion, timestamp: text, batch: batch, metadata: metadata, data: data,
      into: &bytes)
  }

  /// Appends one line, with `at` already in its 24-character form.
  static func encode(
    sequence: Int64, id: EventID, stream: String, version: Int64, type: String, schemaVersion: Int,
    timestamp: [UInt8], batch: ClosedRange<Int64>?, metadata: EventMetadata,
    data: UnsafeRawBufferPointer, into bytes: inout [UInt8]
  ) {
    let start = bytes.count
    append("{\"seq\":", to: &bytes)
    JSONWriter.appendDecimal(sequence, to: &bytes)
    append(",\"id\":\"", to: &bytes)
    id.appendText(to: &bytes)
    append("\",\"stream\":", to: &bytes)
    appendQuoted(stream, to: &bytes)
    append(",\"version\":", to: &bytes)
    JSONWriter.appendDecimal(version, to: &bytes)
    append(",\"type\":", to: &bytes)
    appendQuoted(type, to: &bytes)
    append(",\"schema\":", to: &bytes)
    JSONWriter.appendDecimal(Int64(schemaVersion), to: &bytes)
    append(",\"at\":\"", to: &bytes)
    bytes.append(contentsOf: timestamp)
    bytes.append(0x22)
    if let batch {
      append(",\"batch\":[", to: &bytes)
      JSONWriter.appendDecimal(batch.lowerBound, to: &bytes)
      bytes.append(0x2C)
      JSONWriter.appendDecimal(batch.upperBound, to: &bytes)
      bytes.append(0x5D)
    }
    if !metadata.isEmpty {
      append(",\"meta\":{", to: &bytes)
      // Field by field: an array of the four pairs would be made and destroyed every line.
      var first = true
      if let actor = metadata.actor { appendMember("actor", actor, first: &first, to: &bytes) }
      if let reason = metadata.reason { appendMember("reason", reason, first: &first, to: &bytes) }
      if let correlation = metadata.correlation {
        appendMember("correlation", correlation, first: &first, to: &bytes)
      }
      if let causation = metadata.causation {
        appendMember("causation", causation, first: &first, to: &bytes)
      }
      bytes.append(0x7D)
    }
    append(",\"data\":", to: &bytes)
    bytes.append(contentsOf: data)
    let crc = bytes.withUnsafeBytes { buffer in
      CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[start...]))
    }
    append(",\"crc\":\"", to: &bytes)
    appendHex(crc, to: &bytes)
    append("\"}\n", to: &bytes)
  }

  @inline(__always)
  static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(0x22)
    var text = text
    text.withUTF8 { JSONWriter.appendEscaped($0, to: &bytes) }
    bytes.append(0x22)
  }

  static func appendHex(_ value: UInt32, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: EventID.hexDigits(value)) { bytes.append(contentsOf: $0) }
  }

  /// `"key":"value"`, after a comma unless it is the object's first member.
  @inline(__always)
  static func appendMember(
    _ key: StaticString, _ value: String, first: inout Bool, to bytes: inout [UInt8]
  ) {
    if !first { bytes.append(0x2C) }
    first = false
    bytes.append(0x22)
    append(key, to: &bytes)
    append("\":", to: &bytes)
    appendQuoted(value, to: &bytes)
  }

}
