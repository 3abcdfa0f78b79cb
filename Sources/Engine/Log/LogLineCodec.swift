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

  // MARK: Decoding

  /// Why a line could not be decoded.
  struct Problem: Error {
    var message: String
  }

  /// Decodes and checks one line (without its `\n`).
  ///
  /// Checks the checksum first, then the envelope. The writer's fixed layout is read on a fast
  /// path; a line with the same members in another order or with whitespace (another tool may
  /// have written it) falls back to a general object reader.
  static func decode(
    _ base: UnsafePointer<UInt8>, length: Int, lineNumber: Int, offset: Int64
  ) throws(Problem) -> EventLine {
    guard length >= suffixLength + 2 else {
      throw Problem(message: length == 0 ? "empty line" : "line too short to be an event")
    }
    let bodyLength = length - suffixLength
    let suffix = base + bodyLength
    guard memcmp(suffix, ",\"crc\":\"", 8) == 0, suffix[16] == 0x22, suffix[17] == 0x7D else {
      throw Problem(message: "line does not end with the checksum member ,\"crc\":\"<8 hex>\"}")
    }
    var stored: UInt32 = 0
    for index in 8..<16 {
      let byte = suffix[index]
      let digit: UInt32
      switch byte {
      case 0x30...0x39: digit = UInt32(byte - 0x30)
      case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
      default:
        throw Problem(message: "checksum is not 8 lowercase hex digits")
      }
      stored = stored << 4 | digit
    }
    let computed = CRC32C.checksum(UnsafeRawBufferPointer(start: base, count: bodyLength))
    guard computed == stored else {
      var expected: [UInt8] = []
      appendHex(computed, to: &expected)
      throw Problem(
        message:
          "checksum mismatch: the line says \(String(decoding: UnsafeBufferPointer(start: suffix + 8, count: 8), as: UTF8.self)), its bytes give \(String(decoding: expected, as: UTF8.self))"
      )
    }
    var line = EventLine(base: base, length: length, lineNumber: lineNumber, offset: offset)
    if decodeWriterLayout(&line, bodyLength: bodyLength)
      || decodeFast(&line, bodyLength: bodyLength)
    {
      return line
    }
    try decodeGeneral(&line, bodyLength: bodyLength)
    return line
  }

  /// The writer's exact layout with the plainest values: integers without sign or leading
  /// zero, names without escapes, `meta` a flat object of plain strings. Reads the bytes
  /// directly, with no cursor and no calls. Returns false (leaving `line` partly filled) at the
  /// first deviation, and `decodeFast` takes over; whatever it accepts, `decodeFast` would
  /// accept too, with the same fields.
  @inline(__always)
  static func decodeWriterLayout(_ line: inout EventLine, bodyLength: Int) -> Bool {
    var reader = EnvelopeReader(base: line.base, end: bodyLength)
    guard reader.skip("{\"seq\":"), let sequence = reader.positiveInteger(),
      reader.skip(",\"id\":\""), bodyLength - reader.position > 37,
      line.base[reader.position + 36] == 0x22, hasUUIDShape(line.base + reader.position)
    else { return false }
    line.sequence = sequence
    line.idOffset = reader.position
    reader.position += 37
    guard reader.skip(",\"stream\":"), let stream = reader.plainString(),
      reader.skip(",\"version\":"), let version = reader.positiveInteger(),
      reader.skip(",\"type\":"), let type = reader.plainString(),
      reader.skip(",\"schema\":"), let schemaVersion = reader.positiveInteger(),
      reader.skip(",\"at\":\""), bodyLength - reader.position > 25,
      line.base[reader.position + 24] == 0x22, hasTimestampShape(line.base + reader.position),
      stream.end > stream.start, type.end > type.start
    else { return false }
    line.streamSlice = stream
    line.version = version
    line.typeSlice = type
    line.schemaVersion = Int(schemaVersion)
    line.timestampOffset = reader.position
    reader.position += 25
    if reader.skip(",\"batch\":[") {
      guard let first = reader.positiveInteger(), reader.skip(","),
        let last = reader.positiveInteger(), reader.skip("]"), first <= sequence,
        sequence <= last
      else { return false }
      line.batch = first...last
    }
    if reader.skip(",\"meta\":") {
      guard let meta = reader.flatStringObject() else { return false }
      line.metaRange = meta
    }
    guard reader.skip(",\"data\":{"), line.base[bodyLength - 1] == 0x7D else { return false }
    line.dataRange = (reader.position - 1)..<bodyLength
    return true
  }

  /// The writer's exact layout. Returns false (leaving `line` partly filled) at the first
  /// deviation, and the general reader takes over.
  @inline(__always)
  static func decodeFast(_ line: inout EventLine, bodyLength: Int) -> Bool {
    var cursor = JSONCursor(base: line.base, count: bodyLength)
    do {
      guard cursor.consume("{\"seq\":") else { return false }
      line.sequence = try cursor.readInt64()
      guard cursor.consume(",\"id\":\"") else { return false }
      let idStart = cursor.position
      guard bodyLength - idStart > 37, line.base[idStart + 36] == 0x22,
        hasUUIDShape(line.base + idStart)
      else { return false }
      line.idOffset = idStart
      cursor.position = idStart + 37
      guard cursor.consume(",\"stream\":") else { return false }
      line.streamSlice = try cursor.readStringSlice()
      guard cursor.consume(",\"version\":") else { return false }
      line.version = try cursor.readInt64()
      guard cursor.consume(",\"type\":") else { return false }
      line.typeSlice = try cursor.readStringSlice()
      guard cursor.consume(",\"schema\":") else { return false }
      line.schemaVersion = Int(try cursor.readInt64())
      guard cursor.consume(",\"at\":\""), bodyLength - cursor.position > 25,
        line.base[cursor.position + 24] == 0x22,
        hasTimestampShape(line.base + cursor.position)
      else { return false }
      line.timestampOffset = cursor.position
      cursor.position += 25
      if cursor.consume(",\"batch\":[") {
        let first = try cursor.readInt64()
        guard cursor.consume(",") else { return false }
        let last = try cursor.readInt64()
        guard cursor.consume("]"), first <= last else { return false }
        line.batch = first...last
      }
      if cursor.consume(",\"meta\":") {
        // Only find where it ends; its members are read (and checked) when asked for.
        guard cursor.currentByte == 0x7B else { return false }
        line.metaRange = try cursor.skipValue()
      }
      guard cursor.consume(",\"data\":"), cursor.currentByte == 0x7B,
        line.base[bodyLength - 1] == 0x7D
      else { return false }
      line.dataRange = cursor.position..<bodyLength
      return try validateFields(line)
    } catch {
      return false
    }
  }

  /// Members in any order, whitespace allowed; every problem named.
  static func decodeGeneral(_ line: inout EventLine, bodyLength: Int) throws(Problem) {
    // The body is the object without its closing brace (that sits in the suffix), so members
    // are read one by one until the body ends.
    var cursor = JSONCursor(base: line.base, count: bodyLength)
    var seen: Set<String> = []
    var sawData = false
    do {
      try cursor.expect(0x7B, "'{' to start the event")
      var first = true
      while true {
        cursor.skipWhitespace()
        if cursor.position >= bodyLength { break }
        if !first { try cursor.expect(0x2C, "',' between members") }
        first = false
        let keySlice = try cursor.readStringSlice()
        let key = keySlice.string(base: line.base)
        guard seen.insert(key).inserted else {
          throw Problem(message: "member '\(key)' appears twice")
        }
        try cursor.expect(0x3A, "':' after '\(key)'")
        cursor.skipWhitespace()
        switch key {
        case "seq": line.sequence = try cursor.readInt64()
        case "id":
          let slice = try cursor.readStringSlice()
          guard !slice.hasEscapes, slice.end - slice.start == 36,
            EventID(utf8: UnsafeBufferPointer(start: line.base + slice.start, count: 36)) != nil
          else { throw Problem(message: "'id' is not a UUID") }
          line.idOffset = slice.start
        case "stream": line.streamSlice = try cursor.readStringSlice()
        case "version": line.version = try cursor.readInt64()
        case "type": line.typeSlice = try cursor.readStringSlice()
        case "schema": line.schemaVersion = Int(try cursor.readInt64())
        case "at":
          let slice = try cursor.readStringSlice()
          guard slice.end - slice.start == 24,
            Timestamp.parseLogForm(UnsafeBufferPointer(start: line.base + slice.start, count: 24))
              != nil
          else { throw Problem(message: "'at' is not a UTC time like 2026-11-22T10:15:00.000Z") }
          line.timestampOffset = slice.start
        case "batch":
          var bounds: [Int64] = []
          try cursor.readArray { element in bounds.append(try element.readInt64()) }
          guard bounds.count == 2, bounds[0] <= bounds[1] else {
            throw Problem(message: "'batch' is not [first seq, last seq]")
          }
          line.batch = bounds[0]...bounds[1]
        case "meta":
          let start = cursor.position
          _ = try decodeMetadata(base: line.base, range: start..<bodyLength, cursor: &cursor)
          line.metaRange = start..<cursor.position
        case "data":
          guard cursor.currentByte == 0x7B else {
            throw Problem(message: "'data' is not an object")
          }
          let range = try cursor.skipValue()
          line.dataRange = range
          sawData = true
        default:
          throw Problem(message: "unknown envelope member '\(key)'")
        }
      }
    } catch let problem as Problem {
      throw problem
    } catch let syntax as JSONSyntaxError {
      throw Problem(message: "malformed envelope: \(syntax)")
    } catch {
      throw Problem(message: "malformed envelope: \(error)")
    }
    for required in ["seq", "id", "stream", "version", "type", "at"] where !seen.contains(required)
    {
      throw Problem(message: "envelope lacks '\(required)'")
    }
    guard sawData else { throw Problem(message: "envelope lacks 'data'") }
    do {
      _ = try validateFields(line)
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem(message: "\(error)")
    }
  }

  /// Whether 36 bytes have a UUID's hyphens where a UUID has them. The fast path checks only this;
  /// the digits are covered by the checksum, and `verify` parses them all.
  @inline(__always)
  static func hasUUIDShape(_ bytes: UnsafePointer<UInt8>) -> Bool {
    bytes[8] == 0x2D && bytes[13] == 0x2D && bytes[18] == 0x2D && bytes[23] == 0x2D
  }

  /// Whether 24 bytes have the punctuation of `YYYY-MM-DDTHH:MM:SS.sssZ`.
  @inline(__always)
  static func hasTimestampShape(_ bytes: UnsafePointer<UInt8>) -> Bool {
    bytes[4] == 0x2D && bytes[7] == 0x2D && bytes[10] == 0x54 && bytes[13] == 0x3A
      && bytes[16] == 0x3A && bytes[19] == 0x2E && bytes[23] == 0x5A
  }

  /// Checks value ranges common to both paths.
  static func validateFields(_ line: EventLine) throws -> Bool {
    guard line.sequence >= 1 else { throw Problem(message: "'seq' \(line.sequence) is not ≥ 1") }
    guard line.version >= 1 else { throw Problem(message: "'version' \(line.version) is not ≥ 1") }
    guard line.schemaVersion >= 1 else {
      throw Problem(message: "'schema' \(line.schemaVersion) is not ≥ 1")
    }
    if let batch = line.batch, !batch.contains(line.sequence) {
      throw Problem(message: "'batch' \(batch) does not contain the event's seq \(line.sequence)")
    }
    guard line.streamSlice.end > line.streamSlice.start else {
      throw Problem(message: "'stream' is empty")
    }
    guard line.typeSlice.end > line.typeSlice.start else {
      throw Problem(message: "'type' is empty")
    }
    return true
  }

  /// Reads `meta` at `range.lowerBound`.
  static func decodeMetadata(base: UnsafePointer<UInt8>, range: Range<Int>) throws -> EventMetadata
  {
    var cursor = JSONCursor(base: base, count: range.upperBound)
    cursor.position = range.lowerBound
    return try decodeMetadata(base: base, range: range, cursor: &cursor)
  }

  static func decodeMetadata(
    base: UnsafePointer<UInt8>, range: Range<Int>, cursor: inout JSONCursor
  ) throws -> EventMetadata {
    var metadata = EventMetadata()
    try cursor.readObject { key, value in
      let text = try value.readString()
      if value.slice(key, equals: "actor") {
        metadata.actor = text
      } else if value.slice(key, equals: "reason") {
        metadata.reason = text
      } else if value.slice(key, equals: "correlation") {
        metadata.correlation = text
      } else if value.slice(key, equals: "causation") {
        metadata.causation = text
      } else {
        throw Problem(
          message:
            "unknown 'meta' member '\(key.string(base: base))' (expected actor, reason, correlation or causation)"
        )
      }
    }
    return metadata
  }
}

