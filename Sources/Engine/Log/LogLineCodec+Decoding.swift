import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

extension LogLineCodec {
  /// Why a line could not be decoded.
  struct Problem: Error {
    var message: String
  }

  /// What the decoder remembers from one line to the next of the same read: the last `at` it
  /// checked, since the events of one write share it and a 24-byte comparison is cheaper than
  /// checking the date again.
  /// Likewise the last `batch` read, as its exact bytes (closing bracket included, so a longer
  /// value never matches) and its value.
  struct Memo {
    /// Before any line: the words of a valid `at`, `1970-01-01T00:00:00.000Z` (24 zero bytes,
    /// which no valid `at` holds, were once taken for one checked before).
    var timestamp: (UInt64, UInt64, UInt64) = Self.epoch
    var batchText: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var batchCount = 0
    var batch: ClosedRange<Int64> = 1...1

    /// `1970-01-01T00:00:00.000Z` as three words, as `readTimestamp` loads them.
    static var epoch: (UInt64, UInt64, UInt64) {
      (
        UInt64(littleEndian: 0x2D31_302D_3037_3931), UInt64(littleEndian: 0x3030_3A30_3054_3130),
        UInt64(littleEndian: 0x5A30_3030_2E30_303A)
      )
    }
  }

  /// Decodes and checks one line (without its `\n`).
  ///
  /// Checks the checksum first, then the envelope, member by member (see `decodeEnvelope`).
  static func decode(
    _ base: UnsafePointer<UInt8>, length: Int, lineNumber: Int, offset: Int64
  ) throws(Problem) -> EventLine {
    var memo = Memo()
    return try decode(base, length: length, lineNumber: lineNumber, offset: offset, memo: &memo)
  }

  /// Decodes and checks one line of a read that goes on to the next line with the same `memo`.
  static func decode(
    _ base: UnsafePointer<UInt8>, length: Int, lineNumber: Int, offset: Int64, memo: inout Memo
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
    try decodeEnvelope(&line, bodyLength: bodyLength, memo: &memo)
    return line
  }

  /// The envelope's members, in the order the writer writes them.
  enum Member: Int {
    case seq, id, stream, version, type, schema, at, batch, meta, data

    /// The members a line must have (`schema` defaults to 1; `batch` and `meta` are optional).
    static let required: UInt16 = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 6 | 1 << 9

    var bit: UInt16 { 1 << UInt16(rawValue) }

    /// The key, for messages.
    var name: String { key.description }

    /// The member whose key `key` is, or `nil` for any other key (escaped keys included: the
    /// names need none).
    init?(_ key: JSONStringSlice, in cursor: JSONCursor) {
      // By raw value: an array literal here could be miscompiled across modules (see
      // `JSONWriter.appendLiteral`).
      for rawValue in 0..<10 {
        if let member = Member(rawValue: rawValue), cursor.slice(key, equals: member.key) {
          self = member
          return
        }
      }
      return nil
    }

    var key: StaticString {
      switch self {
      case .seq: "seq"
      case .id: "id"
      case .stream: "stream"
      case .version: "version"
      case .type: "type"
      case .schema: "schema"
      case .at: "at"
      case .batch: "batch"
      case .meta: "meta"
      case .data: "data"
      }
    }

    /// Consumes `,"<key>":` exactly as the writer puts it, or nothing. Inlined with a constant
    /// member, each case is two word comparisons.
    @inline(__always)
    func consumeWriterKey(_ cursor: inout JSONCursor) -> Bool {
      switch self {
      case .seq: cursor.consume(",\"seq\":")
      case .id: cursor.consume(",\"id\":")
      case .stream: cursor.consume(",\"stream\":")
      case .version: cursor.consume(",\"version\":")
      case .type: cursor.consume(",\"type\":")
      case .schema: cursor.consume(",\"schema\":")
      case .at: cursor.consume(",\"at\":")
      case .batch: cursor.consume(",\"batch\":")
      case .meta: cursor.consume(",\"meta\":")
      case .data: cursor.consume(",\"data\":")
      }
    }
  }

