import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The per-person keys of a log, in `<log>.keys` beside it: one line per key,
/// `{"key":"<16 hex>","contact":"<id>","secret":"<64 hex>","crc":"<8 hex>"}`, after a header
/// line `{"format":"replay-keys","version":1,"crc":"<8 hex>"}`; a destroyed key leaves a
/// tombstone `{"erased":"<16 hex>","contact":"<id>","crc":"<8 hex>"}`. Each line's `crc` is the
/// CRC-32C of the line's bytes before `,"crc"` (as in the log).
///
/// - **Durable before use.** A new key's line is appended and `fdatasync`ed (and the folder
///   synced when the file is new) before ``add(contact:)`` returns, so a writer that appends an
///   event sealed under it only after that never leaves an event whose key was lost.
/// - **Erasure destroys.** ``erase(contact:)`` writes the store again without the contact's
///   keys, to a temporary file that is synced and renamed over the store: the old bytes are
///   gone from the file (a copy in a backup is the user's to destroy).
/// - **Bound to its log by use.** Keys have random ids, and every sealed payload names its key:
///   a store from another log holds none of them. A key the log names that the store lacks,
///   for a contact the log has not erased, is an error (`KeyStoreError.missingKey`), never
///   taken as an erasure.
/// - **A torn last line** (a crash while a key was added) was never acknowledged: it is
///   ignored when reading and cut by the next ``add(contact:)``. A damaged line anywhere else,
///   or a bad header, stops every reader and writer (`KeyStoreError.corrupt`).
///
/// Not thread-safe and not locked itself: writers call it while they hold the log's lock.
public struct KeyStore: Sendable {
  /// The store's file.
  public let path: String
  /// Each key by its id.
  public private(set) var keys: [KeyID: Entry] = [:]
  /// Each contact's keys, oldest first (a contact re-imported after erasure has a new one).
  public private(set) var keysByContact: [String: [KeyID]] = [:]
  /// The ids of destroyed keys, with their contacts: an erased key is told from a lost one.
  public private(set) var erasedKeys: [KeyID: String] = [:]
  /// Contacts whose erasure began (`{"erasing":"<id>"}`, written and synced before the
  /// `ContactErased`) and did not finish: the next writer completes or abandons each.
  public private(set) var pendingErasures: [String] = []
  /// Bytes of whole lines (where the next line goes).
  private var committedEnd: Int64 = 0
  /// Whether the file ends in a torn line that an append must cut first.
  private var tornTail = false
  /// The file's size when read (or last written here).
  private var fileSize: Int64 = 0