/// Reads the envelope's fixed layout byte by byte (`decodeWriterLayout`). Every read says "not
/// this shape" by returning `nil` or false; nothing is thrown.
struct EnvelopeReader {
  let base: UnsafePointer<UInt8>
  /// Offset of the first byte not to read (the checksum member's comma).
  let end: Int
  var position = 0

  init(base: UnsafePointer<UInt8>, end: Int) {
    self.base = base
    self.end = end
  }

  /// Consumes `literal` (at most 16 bytes) when the next bytes are exactly it. Compares whole
  /// words: the checksum suffix after `end` is readable, and inlined with a literal argument the
  /// expected words fold into constants. (`@_transparent` because `@inline(__always)` left some
  /// calls out of line, and a call here costs more than the comparison.)
  @_transparent
  mutating func skip(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard count <= 16, end - position >= count else { return false }
    let expected = literal.utf8Start
    var low: UInt64 = 0
    var high: UInt64 = 0
    for index in 0..<min(count, 8) {
      low |= UInt64(expected[index]) << UInt64(8 * index)
    }
    for index in 8..<max(count, 8) {
      high |= UInt64(expected[index]) << UInt64(8 * (index - 8))
    }
    let source = UnsafeRawPointer(base + position)
    if count >= 8 {
      guard UInt64(littleEndian: source.loadUnaligned(as: UInt64.self)) == low else { return false }
      if count > 8 {
        let mask: UInt64 = count == 16 ? ~0 : (1 << UInt64(8 * (count - 8))) &- 1
        let found = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        guard found & mask == high else { return false }
      }
    } else {
      let mask: UInt64 = (1 << UInt64(8 * count)) &- 1
      guard UInt64(littleEndian: source.loadUnaligned(as: UInt64.self)) & mask == low else {
        return false
      }
    }
    position += count
    return true
  }

