@_spi(Tables) import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The key store's lines: how each is written, read (the quick step for a key line as the
/// store writes it, then the general reader) and found alone.
extension KeyStore {
  static let headerLine: [UInt8] = line(body: #"{"format":"replay-keys","version":1"#)

  static func line(for entry: Entry) -> [UInt8] {
    line([
      "key": entry.id.description, "contact": entry.contact,
      "secret": entry.key.withUnsafeBytes { SHA256.hex(Array($0)) },
    ])
  }

  /// The mark that begins every append of keys: `{"write":"<12 digits>","crc":…}`, the number
  /// of key lines that follow it in the same write. Always 42 bytes, so a torn write's start
  /// can be checked byte by byte where its pages landed (``tornWriteStart(in:damagedLine:writeStart:path:)``).
  static func writeMark(keyCount: Int) -> [UInt8] {
    let digits = String(min(keyCount, writeMarkLimit))
    return line(["write": String(repeating: "0", count: 12 - digits.count) + digits])
  }

  /// The most keys a mark counts (a larger write is counted as this many: never reached).
  static let writeMarkLimit = 999_999_999_999

  /// The mark of an erasure under way: `{"erasing":"<id>","crc":…}`.
  static func erasingLine(_ contact: String) -> [UInt8] {
    line(["erasing": contact])
  }

  static func tombstone(_ id: KeyID, contact: String) -> [UInt8] {
    line(["erased": id.description, "contact": contact])
  }

  /// The line of an object of string members, in order, with its crc.
  private static func line(_ members: KeyValuePairs<String, String>) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    for (key, value) in members {
      writer.key(key)
      writer.string(value)
    }
    // The object is closed by `line(body:)`, after its crc.
    return line(body: String(decoding: writer.bytes, as: UTF8.self))
  }

  /// `body` (an object without its closing brace) with its crc member and `}\n`.
  static func line(body: String) -> [UInt8] {
    let bytes = Array(body.utf8)
    return bytes + Array(",\"crc\":\"\(checksumText(CRC32C.checksum(of: bytes)))\"}\n".utf8)
  }

  static func checksumText(_ value: UInt32) -> String {
    withUnsafeBytes(of: EventID.hexDigits(value)) { String(decoding: $0, as: UTF8.self) }
  }

  static func bytes(hex text: String) -> [UInt8]? {
    var text = text
    return text.withUTF8 { bytes(hexDigits: UnsafeRawBufferPointer($0)) }
  }