  /// Reads the envelope of docs/FORMAT.md: members in any order, whitespace between tokens,
  /// each member once, every value checked (a UUID `id`, a valid UTC `at`, `meta` an object of
  /// the four audit keys with string values, `data` one JSON object), `crc` last.
  ///
  /// The quick checks are the first step of each read, not a separate reader: the writer's next
  /// key is compared as words before a key is read as a string, plain decimals are read before
  /// the general integer reader, the id and the time are checked in place. When a quick check
  /// fails, the same read goes on with the general step from where it stands.
  static func decodeEnvelope(
    _ line: inout EventLine, bodyLength: Int, memo: inout Memo
  ) throws(Problem) {
    var cursor = JSONCursor(base: line.base, count: bodyLength)
    // The checksum member follows the body: words may be loaded across `bodyLength`.
    cursor.readableSlack = suffixLength
    var seen: UInt16 = 0
    do {
      // Quick step: the writer's members in the writer's order, each key compared as words at
      // its own call site (so each comparison folds into constants). At the first deviation
      // the general loop below goes on from there, with the members already read kept.
      var next = Member.seq
      var isFirst = true
      quick: if cursor.consume("{\"seq\":") {
        isFirst = false
        line.sequence = try readPositive(&cursor, "seq")
        seen |= Member.seq.bit
        next = .id
        guard cursor.consume(",\"id\":") else { break quick }
        line.idOffset = try readEventID(&cursor)
        seen |= Member.id.bit
        next = .stream
        guard cursor.consume(",\"stream\":") else { break quick }
        line.streamSlice = try readStream(&cursor)
        seen |= Member.stream.bit
        next = .version
        guard cursor.consume(",\"version\":") else { break quick }
        line.version = try readPositive(&cursor, "version")
        seen |= Member.version.bit
        next = .type
        guard cursor.consume(",\"type\":") else { break quick }
        line.typeSlice = try readType(&cursor)
        seen |= Member.type.bit
        next = .schema
        guard cursor.consume(",\"schema\":") else { break quick }
        line.schemaVersion = try readSchema(&cursor)
        seen |= Member.schema.bit
        next = .at
        guard cursor.consume(",\"at\":") else { break quick }
        line.timestampOffset = try readTimestamp(&cursor, memo: &memo)
        seen |= Member.at.bit
        next = .batch
        if cursor.consume(",\"batch\":") {
          line.batch = try readBatch(&cursor, memo: &memo)
          seen |= Member.batch.bit
          next = .meta
        }
        if cursor.consume(",\"meta\":") {
          line.metaRange = try readMeta(&cursor)
          seen |= Member.meta.bit
          next = .data
        }
        guard cursor.consume(",\"data\":") else { break quick }
        line.dataRange = try readData(&cursor)
        seen |= Member.data.bit
        next = .data
      } else {
        try cursor.expect(0x7B, "'{' to start the event")
      }
      while true {
        var member: Member? = nil
        if !isFirst {
          // The writer's next key, then (past optional members) the ones after it.
          var candidate: Member? = next
          while let trying = candidate {
            if trying.consumeWriterKey(&cursor) {
              member = trying
              break
            }
            candidate =
              trying == .batch || trying == .meta ? Member(rawValue: trying.rawValue + 1) : nil
          }
        }
        if member == nil {
          cursor.skipWhitespace()
          if cursor.position >= bodyLength { break }
          if !isFirst { try cursor.expect(0x2C, "',' between members") }
          cursor.skipWhitespace()
          let key = try cursor.readStringSlice()
          guard let known = Member(key, in: cursor) else {
            throw Problem(
              message:
                "unknown envelope member '\(key.string(base: line.base))' (expected seq, id, stream, version, type, schema, at, batch, meta, data and crc)"
            )
          }
          try cursor.expect(0x3A, "':' after '\(known.name)'")
          member = known
        }
        guard let member else { break }
        guard seen & member.bit == 0 else {
          throw Problem(message: "member '\(member.name)' appears twice")
        }
        seen |= member.bit
        isFirst = false
        try decodeMember(member, &line, &cursor, memo: &memo)
        next = Member(rawValue: member.rawValue + 1) ?? .data
      }
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem(message: "malformed envelope: \(error)")
    }
    if seen & Member.required != Member.required {
      for rawValue in 0..<10 {
        if let member = Member(rawValue: rawValue), Member.required & member.bit != 0,
          seen & member.bit == 0
        {
          throw Problem(message: "envelope lacks '\(member.name)'")
        }
      }
    }
    if let batch = line.batch, !batch.contains(line.sequence) {
      throw Problem(message: "'batch' \(batch) does not contain the event's seq \(line.sequence)")
    }
  }