  /// An integer from 1 with at most 18 digits (so no overflow check), no sign, no leading zero.
  @inline(__always)
  mutating func positiveInteger() -> Int64? {
    guard position < end, base[position] &- 0x31 < 9 else { return nil }
    var value = Int64(base[position] &- 0x30)
    var index = position + 1
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { break }
      value = value &* 10 &+ Int64(digit)
      index += 1
    }
    guard index - position <= 18 else { return nil }
    position = index
    return value
  }

  /// A string (at its opening quote) without escapes or control characters. Scans a word at a
  /// time: the checksum suffix after `end` is readable, and the closing quote comes before it.
  @inline(__always)
  mutating func plainString() -> JSONStringSlice? {
    guard position < end, base[position] == 0x22 else { return nil }
    let start = position + 1
    var index = start
    // The suffix is 18 bytes: any word that starts before `end` can be read.
    while index < end {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let flags = Self.specialBytes(word)
      if flags != 0 {
        // The lowest flag is exact (borrows only run upwards).
        index += flags.trailingZeroBitCount / 8
        guard index < end, base[index] == 0x22 else { return nil }
        position = index + 1
        return JSONStringSlice(start: start, end: index, hasEscapes: false)
      }
      index += 8
    }
    return nil
  }

  /// High bit set in the lowest byte of `word` that is `"`, `\` or below 0x20 (and perhaps in
  /// bytes above it).
  @inline(__always)
  static func specialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quotes = word ^ (ones &* 0x22)
    let backslashes = word ^ (ones &* 0x5C)
    return
      ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes
      | (word &- ones &* 0x20) & ~word) & highs
  }

  /// An object whose members are all plain strings, `{"actor":"ana"}`; returns its range.
  mutating func flatStringObject() -> Range<Int>? {
    let start = position
    guard position < end, base[position] == 0x7B else { return nil }
    position += 1
    if position < end, base[position] == 0x7D {
      position += 1
      return start..<position
    }
    while true {
      guard plainString() != nil, skip(":"), plainString() != nil, position < end else {
        return nil
      }
      let next = base[position]
      position += 1
      if next == 0x7D { return start..<position }
      guard next == 0x2C else { return nil }
    }
  }
}