  /// A key's id: 8 random bytes, written as 16 lowercase hex digits.
  public struct KeyID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
      self.rawValue = rawValue
    }

    /// The id written as 16 hex digits, or `nil` for anything else.
    public init?(_ text: String) {
      guard text.utf8.count == 16, text.utf8.allSatisfy(KeyStore.isLowercaseHex),
        let value = UInt64(text, radix: 16)
      else { return nil }
      rawValue = value
    }

    public var description: String {
      let digits = String(rawValue, radix: 16)
      return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public static func < (left: KeyID, right: KeyID) -> Bool { left.rawValue < right.rawValue }
  }

  /// One key.
  public struct Entry: Sendable, Equatable {
    public var id: KeyID
    public var contact: String
    public var key: ChaCha20Poly1305.Key
  }

  /// The store of the log at `logPath`.
  public static func path(forLog logPath: String) -> String { logPath + ".keys" }

  /// Reads the store beside the log at `logPath`; an absent store is an empty one.
  /// - Throws: `KeyStoreError.corrupt` for a bad header or a damaged line before the last;
  ///   `.unreadable` when the file cannot be read.
  public init(logPath: String) throws(KeyStoreError) {
    path = Self.path(forLog: logPath)
    let bytes: [UInt8]
    do {
      guard FileManager.default.fileExists(atPath: path) else { return }
      bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      throw .unreadable(path: path, reason: error.localizedDescription)
    }
    fileSize = Int64(bytes.count)
    try load(bytes)
  }

  private mutating func load(_ bytes: [UInt8]) throws(KeyStoreError) {
    var start = 0
    var lineNumber = 0
    while start < bytes.count {
      lineNumber += 1
      guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
        // No newline: a torn last line, never acknowledged.
        tornTail = true
        return
      }
      let line = Array(bytes[start..<newline])
      if lineNumber > 1, let entry = Self.quickKeyLine(line) {
        // The commonest line, as the store writes it: read without building JSON values.
        guard keys[entry.id] == nil else {
          throw .corrupt(path: path, line: lineNumber, problem: "key \(entry.id) appears twice")
        }
        keys[entry.id] = entry
        keysByContact[entry.contact, default: []].append(entry.id)
        start = newline + 1
        committedEnd = Int64(start)
        continue
      }
      let fields = try Self.fields(of: line, lineNumber: lineNumber, path: path)
      if lineNumber == 1 {
        guard fields["format"] == "replay-keys", fields["version"] == "1" else {
          throw .corrupt(
            path: path, line: 1,
            problem: "expected the header {\"format\":\"replay-keys\",\"version\":1}")
        }
      } else if let contact = fields["erasing"] {
        if !pendingErasures.contains(contact) { pendingErasures.append(contact) }
      } else if let erased = fields["erased"] {
        guard let id = KeyID(erased), let contact = fields["contact"] else {
          throw .corrupt(
            path: path, line: lineNumber, problem: "expected {\"erased\":<16 hex>,\"contact\":<id>}"
          )
        }
        erasedKeys[id] = contact
      } else {
        guard let idText = fields["key"], let id = KeyID(idText), let contact = fields["contact"],
          let secretText = fields["secret"], let secret = Self.bytes(hex: secretText),
          let key = try? ChaCha20Poly1305.Key(bytes: secret)
        else {
          throw .corrupt(
            path: path, line: lineNumber,
            problem: "expected {\"key\":<16 hex>,\"contact\":<id>,\"secret\":<64 hex>}")
        }
        guard keys[id] == nil else {
          throw .corrupt(path: path, line: lineNumber, problem: "key \(id) appears twice")
        }
        keys[id] = Entry(id: id, contact: contact, key: key)
        keysByContact[contact, default: []].append(id)
      }
      start = newline + 1
      committedEnd = Int64(start)
    }
  }

  /// A key line exactly as `line(for:)` writes it, with a contact id without escapes and a
  /// matching checksum: the first step of reading a line. `nil` for anything else, which
  /// `fields(of:)` then reads (and names what is wrong with).
  static func quickKeyLine(_ line: [UInt8]) -> Entry? {
    let head = Array(#"{"key":""#.utf8)
    let contactKey = Array(#"","contact":""#.utf8)
    let secretKey = Array(#"","secret":""#.utf8)
    let crcKey = Array(#"","crc":""#.utf8)
    // head, 16 hex, contactKey, id, secretKey, 64 hex, crcKey, 8 hex, "}
    let fixed = head.count + 16 + contactKey.count + secretKey.count + 64 + crcKey.count + 10
    guard line.count > fixed, line.starts(with: head), !line.contains(0x5C) else { return nil }
    var position = head.count
    guard let id = hexValue(line[position..<position + 16]) else { return nil }
    position += 16
    guard line[position..<position + contactKey.count].elementsEqual(contactKey) else {
      return nil
    }
    position += contactKey.count
    guard let quote = line[position...].firstIndex(of: 0x22), quote > position else { return nil }
    let contactBytes = line[position..<quote]
    position = quote
    guard line.count == position + secretKey.count + 64 + crcKey.count + 10,
      line[position..<position + secretKey.count].elementsEqual(secretKey)
    else { return nil }
    position += secretKey.count
    var secret: [UInt8] = []
    secret.reserveCapacity(32)
    var index = position
    while index < position + 64 {
      guard let high = nibble(line[index]), let low = nibble(line[index + 1]) else { return nil }
      secret.append(high << 4 | low)
      index += 2
    }
    position += 64
    let bodyEnd = position
    guard line[position..<position + crcKey.count].elementsEqual(crcKey) else { return nil }
    position += crcKey.count
    guard let stored = hexValue(line[position..<position + 8]),
      line[position + 8] == 0x22, line[position + 9] == 0x7D,
      UInt64(CRC32C.checksum(of: line[..<bodyEnd] + [0x22])) == stored,
      let contact = String(validating: contactBytes, as: UTF8.self),
      let key = try? ChaCha20Poly1305.Key(bytes: secret)
    else { return nil }
    return Entry(id: KeyID(rawValue: id), contact: contact, key: key)
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
        return quickKeyLine(keyLine).map { .present($0) }
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

  /// The value of lowercase hex digits (at most 16).
  static func hexValue(_ digits: ArraySlice<UInt8>) -> UInt64? {
    var value: UInt64 = 0
    for digit in digits {
      guard let nibble = nibble(digit) else { return nil }
      value = value << 4 | UInt64(nibble)
    }
    return value
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

  /// What the store says of the key `id`: there, destroyed by an erasure, or unknown.
  public enum Lookup: Sendable, Equatable {
    case present(Entry)
    case erased(contact: String)
    case missing
  }

  /// What the store says of the key `id`.
  public func lookup(_ id: KeyID) -> Lookup {
    if let entry = keys[id] { return .present(entry) }
    if let contact = erasedKeys[id] { return .erased(contact: contact) }
    return .missing
  }

  /// The contact's newest key, if the store has one.
  public func key(forContact contact: String) -> Entry? {
    keysByContact[contact]?.last.flatMap { keys[$0] }
  }

  /// Makes a key for `contact` from the system's secure random source, appends it and syncs
  /// it; returns it once it is durable.
  /// - Throws: `KeyStoreError.unwritable` when the store cannot be written or synced (nothing
  ///   is then acknowledged), `.randomSourceFailed`.
  public mutating func add(contact: String) throws(KeyStoreError) -> Entry {
    var secure: GeneratorRandom? = nil
    return try add(contact: contact, seeded: &secure)
  }

  /// `add(contact:)`, drawing the key and its id from `seeded` when given: only for generated
  /// logs (`EventLog.Configuration.sealingSeed`), whose keys the seed rebuilds.
  mutating func add(
    contact: String, seeded: inout GeneratorRandom?
  ) throws(KeyStoreError) -> Entry {
    let key: ChaCha20Poly1305.Key
    var id: KeyID
    do {
      if seeded != nil {
        var secret: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: seeded?.next() ?? 0) { secret += $0 } }
        key = try ChaCha20Poly1305.Key(bytes: secret)
        repeat { id = KeyID(rawValue: seeded?.next() ?? 0) } while keys[id] != nil
      } else {
        key = try ChaCha20Poly1305.Key.random()
        repeat {
          id = KeyID(rawValue: try SecureRandom.bytes(count: 8).reduce(0) { $0 << 8 | UInt64($1) })
        } while keys[id] != nil
      }
    } catch {
      throw .randomSourceFailed(String(describing: error))
    }
    let entry = Entry(id: id, contact: contact, key: key)
    try appendDurably(Self.line(for: entry))
    keys[id] = entry
    keysByContact[contact, default: []].append(id)
    return entry
  }

  /// Takes over `entry`, a key of another store (a migration copies a log's keys to its new
  /// log), under the same id; durable when it returns.
  mutating func adopt(_ entry: Entry) throws(KeyStoreError) {
    guard keys[entry.id] == nil else { return }
    try appendDurably(Self.line(for: entry))
    keys[entry.id] = entry
    keysByContact[entry.contact, default: []].append(entry.id)
  }

  /// Takes over the tombstone of a key another store destroyed.
  mutating func adoptTombstone(_ id: KeyID, contact: String) throws(KeyStoreError) {
    guard erasedKeys[id] == nil else { return }
    try appendDurably(Self.tombstone(id, contact: contact))
    erasedKeys[id] = contact
  }

  /// Records that the erasure of `contact` begins, durably, before its `ContactErased` is
  /// appended: a crash after this leaves a mark the next writer finds.
  public mutating func beginErasure(contact: String) throws(KeyStoreError) {
    guard !pendingErasures.contains(contact) else { return }
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("erasing")
    writer.string(contact)
    try appendDurably(Self.line(body: String(decoding: writer.bytes, as: UTF8.self)))
    pendingErasures.append(contact)
  }

  /// Forgets an erasure that began but whose `ContactErased` never reached the log.
  public mutating func abandonErasure(contact: String) throws(KeyStoreError) {
    guard pendingErasures.contains(contact) else { return }
    try rewrite(without: contact, destroyingKeys: false)
  }

  /// Whether the store beside the log at `logPath` ends with an erasure that began and did
  /// not finish: a look at its last line only (erasures hold the log's lock throughout, so
  /// an unfinished one is always last).
  public static func endsWithPendingErasure(logPath: String) -> Bool {
    let path = Self.path(forLog: logPath)
    guard let file = try? FileDescriptor.open(path, .readOnly) else { return false }
    defer { file.close() }
    guard let size = try? file.status().size, size > 0 else { return false }
    let start = max(0, size - 512)
    guard let tail = try? file.readFully(count: Int(size - start), at: start) else { return false }
    var end = tail.count
    if tail.last == 0x0A { end -= 1 }
    let lineStart = tail[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
    return tail[lineStart..<end].starts(with: Array("{\"erasing\":".utf8))
  }

  /// Appends whole lines (the header first when the store is new), syncs them, and only then
  /// takes them as written.
  private mutating func appendDurably(_ line: [UInt8]) throws(KeyStoreError) {
    var bytes: [UInt8] = committedEnd == 0 ? Self.headerLine : []
    bytes += line
    do throws(EngineError) {
      let isNew = !FileManager.default.fileExists(atPath: path)
      let file = try FileDescriptor.open(path, .appendCreating)
      defer { file.close() }
      let size = try file.status().size
      guard size == fileSize else {
        throw EngineError.invalidEvent(
          location: path,
          problem:
            "it changed since it was read (\(fileSize) bytes then, \(size) now); read it again")
      }
      if tornTail { try file.truncate(to: committedEnd) }
      let written = bytes.withUnsafeBytes { buffer in
        Result { () throws(EngineError) in try file.writeAll(buffer) }
      }
      try written.get()
      try file.synchronize()
      if isNew { FileDescriptor.synchronizeDirectory(containing: path) }
    } catch {
      throw .unwritable(path: path, reason: String(describing: error))
    }
    committedEnd += Int64(bytes.count)
    fileSize = committedEnd
    tornTail = false
  }

  /// Destroys every key of `contact`: the store is written again without them and with a
  /// tombstone line for each (a temporary file, synced, renamed over it, the folder synced).
  /// Returns how many keys were destroyed.
  /// - Throws: `KeyStoreError.unwritable`; the store is then unchanged.
  @discardableResult
  public mutating func erase(contact: String) throws(KeyStoreError) -> Int {
    let erased = keysByContact[contact] ?? []
    guard !erased.isEmpty || pendingErasures.contains(contact) else { return 0 }
    try rewrite(without: contact, destroyingKeys: true)
    return erased.count
  }

  /// Writes the store again without `contact`'s pending erasure and, when `destroyingKeys`,
  /// without its keys (a tombstone for each instead): a temporary file, synced, renamed over
  /// the store, the folder synced.
  private mutating func rewrite(
    without contact: String, destroyingKeys: Bool
  ) throws(KeyStoreError) {
    let erased = destroyingKeys ? keysByContact[contact] ?? [] : []
    var bytes = Self.headerLine
    for entry in keys.values.sorted(by: { $0.id < $1.id })
    where !(destroyingKeys && entry.contact == contact) {
      bytes += Self.line(for: entry)
    }
    var tombstones = erasedKeys
    for id in erased { tombstones[id] = contact }
    for (id, owner) in tombstones.sorted(by: { $0.key < $1.key }) {
      bytes += Self.tombstone(id, contact: owner)
    }
    let pending = pendingErasures.filter { $0 != contact }
    for other in pending {
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("erasing")
      writer.string(other)
      bytes += Self.line(body: String(decoding: writer.bytes, as: UTF8.self))
    }
    do throws(ExportError) {
      try AtomicFile.write(bytes, to: path)
    } catch {
      throw .unwritable(path: path, reason: error.description)
    }
    for id in erased {
      keys[id] = nil
      erasedKeys[id] = contact
    }
    if destroyingKeys { keysByContact[contact] = nil }
    pendingErasures = pending
    committedEnd = Int64(bytes.count)
    fileSize = committedEnd
    tornTail = false
  }

  static let headerLine: [UInt8] = line(body: #"{"format":"replay-keys","version":1"#)

  static func line(for entry: Entry) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("key")
    writer.string(entry.id.description)
    writer.key("contact")
    writer.string(entry.contact)
    writer.key("secret")
    writer.string(entry.key.withUnsafeBytes { SHA256.hex(Array($0)) })
    // The object is closed by `line(body:)`, after its crc.
    return line(body: String(decoding: writer.bytes, as: UTF8.self))
  }

  static func tombstone(_ id: KeyID, contact: String) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("erased")
    writer.string(id.description)
    writer.key("contact")
    writer.string(contact)
    return line(body: String(decoding: writer.bytes, as: UTF8.self))
  }

  /// `body` (an object without its closing brace) with its crc member and `}\n`.
  static func line(body: String) -> [UInt8] {
    let bytes = Array(body.utf8)
    return bytes + Array(",\"crc\":\"\(checksumText(CRC32C.checksum(of: bytes)))\"}\n".utf8)
  }

  static func checksumText(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }

  static func bytes(hex text: String) -> [UInt8]? {
    var text = text
    return text.withUTF8 { utf8 -> [UInt8]? in
      guard utf8.count % 2 == 0 else { return nil }
      var bytes: [UInt8] = []
      bytes.reserveCapacity(utf8.count / 2)
      var index = 0
      while index < utf8.count {
        guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
      }
      return bytes
    }
  }

  /// The value of a lowercase hex digit.
  static func nibble(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  static func isLowercaseHex(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
  }
}

/// What can go wrong with a key store.
public enum KeyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A bad header or a damaged line before the last.
  case corrupt(path: String, line: Int, problem: String)
  /// The file cannot be read.
  case unreadable(path: String, reason: String)
  /// A key could not be written durably, or the store could not be rewritten.
  case unwritable(path: String, reason: String)
  /// The system's random source failed.
  case randomSourceFailed(String)
  /// The log names a key the store lacks, for a contact the log has not erased.
  case missingKey(path: String, key: String, contact: String)

  public var description: String {
    switch self {
    case .corrupt(let path, let line, let problem):
      "the key store '\(path)' is damaged at line \(line): \(problem); restore it from the backup "
        + "taken with the log (without it, the contacts' personal data cannot be read)"
    case .unreadable(let path, let reason):
      "cannot read the key store '\(path)': \(reason)"
    case .unwritable(let path, let reason):
      "cannot write the key store '\(path)': \(reason); nothing was appended"
    case .randomSourceFailed(let reason):
      "cannot make a key: the system's random source failed (\(reason))"
    case .missingKey(let path, let key, let contact):
      "the key store '\(path)' has no key \(key) for contact \(contact), and the log does not "
        + "erase that contact: the store belongs to another log or lost keys; restore the one "
        + "backed up with this log"
    }
  }
}