  /// Reads the value of `member` (the cursor just after its `:`).
  static func decodeMember(
    _ member: Member, _ line: inout EventLine, _ cursor: inout JSONCursor, memo: inout Memo
  ) throws(Problem) {
    switch member {
    case .seq: line.sequence = try readPositive(&cursor, "seq")
    case .version: line.version = try readPositive(&cursor, "version")
    case .schema: line.schemaVersion = try readSchema(&cursor)
    case .id: line.idOffset = try readEventID(&cursor)
    case .at: line.timestampOffset = try readTimestamp(&cursor, memo: &memo)
    case .stream: line.streamSlice = try readStream(&cursor)
    case .type: line.typeSlice = try readType(&cursor)
    case .batch: line.batch = try readBatch(&cursor, memo: &memo)
    case .meta: line.metaRange = try readMeta(&cursor)
    case .data: line.dataRange = try readData(&cursor)
    }
  }

  /// `schema`: an integer ≥ 1 that fits an `Int`.
  @inline(__always)
  static func readSchema(_ cursor: inout JSONCursor) throws(Problem) -> Int {
    let schema = try readPositive(&cursor, "schema")
    guard let value = Int(exactly: schema) else {
      throw Problem(message: "'schema' \(schema) is too large")
    }
    return value
  }

  /// `stream`. Quick step: a string of printable ASCII, checked a word at a time as it is
  /// scanned, not empty, not too long and without a space at either end; anything else is read
  /// in full and `EnvelopeRules` says what is wrong, if anything.
  @inline(__always)
  static func readStream(_ cursor: inout JSONCursor) throws(Problem) -> JSONStringSlice {
    if let slice = cursor.stringSlice(ofBytesNotFlaggedBy: JSONCursor.nonPrintableOrSpecialBytes) {
      let count = slice.end - slice.start
      if count > 0, count <= EnvelopeRules.maximumStreamNameLength,
        cursor.byte(at: slice.start) != 0x20, cursor.byte(at: slice.end - 1) != 0x20
      {
        return slice
      }
      cursor.position = slice.start - 1
    }
    let slice = try readNameSlice(&cursor, "stream")
    if let problem = streamNameProblem(slice, cursor) {
      throw Problem(message: "'stream': \(problem)")
    }
    return slice
  }

  /// `type`. Quick step: a string of ASCII letters, digits, `_` and `.`, checked a word at a
  /// time as it is scanned, starting with a letter and not too long; anything else is read in
  /// full and `EnvelopeRules` says what is wrong.
  @inline(__always)
  static func readType(_ cursor: inout JSONCursor) throws(Problem) -> JSONStringSlice {
    if let slice = cursor.stringSlice(ofBytesNotFlaggedBy: JSONCursor.nonTypeNameBytes) {
      let count = slice.end - slice.start
      if count > 0, count <= EnvelopeRules.maximumTypeNameLength,
        (cursor.byte(at: slice.start) | 0x20) &- 0x61 < 26
      {
        return slice
      }
      cursor.position = slice.start - 1
    }
    let slice = try readNameSlice(&cursor, "type")
    if let problem = typeNameProblem(slice, cursor) {
      throw Problem(message: "'type': \(problem)")
    }
    return slice
  }

  /// The general step of the name readers: any JSON string.
  static func readNameSlice(
    _ cursor: inout JSONCursor, _ name: StaticString
  ) throws(Problem) -> JSONStringSlice {
    do throws(JSONSyntaxError) {
      return try cursor.readStringSlice()
    } catch {
      throw Problem(message: "malformed '\(name)': \(error)")
    }
  }

  /// `meta`, checked (see `readMetadata`); returns its range.
  @inline(__always)
  static func readMeta(_ cursor: inout JSONCursor) throws(Problem) -> Range<Int> {
    cursor.skipWhitespace()
    let start = cursor.position
    try readMetadata(&cursor, into: nil)
    return start..<cursor.position
  }

  /// `data`: one JSON object, every byte of it checked; returns its range.
  @inline(__always)
  static func readData(_ cursor: inout JSONCursor) throws(Problem) -> Range<Int> {
    if cursor.currentByte == 0x7B, let range = cursor.skipCompactObject() { return range }
    cursor.skipWhitespace()
    guard cursor.currentByte == 0x7B else {
      throw Problem(message: "'data' is not an object")
    }
    do {
      return try cursor.skipValue()
    } catch {
      throw Problem(message: "malformed 'data': \(error)")
    }
  }