  /// The bytes lowercase hex digits spell, two digits a byte; `nil` for anything else.
  static func bytes(hexDigits digits: UnsafeRawBufferPointer) -> [UInt8]? {
    guard digits.count % 2 == 0 else { return nil }
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: digits.count / 2) { buffer, count in
      failed = !readHex(digits, into: UnsafeMutableRawBufferPointer(buffer))
      count = failed ? 0 : digits.count / 2
    }
    return failed ? nil : bytes
  }

  /// A key from its 64 lowercase hex digits, read straight into the key's bytes.
  static func key(hexDigits digits: UnsafeRawBufferPointer) -> ChaCha20Poly1305.Key? {
    guard digits.count == 2 * ChaCha20Poly1305.Key.byteCount else { return nil }
    var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    return withUnsafeMutableBytes(of: &storage) { raw in
      guard readHex(digits, into: raw) else { return nil }
      return try? ChaCha20Poly1305.Key(rawBytes: UnsafeRawBufferPointer(raw))
    }
  }

  /// Reads `target.count` bytes from twice as many lowercase hex digits.
  /// - Returns: `false` at the first byte that is not one.
  private static func readHex(
    _ digits: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer
  ) -> Bool {
    guard digits.count == 2 * target.count else { return false }
    // Eight digits at a time, as words (a table lookup per digit took about 750 instructions
    // a key, paid on every lookup a replay makes in the store's index); the rest one by one.
    var index = 0
    while 2 * index + 8 <= digits.count {
      let word = UInt64(
        littleEndian: digits.loadUnaligned(fromByteOffset: 2 * index, as: UInt64.self))
      guard let value = EventID.lowercaseHexValue(word) else { return false }
      target.storeBytes(
        of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: index, as: UInt32.self)
      index += 4
    }
    var invalid: UInt8 = 0
    for index in index..<target.count {
      let high = nibbles[Int(digits[2 * index])]
      let low = nibbles[Int(digits[2 * index + 1])]
      invalid |= (high | low) & 0xF0
      target[index] = high << 4 | low & 0x0F
    }
    return invalid == 0
  }

  /// Each byte's value as a lowercase hex digit, 0xFF for every other byte.
  private static let nibbles: [UInt8] = (0...255).map { byte in
    nibble(UInt8(byte)) ?? 0xFF
  }

  /// The value of a lowercase hex digit.
  static func nibble(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  /// A key line exactly as `line(for:)` writes it (without its newline), with a contact id
  /// without escapes and a matching checksum: the first step of reading a line, read in place
  /// at fixed offsets. `nil` for anything else, which `fields(of:)` then reads (and names what
  /// is wrong with).
  static func quickKeyLine(_ line: UnsafeRawBufferPointer) -> Entry? {
    quickKeyShape(line).flatMap { quickEntry(line, $0) }
  }

  /// Where a key line's parts are, once ``quickKeyShape(_:)`` has found them.
  struct QuickShape {
    var id: UInt64
    var contact: Range<Int>
    var secret: Range<Int>
  }

  /// The first half of ``quickKeyLine(_:)``: the line's shape, key id and checksum checked,
  /// the contact and the secret located but not read. What a store's index checks of every
  /// line (``KeyStore/Index``).
  static func quickKeyShape(_ line: UnsafeRawBufferPointer) -> QuickShape? {
    // {"key":"<16 hex>","contact":"<id>","secret":"<64 hex>","crc":"<8 hex>"}
    let head: StaticString = #"{"key":""#
    let contactKey: StaticString = #"","contact":""#
    let secretKey: StaticString = #"","secret":""#
    let crcKey: StaticString = #"","crc":""#
    let tail = secretKey.utf8CodeUnitCount + 64 + crcKey.utf8CodeUnitCount + 10
    let contactStart = head.utf8CodeUnitCount + 16 + contactKey.utf8CodeUnitCount
    let contactEnd = line.count - tail
    guard contactEnd > contactStart, let base = line.baseAddress else { return nil }
    func matches(_ literal: StaticString, at offset: Int) -> Bool {
      memcmp(base + offset, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }
    let idStart = head.utf8CodeUnitCount
    let idDigits = UnsafeRawBufferPointer(rebasing: line[idStart..<idStart + 16])
    let contactBytes = UnsafeRawBufferPointer(rebasing: line[contactStart..<contactEnd])
    let secretStart = contactEnd + secretKey.utf8CodeUnitCount
    let crcStart = secretStart + 64 + crcKey.utf8CodeUnitCount
    guard matches(head, at: 0),
      let id = SealedPersonalData.keyValue(idDigits.assumingMemoryBound(to: UInt8.self)),
      matches(contactKey, at: idStart + 16),
      !contactBytes.contains(0x22), !contactBytes.contains(0x5C),
      matches(secretKey, at: contactEnd), matches(crcKey, at: secretStart + 64),
      line[crcStart + 8] == 0x22, line[crcStart + 9] == 0x7D
    else { return nil }
    // The checksum covers the body and the quote that closes the secret; its 8 digits are
    // compared as one word, as `checksumText` writes them.
    let body = UnsafeRawBufferPointer(rebasing: line[..<(secretStart + 65)])
    let digits = line.loadUnaligned(fromByteOffset: crcStart, as: UInt64.self)
    guard digits == EventID.hexDigits(CRC32C.checksum(body)) else { return nil }
    return QuickShape(
      id: id, contact: contactStart..<contactEnd, secret: secretStart..<secretStart + 64)
  }

  /// The second half of ``quickKeyLine(_:)``: the entry of a line of shape `shape`, `nil` when
  /// its secret is not 64 lowercase hex digits or its contact not UTF-8.
  static func quickEntry(_ line: UnsafeRawBufferPointer, _ shape: QuickShape) -> Entry? {
    guard let key = key(hexDigits: UnsafeRawBufferPointer(rebasing: line[shape.secret])),
      let contact = UTF8Text.string(UnsafeRawBufferPointer(rebasing: line[shape.contact]))
    else { return nil }
    return Entry(id: KeyID(rawValue: shape.id), contact: contact, key: key)
  }

  /// What the store at `path` says of key `id`, from that key's line alone: its key line, or
  /// its tombstone, each whole (ending in a newline) and as the store writes it, checksum
  /// included. `nil` when neither is found so (the caller reads the whole store, which also
  /// tells a missing key from a damaged store).
  static func findLine(of id: KeyID, inStoreAt path: String) -> Lookup? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    else { return nil }
    return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Lookup? in
      // The whole line that starts with `prefix`: lines are walked with `memchr`, and only
      // the first bytes of a line are compared.
      func line(startingWith prefix: String) -> [UInt8]? {
        let needle = Array(prefix.utf8)
        guard let base = bytes.baseAddress else { return nil }
        var start = 0
        while start < bytes.count {
          guard let newline = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
          let end = base.distance(to: UnsafeRawPointer(newline))
          if end - start >= needle.count,
            bytes[start..<start + needle.count].elementsEqual(needle)
          {
            return Array(bytes[start..<end])
          }
          start = end + 1
        }
        return nil
      }
      if let keyLine = line(startingWith: #"{"key":"\#(id)""#) {
        return keyLine.withUnsafeBytes { quickKeyLine($0) }.map { .present($0) }
      }
      if let tombstone = line(startingWith: #"{"erased":"\#(id)""#),
        let fields = try? fields(of: tombstone, lineNumber: 0, path: path),
        fields["erased"] == id.description, let contact = fields["contact"]
      {
        return .erased(contact: contact)
      }
      return nil
    }
  }

  /// The members of one line, checked against its `crc`.
  static func fields(
    of line: [UInt8], lineNumber: Int, path: String
  ) throws(KeyStoreError) -> [String: String] {
    let suffix = Array(",\"crc\":\"".utf8)
    guard line.count > suffix.count + 10, line.last == UInt8(ascii: "}"),
      Array(line[(line.count - 10 - suffix.count)..<(line.count - 10)]) == suffix
    else {
      throw .corrupt(path: path, line: lineNumber, problem: "the line does not end in its crc")
    }
    let body = line[..<(line.count - 10 - suffix.count)]
    let stored = String(decoding: line[(line.count - 10)..<(line.count - 2)], as: UTF8.self)
    let computed = checksumText(CRC32C.checksum(of: body))
    guard stored == computed else {
      throw .corrupt(
        path: path, line: lineNumber,
        problem: "checksum mismatch (stored \(stored), computed \(computed))")
    }
    guard case .object(let object)? = try? JSONValue.parse(Array(body) + [UInt8(ascii: "}")])
    else {
      throw .corrupt(path: path, line: lineNumber, problem: "not a JSON object")
    }
    var fields: [String: String] = [:]
    for member in object.members {
      if let text = member.value.stringValue {
        fields[member.key] = text
      } else if let number = member.value.int64Value {
        fields[member.key] = String(number)
      }
    }
    return fields
  }

  /// What one line of a store says.
  enum Line {
    /// The first line's `{"format":"replay-keys","version":1}`.
    case header
    /// The start of an append of `count` keys.
    case write(count: Int)
    /// An erasure under way.
    case erasing(String)
    /// A destroyed key's tombstone.
    case erased(KeyID, contact: String)
    /// A key.
    case key(Entry)
  }

  /// Calls `body` with each whole line of a store's `bytes` (its number from 1, its range,
  /// its bytes without the newline).
  ///
  /// What a crash or a power loss can leave is read so that no complete key is ever dropped:
  /// - a last line that is whole but for its newline (its crc checks) is a line;
  /// - zero bytes where a torn write's pages never landed are skipped: a line of zeros, or
  ///   zeros before a whole line (a later line of the same write that landed);
  /// - a last line with zeros inside it or before it whose crc fails is a torn tail too: the
  ///   pages of its start or its middle never landed;
  /// - a last line that is not whole (no newline, or zeros or a bad crc after which nothing
  ///   whole follows) is a torn tail, never acknowledged: ignored here, cut by the next writer;
  /// - a damaged line (zeros inside or before it) with more after it is the torn last append
  ///   of keys when the bytes from that append's start read as one
  ///   (``tornWriteStart(in:damagedLine:writeStart:path:)``): it is the torn tail, from its
  ///   start. `body` may have been given its first whole key lines: they are not the store's.
  /// - Returns: where the whole lines end, whether a torn tail follows, and whether the last
  ///   line lacks its newline (the next append writes one first).
  static func forEachLine(
    of bytes: [UInt8], path: String,
    _ body: (Int, Range<Int>, UnsafeRawBufferPointer) throws(KeyStoreError) -> Void
  ) throws(KeyStoreError) -> (committed: Int, torn: Bool, lacksNewline: Bool) {
    // `withUnsafeBytes` rethrows untyped: the error comes out through a `Result`.
    try bytes.withUnsafeBytes { raw in
      Result { () throws(KeyStoreError) -> (committed: Int, torn: Bool, lacksNewline: Bool) in
        guard let base = raw.baseAddress else { return (0, false, false) }
        var start = 0
        var lineNumber = 0
        // Where the append that the lines read last belong to may have begun (its mark, or the
        // zeros of a torn write's lost start), for damage found further on.
        var writeStart: Int? = nil
        while start < raw.count {
          let newline = memchr(base + start, 0x0A, raw.count - start)
          let end = newline.map { base.distance(to: UnsafeRawPointer($0)) } ?? raw.count
          var lineStart = start
          while lineStart < end, raw[lineStart] == 0 { lineStart += 1 }
          let next = newline == nil ? raw.count : end + 1
          if lineStart == end {
            // Zeros only: pages of a torn write that never landed.
            if newline == nil { return (start, true, false) }
            if writeStart == nil { writeStart = start }
            start = next
            continue
          }
          let line = UnsafeRawBufferPointer(rebasing: raw[lineStart..<end])
          if newline == nil || memchr(base + lineStart, 0, end - lineStart) != nil {
            // Not whole. The shape a torn write leaves: a line's first bytes, then zeros or
            // the end of the file, with nothing whole after it. Anything else is damage.
            let content = line.prefix { $0 != 0 }
            let isLast = raw[next...].allSatisfy { $0 == 0 || $0 == 0x0A }
            let zerosToTheEnd = line[content.count...].allSatisfy { $0 == 0 }
            if newline == nil, !line.contains(0), isWhole(line, path: path) {
              lineNumber += 1
              try body(lineNumber, lineStart..<end, line)
              return (raw.count, false, true)
            }
            // Zeros inside the last line, then the rest of a line (not a whole one): a torn
            // write whose middle pages never landed.
            let afterZeros = line[(line.lastIndex(of: 0).map { $0 + 1 } ?? line.startIndex)...]
            let tornInside = !isWhole(UnsafeRawBufferPointer(rebasing: afterZeros), path: path)
            guard isLast, zerosToTheEnd || tornInside, !startsWithWholeLine(content, path: path)
            else {
              if let cut = tornWriteStart(
                in: raw, damagedLine: start, writeStart: writeStart, path: path)
              {
                return (cut, true, false)
              }
              throw .corrupt(
                path: path, line: lineNumber + 1,
                problem: isLast
                  ? "the last line is damaged, not torn (it is not the start of a line)"
                  : "the line is not whole (zero bytes or no end), and lines follow it")
            }
            return (start, true, false)
          }
          if lineStart > start, !isWhole(line, path: path) {
            // Zeros, then the end of a line, then nothing: a torn write whose first pages
            // never landed (its later ones did). With more after it: the middle of a torn
            // write, or damage.
            if raw[next...].allSatisfy({ $0 == 0 || $0 == 0x0A }) { return (start, true, false) }
            if let cut = tornWriteStart(
              in: raw, damagedLine: start, writeStart: writeStart, path: path)
            {
              return (cut, true, false)
            }
          }
          if lineNumber == 0, lineStart > 0,
            let cut = tornWriteStart(in: raw, damagedLine: 0, writeStart: 0, path: path)
          {
            // Zeros from the file's first byte, then whole lines: a first write whose first
            // pages (the header's among them) never landed, cut off at a line's end.
            return (cut, true, false)
          }
          lineNumber += 1
          try body(lineNumber, lineStart..<end, line)
          if startsAppend(line) {
            writeStart = lineStart
          } else if isKeyLine(line) {
            if lineStart > start, writeStart == nil { writeStart = start }
          } else {
            writeStart = nil
          }
          start = next
        }
        return (start, false, false)
      }
    }.get()
  }

  /// Whether `bytes` begin with a whole line and go on past it (a line whose newline was
  /// changed runs into the next: damage, not a torn write).
  static func startsWithWholeLine(_ bytes: UnsafeRawBufferPointer.SubSequence, path: String)
    -> Bool
  {
    let bytes = UnsafeRawBufferPointer(rebasing: bytes)
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == UInt8(ascii: "\""), bytes[index + 1] == UInt8(ascii: "}"),
        index + 2 < bytes.count,
        isWhole(UnsafeRawBufferPointer(rebasing: bytes[..<(index + 2)]), path: path)
      {
        return true
      }
      index += 1
    }
    return false
  }

  /// Whether `line` (without its newline) is a line as the store writes it, its crc checked.
  static func isWhole(_ line: UnsafeRawBufferPointer, path: String) -> Bool {
    if quickKeyLine(line) != nil { return true }
    return (try? fields(of: Array(line), lineNumber: 0, path: path)) != nil
  }

  /// Reads a line that is not a key line as the store writes it (the header, a tombstone, an
  /// erasure mark, a key line written otherwise), checked against its `crc`.
  /// - Throws: `KeyStoreError.corrupt` naming the line and what is wrong with it.
  static func line(_ line: [UInt8], number lineNumber: Int, path: String) throws(KeyStoreError)
    -> Line
  {
    let fields = try Self.fields(of: line, lineNumber: lineNumber, path: path)
    if lineNumber == 1 {
      guard fields["format"] == "replay-keys", fields["version"] == "1" else {
        throw .corrupt(
          path: path, line: 1,
          problem: "expected the header {\"format\":\"replay-keys\",\"version\":1}")
      }
      return .header
    }
    if let count = fields["write"] {
      guard count.utf8.count == 12, count.utf8.allSatisfy({ nibble($0).map { $0 < 10 } == true }),
        let value = Int(count)
      else {
        throw .corrupt(
          path: path, line: lineNumber, problem: "expected {\"write\":<12 digits>}, found \(count)")
      }
      return .write(count: value)
    }
    if let contact = fields["erasing"] { return .erasing(contact) }
    if let erased = fields["erased"] {
      guard let id = KeyID(erased), let contact = fields["contact"] else {
        throw .corrupt(
          path: path, line: lineNumber, problem: "expected {\"erased\":<16 hex>,\"contact\":<id>}"
        )
      }
      return .erased(id, contact: contact)
    }
    guard let idText = fields["key"], let id = KeyID(idText), let contact = fields["contact"],
      let secretText = fields["secret"], let secret = Self.bytes(hex: secretText),
      let key = try? ChaCha20Poly1305.Key(bytes: secret)
    else {
      throw .corrupt(
        path: path, line: lineNumber,
        problem: "expected {\"key\":<16 hex>,\"contact\":<id>,\"secret\":<64 hex>}")
    }
    return .key(Entry(id: id, contact: contact, key: key))
  }
}
