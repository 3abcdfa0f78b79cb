import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A torn append of keys: how the store tells the unsynced last write a power loss tore (pages
/// lost, zeros inside and across lines, later lines landed) from damage to synced lines.
///
/// Every append of keys begins with a mark, `{"write":"<12 digits>"}` (42 bytes), and holds
/// nothing but key lines after it; a store's first append begins with the header and then the
/// mark. Only the last append can be torn (each is synced before the next begins), and a torn
/// one shows, from where it began to the end of the file, its bytes where they landed and zeros
/// or nothing elsewhere. So damage is a torn write when, from a candidate start (the damaged
/// line's own start, else the last mark before it with only key lines between):
/// - the bytes of the head (the mark, or the header and the mark at the file's start) are what
///   the head holds wherever they are not zero;
/// - after the head, every line that begins after a line break is a key line (a whole one, when
///   its own line break follows), every whole line after zeros is a key line, and no more whole
///   key lines follow than the mark counts (when its digits landed).
/// Anything else (a changed byte in a whole line, damage in an earlier write, a tombstone or an
/// erasure mark after it, a store written before marks whose damaged line is not its last) is
/// corruption. A writer also never cuts a key a log line uses (`KeyStore.checkCut`).
extension KeyStore {
  /// The first bytes of a key line and of a write mark.
  static let keyLinePrefix = Array(#"{"key":""#.utf8)
  static let writeMarkPrefix = Array(#"{"write":""#.utf8)

  /// Stand-ins in ``writeMarkPattern`` for a decimal digit and a lowercase hex digit.
  private static let anyDigit: UInt8 = 1
  private static let anyHexDigit: UInt8 = 2

  /// A write mark with its 12 count digits and 8 checksum digits left open.
  private static let writeMarkPattern: [UInt8] =
    writeMarkPrefix + Array(repeating: anyDigit, count: 12) + Array(#"","crc":""#.utf8)
    + Array(repeating: anyHexDigit, count: 8) + Array(#""}"#.utf8) + [0x0A]

  /// Where the torn write that `damagedLine` (the offset of the first damaged line) is part of
  /// begins, or `nil` when the damage is not a torn write.
  /// - Parameter writeStart: where the last mark read before the damage begins (or the zeros
  ///   before a key line read after them), if only key lines followed it.
  static func tornWriteStart(
    in raw: UnsafeRawBufferPointer, damagedLine: Int, writeStart: Int?, path: String
  ) -> Int? {
    // The damaged line itself first: a write that begins there keeps every line before it.
    for candidate in [damagedLine, writeStart] {
      guard let candidate, candidate <= damagedLine else { continue }
      if isTornWrite(from: candidate, in: raw, path: path) { return candidate }
    }
    return nil
  }

  /// Whether the bytes from `start` to the end are an append of keys (its head at `start`)
  /// as a power loss may leave it.
  private static func isTornWrite(
    from start: Int, in raw: UnsafeRawBufferPointer, path: String
  ) -> Bool {
    let head = start == 0 ? headerLine + writeMarkPattern : writeMarkPattern
    var count = 0
    var countLanded = true
    for (offset, expected) in head.enumerated() where start + offset < raw.count {
      let byte = raw[start + offset]
      let isCountDigit =
        offset >= head.count - writeMarkPattern.count + writeMarkPrefix.count
        && expected == anyDigit
      if byte == 0 {
        if isCountDigit { countLanded = false }
        continue
      }
      switch expected {
      case anyDigit:
        guard let value = nibble(byte), value < 10 else { return false }
        if isCountDigit { count = count * 10 + Int(value) }
      case anyHexDigit:
        guard nibble(byte) != nil else { return false }
      default:
        guard byte == expected else { return false }
      }
    }
    var position = start + head.count
    guard position < raw.count else { return true }
    var atLineStart = raw[position - 1] == 0x0A
    var keys = 0
    while position < raw.count {
      if raw[position] == 0 {
        while position < raw.count, raw[position] == 0 { position += 1 }
        atLineStart = false
        continue
      }
      var end = position
      while end < raw.count, raw[end] != 0, raw[end] != 0x0A { end += 1 }
      let segment = UnsafeRawBufferPointer(rebasing: raw[position..<end])
      let endsLine = end < raw.count && raw[end] == 0x0A
      if endsLine, isWholeKeyLine(segment, path: path) {
        keys += 1
      } else if atLineStart {
        // A line's start: cut short by zeros or the end of the file, and a key line's start.
        guard !endsLine,
          segment.prefix(keyLinePrefix.count).elementsEqual(keyLinePrefix.prefix(segment.count))
        else {
          return false
        }
      } else if endsLine, isWhole(segment, path: path) {
        // A whole line of another kind after zeros: another write, or another line's place.
        return false
      }
      position = endsLine ? end + 1 : end
      atLineStart = endsLine
    }
    return !countLanded || keys <= count
  }

  /// The keys of the whole key lines in `bytes` (the lines between line breaks, without zeros).
  static func keyEntries(in bytes: ArraySlice<UInt8>, path: String) -> [Entry] {
    var entries: [Entry] = []
    var rest = bytes
    while let newline = rest.firstIndex(of: 0x0A) {
      let line = Array(rest[..<newline])
      rest = rest[(newline + 1)...]
      guard !line.contains(0) else { continue }
      if let entry = line.withUnsafeBytes({ quickKeyLine($0) }) {
        entries.append(entry)
      } else if case .key(let entry)? = try? Self.line(line, number: 2, path: path) {
        entries.append(entry)
      }
    }
    return entries
  }

  /// Whether a line read whole is a write mark, from its first eight bytes (`{"write"`).
  static func startsAppend(_ line: UnsafeRawBufferPointer) -> Bool {
    line.count >= 8 && line.loadUnaligned(as: UInt64.self) == writeMarkWord
  }

  /// Whether a line read whole is a key line, from its first eight bytes (`{"key":"`).
  static func isKeyLine(_ line: UnsafeRawBufferPointer) -> Bool {
    line.count >= 8 && line.loadUnaligned(as: UInt64.self) == keyLineWord
  }

  private static let keyLineWord = keyLinePrefix.withUnsafeBytes {
    $0.loadUnaligned(as: UInt64.self)
  }
  private static let writeMarkWord = writeMarkPrefix.withUnsafeBytes {
    $0.loadUnaligned(as: UInt64.self)
  }

  /// Whether `line` (without its newline) is a whole key line.
  private static func isWholeKeyLine(_ line: UnsafeRawBufferPointer, path: String) -> Bool {
    if quickKeyLine(line) != nil { return true }
    guard case .key? = try? Self.line(Array(line), number: 2, path: path) else { return false }
    return true
  }

  /// The ids of the keys the log at `logPath` names (each `"key":"<16 hex>"` in its bytes: a
  /// sealed payload's key; a member of that name elsewhere only adds an id), none when there
  /// is no log.
  static func keysNamed(byLogAt logPath: String) throws(KeyStoreError) -> Set<KeyID> {
    guard FileManager.default.fileExists(atPath: logPath) else { return [] }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: logPath), options: .alwaysMapped)
    } catch {
      throw .unreadable(path: logPath, reason: error.localizedDescription)
    }
    let needle = Array(#""key":""#.utf8)
    return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Set<KeyID> in
      var ids: Set<KeyID> = []
      guard let base = bytes.baseAddress else { return ids }
      var position = 0
      while position + needle.count + 17 <= bytes.count,
        let quote = memchr(base + position, 0x22, bytes.count - position - needle.count - 16)
      {
        let found = base.distance(to: UnsafeRawPointer(quote))
        position = found + 1
        let digits = found + needle.count
        guard bytes[found..<digits].elementsEqual(needle), bytes[digits + 16] == 0x22 else {
          continue
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[digits..<digits + 16])
        if let value = SealedPersonalData.keyValue(text.assumingMemoryBound(to: UInt8.self)) {
          ids.insert(KeyID(rawValue: value))
        }
      }
      return ids
    }
  }
}