  /// `batch`. Quick step: the same bytes as the last `batch` read (the events of one write share
  /// it), compared as three words.
  @inline(__always)
  static func readBatch(
    _ cursor: inout JSONCursor, memo: inout Memo
  ) throws(Problem) -> ClosedRange<Int64> {
    let start = cursor.position
    let wordsReadable = start + 24 <= cursor.end + cursor.readableSlack
    if memo.batchCount > 0, wordsReadable,
      maskedWords(cursor.pointer(at: start), count: memo.batchCount) == memo.batchText
    {
      cursor.position = start + memo.batchCount
      return memo.batch
    }
    let batch = try readBatch(&cursor)
    let count = cursor.position - start
    if count <= 24, wordsReadable {
      memo.batchText = maskedWords(cursor.pointer(at: start), count: count)
      memo.batchCount = count
      memo.batch = batch
    }
    return batch
  }

  /// The first `count` (≤ 24) bytes at `bytes` as three little-endian words, zero past `count`;
  /// 24 bytes must be readable.
  @inline(__always)
  static func maskedWords(
    _ bytes: UnsafePointer<UInt8>, count: Int
  ) -> (UInt64, UInt64, UInt64) {
    @inline(__always) func mask(_ count: Int) -> UInt64 {
      count >= 8 ? ~0 : count <= 0 ? 0 : (1 &<< UInt64(8 &* count)) &- 1
    }
    let raw = UnsafeRawPointer(bytes)
    return (
      UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & mask(count),
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        & mask(count - 8),
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        & mask(count - 16)
    )
  }

  /// An integer ≥ 1. Quick step: up to 18 plain digits (no overflow possible); anything else
  /// (a sign, a leading zero, more digits, a fraction) goes to the general integer reader from
  /// the same place, which reads it or says what is wrong.
  @inline(__always)
  static func readPositive(
    _ cursor: inout JSONCursor, _ name: StaticString
  ) throws(Problem) -> Int64 {
    if let value = cursor.plainPositiveInteger() { return value }
    let value: Int64
    do throws(JSONSyntaxError) {
      value = try cursor.readInt64()
    } catch {
      throw Problem(message: "'\(name)' is not an integer: \(error)")
    }
    guard value >= 1 else { throw Problem(message: "'\(name)' \(value) is not ≥ 1") }
    return value
  }

  /// The id, a UUID in lowercase (`8-4-4-4-12` hex digits); returns the offset of its 36
  /// characters. Quick step: the 36 characters and the closing quote in place; otherwise the
  /// string is read in full and the same check says what is wrong.
  @inline(__always)
  static func readEventID(_ cursor: inout JSONCursor) throws(Problem) -> Int {
    let start = cursor.position + 1
    if cursor.currentByte == 0x22, start + 37 <= cursor.end,
      cursor.byte(at: start + 36) == 0x22, isEventIDText(cursor.pointer(at: start))
    {
      cursor.position = start + 37
      return start
    }
    let slice: JSONStringSlice
    do throws(JSONSyntaxError) {
      slice = try cursor.readStringSlice()
    } catch {
      throw Problem(message: "'id' is not a string: \(error)")
    }
    guard !slice.hasEscapes, slice.end - slice.start == 36,
      isEventIDText(cursor.pointer(at: slice.start))
    else {
      throw Problem(
        message:
          "'id' \(quoted(slice, cursor)) is not a UUID in lowercase (8-4-4-4-12 hex digits)")
    }
    return slice.start
  }

  /// The time, `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, a valid date and time); returns the offset of
  /// its 24 characters. Quick step: the same 24 bytes as the last time checked.
  @inline(__always)
  static func readTimestamp(_ cursor: inout JSONCursor, memo: inout Memo) throws(Problem) -> Int {
    let start = cursor.position + 1
    if cursor.currentByte == 0x22, start + 25 <= cursor.end, cursor.byte(at: start + 24) == 0x22 {
      let raw = UnsafeRawPointer(cursor.pointer(at: start))
      let text = (
        raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
        raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
      )
      if text == memo.timestamp {
        cursor.position = start + 25
        return start
      }
      if Timestamp.parseLogForm(UnsafeBufferPointer(start: cursor.pointer(at: start), count: 24))
        != nil
      {
        memo.timestamp = text
        cursor.position = start + 25
        return start
      }
    }
    let slice: JSONStringSlice
    do throws(JSONSyntaxError) {
      slice = try cursor.readStringSlice()
    } catch {
      throw Problem(message: "'at' is not a string: \(error)")
    }
    guard !slice.hasEscapes, slice.end - slice.start == 24,
      Timestamp.parseLogForm(UnsafeBufferPointer(start: cursor.pointer(at: slice.start), count: 24))
        != nil
    else {
      throw Problem(
        message:
          "'at' \(quoted(slice, cursor)) is not a valid UTC time like 2026-11-22T10:15:00.000Z")
    }
    return slice.start
  }

  /// `[first, last]`, two integers with 1 ≤ first ≤ last.
  static func readBatch(_ cursor: inout JSONCursor) throws(Problem) -> ClosedRange<Int64> {
    cursor.skipWhitespace()
    guard cursor.currentByte == 0x5B else {
      throw Problem(message: "'batch' is not [first seq, last seq]")
    }
    cursor.position += 1
    let first = try readPositive(&cursor, "batch")
    do {
      try cursor.expect(0x2C, "',' between the first and last seq of 'batch'")
      cursor.skipWhitespace()
      let last = try readPositive(&cursor, "batch")
      try cursor.expect(0x5D, "']' after the last seq of 'batch'")
      guard first <= last else {
        throw Problem(message: "'batch' [\(first),\(last)] runs backwards")
      }
      return first...last
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem(message: "'batch' is not [first seq, last seq]: \(error)")
    }
  }

  /// Reads `meta`: an object whose keys are among `actor`, `reason`, `correlation` and
  /// `causation`, each at most once, every value a string. The one reader of `meta`: the line
  /// decoder checks it (`metadata` nil: no `String` is made), `EventLine.metadata()` reads it.
  /// (A pointer, not `inout`: an empty `EventMetadata` made only to be passed was copied and
  /// destroyed through its value witnesses, about 190 instructions a replayed line.)
  ///
  /// Quick step for each key: the writer's next key in its order, compared as words; anything
  /// else (another order, whitespace, an unknown or escaped key) is read as a string and named.
  static func readMetadata(
    _ cursor: inout JSONCursor, into metadata: UnsafeMutablePointer<EventMetadata>?
  ) throws(Problem) {
    do {
      try cursor.expect(0x7B, "'{' to start an object")
      if cursor.peek() == 0x7D {
        cursor.position += 1
        return
      }
      var seen: UInt8 = 0
      var next = 0
      while true {
        var field = -1
        var candidate = next
        while candidate < 4 {
          if consumeMetaKey(candidate, &cursor) {
            field = candidate
            break
          }
          candidate += 1
        }
        if field < 0 {
          cursor.skipWhitespace()
          let key = try cursor.readStringSlice()
          for index in 0..<4 where cursor.slice(key, equals: metaKey(index)) {
            field = index
          }
          guard field >= 0 else {
            throw Problem(
              message:
                "unknown 'meta' member '\(key.string(base: cursor.pointer(at: 0)))' (expected actor, reason, correlation or causation)"
            )
          }
          try cursor.expect(0x3A, "':' after a 'meta' key")
        }
        guard seen & (1 << field) == 0 else {
          let name = metaKey(field)
          throw Problem(message: "'meta' member '\(name)' appears twice")
        }
        seen |= 1 << field
        cursor.skipWhitespace()
        guard cursor.currentByte == 0x22 else {
          throw Problem(message: "'meta' member '\(metaKey(field))' is not a string")
        }
        if let metadata {
          let text = try cursor.readString()
          switch field {
          case 0: metadata.pointee.actor = text
          case 1: metadata.pointee.reason = text
          case 2: metadata.pointee.correlation = text
          default: metadata.pointee.causation = text
          }
        } else {
          _ = try cursor.readStringSliceQuickly()
        }
        next = field + 1
        if cursor.currentByte == 0x2C {
          cursor.position += 1
          continue
        }
        if cursor.currentByte == 0x7D {
          cursor.position += 1
          return
        }
        cursor.skipWhitespace()
        guard let separator = cursor.currentByte, separator == 0x2C || separator == 0x7D else {
          try cursor.expect(0x7D, "',' or '}' after a 'meta' member")
          return
        }
        cursor.position += 1
        if separator == 0x7D { return }
      }
    } catch let problem as Problem {
      throw problem
    } catch {
      throw Problem(message: "malformed 'meta': \(error)")
    }
  }

  /// The `meta` keys in the writer's order.
  static func metaKey(_ index: Int) -> StaticString {
    switch index {
    case 0: "actor"
    case 1: "reason"
    case 2: "correlation"
    default: "causation"
    }
  }

  /// Consumes `"<key>":` for the writer's `index`th `meta` key, or nothing.
  @inline(__always)
  static func consumeMetaKey(_ index: Int, _ cursor: inout JSONCursor) -> Bool {
    switch index {
    case 0: cursor.consume("\"actor\":")
    case 1: cursor.consume("\"reason\":")
    case 2: cursor.consume("\"correlation\":")
    default: cursor.consume("\"causation\":")
    }
  }

  /// Reads `meta` at `range` of a decoded line.
  static func decodeMetadata(
    base: UnsafePointer<UInt8>, range: Range<Int>
  ) throws(Problem) -> EventMetadata {
    var cursor = JSONCursor(base: base, count: range.upperBound)
    cursor.position = range.lowerBound
    var metadata = EventMetadata()
    try withUnsafeMutablePointer(to: &metadata) { (pointer) throws(Problem) in
      try readMetadata(&cursor, into: pointer)
    }
    return metadata
  }

  /// Why a stream name breaks the rules (`EnvelopeRules.problem(withStreamName:)`), or `nil`.
  /// Quick step: printable ASCII without a space at either end needs no `String`.
  @inline(__always)
  static func streamNameProblem(_ slice: JSONStringSlice, _ cursor: JSONCursor) -> String? {
    let count = slice.end - slice.start
    if !slice.hasEscapes, count > 0, count <= EnvelopeRules.maximumStreamNameLength,
      cursor.byte(at: slice.start) != 0x20, cursor.byte(at: slice.end - 1) != 0x20,
      JSONCursor.isPrintableASCII(cursor.pointer(at: slice.start), count: count)
    {
      return nil
    }
    return EnvelopeRules.problem(withStreamName: slice.string(base: cursor.pointer(at: 0)))
  }

  /// Why a type name breaks the rules (`EnvelopeRules.problem(withTypeName:)`), or `nil`.
  @inline(__always)
  static func typeNameProblem(_ slice: JSONStringSlice, _ cursor: JSONCursor) -> String? {
    let count = slice.end - slice.start
    if !slice.hasEscapes, count > 0, count <= EnvelopeRules.maximumTypeNameLength {
      let bytes = cursor.pointer(at: slice.start)
      @inline(__always) func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }
      var valid = isLetter(bytes[0])
      for index in 1..<count {
        let byte = bytes[index]
        valid = valid && (isLetter(byte) || byte &- 0x30 < 10 || byte == 0x5F || byte == 0x2E)
      }
      if valid { return nil }
    }
    return EnvelopeRules.problem(withTypeName: slice.string(base: cursor.pointer(at: 0)))
      ?? "an event type name with escapes"
  }

  /// Whether 36 bytes are a UUID as the log writes it: lowercase hex digits, hyphens at 8, 13,
  /// 18 and 23. Five words, each checked for all of its bytes at once.
  @inline(__always)
  static func isEventIDText(_ bytes: UnsafePointer<UInt8>) -> Bool {
    guard bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else {
      return false
    }
    let raw = UnsafeRawPointer(bytes)
    // Which bytes of each word must be hex digits (0x80 in the byte), the hyphens left out.
    let all: UInt64 = 0x8080_8080_8080_8080
    let wrong =
      nonHexBytes(raw.loadUnaligned(as: UInt64.self), all)
      | nonHexBytes(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self), 0x8080_0080_8080_8000)
      | nonHexBytes(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), 0x0080_8080_8000_8080)
      | nonHexBytes(raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self), all)
      | nonHexBytes(raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self), all)
    return wrong == 0
  }

  /// Zero when the bytes of `word` (little-endian) marked in `mask` (0x80 per byte) are all
  /// `0-9` or `a-f`. Each comparison is exact per byte: with the high bit forced on, no borrow
  /// crosses a byte.
  @inline(__always)
  static func nonHexBytes(_ word: UInt64, _ mask: UInt64) -> UInt64 {
    let word = UInt64(littleEndian: word)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func atLeast(_ value: UInt64) -> UInt64 {
      ((word | highs) &- ones &* value) & highs
    }
    let digit = atLeast(0x30) & ~atLeast(0x3A)
    let letter = atLeast(0x61) & ~atLeast(0x67)
    return (word & mask) | (~(digit | letter) & mask)
  }

  /// A string slice quoted for a message.
  static func quoted(_ slice: JSONStringSlice, _ cursor: JSONCursor) -> String {
    "'" + slice.string(base: cursor.pointer(at: 0)).prefix(60) + "'"
  }
}
