import Events
import Foundation

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
/// - **A torn last append** (a crash while keys were added) was never acknowledged: it is
///   ignored when reading and cut by the next ``add(contact:)`` into the log's quarantine.
///   Every append of keys begins with a write mark (`{"write":"<12 digits>"}`, the number of
///   key lines after it), so a torn one is told from damage by its own lines, whatever a power
///   loss left of it (zeros inside and across lines, its first pages lost and later ones
///   landed); and a writer never cuts a key the log names. A damaged line anywhere else, or a
///   bad header, stops every reader and writer (`KeyStoreError.corrupt`).
///
/// Not thread-safe and not locked itself: writers call it while they hold the log's lock.
package struct KeyStore: Sendable {
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
  /// Whether the last whole line lacks its newline (an append writes one first).
  private var lacksFinalNewline = false
  /// The file's size when read (or last written here).
  private var fileSize: Int64 = 0
  /// Keys made by `addPending`, held in memory until `commitPending()` writes them.
  private var pending: [Entry] = []

  /// A key's id: 8 random bytes, written as 16 lowercase hex digits.
  public struct KeyID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
      self.rawValue = rawValue
    }

    /// The id written as 16 hex digits, or `nil` for anything else.
    public init?(_ text: String) {
      var text = text
      guard let value = text.withUTF8({ SealedPersonalData.keyValue($0) }) else { return nil }
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

    package init(id: KeyID, contact: String, key: ChaCha20Poly1305.Key) {
      self.id = id
      self.contact = contact
      self.key = key
    }
  }

  /// The store of the log at `logPath`.
  public static func path(forLog logPath: String) -> String {
    LogFiles(logPath: logPath).keyStorePath
  }

  /// Reads the store beside the log at `logPath`; an absent store is an empty one.
  /// - Throws: `KeyStoreError.corrupt` for a bad header or a damaged line before the last;
  ///   `.unreadable` when the file cannot be read.
  public init(logPath: String) throws(KeyStoreError) {
    path = Self.path(forLog: logPath)
    guard let bytes = try Self.contents(ofStoreAt: path) else { return }
    fileSize = Int64(bytes.count)
    try load(bytes)
    if tornTail { try checkCut(of: bytes, logPath: logPath) }
  }

  /// The bytes of the store at `path`; `nil` when there is none (an empty store).
  /// - Throws: `KeyStoreError.unreadable`, saying why.
  static func contents(ofStoreAt path: String) throws(KeyStoreError) -> [UInt8]? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do throws(EngineError) {
      return try FileDescriptor.contents(ofFileAt: path)
    } catch {
      let reason =
        switch error {
        case .notALog(_, let problem): problem
        case .fileNotFound: "it does not exist"
        case .io(_, let operation, let code):
          "\(operation) failed: \(String(cString: strerror(code)))"
        default: "\(error)"
        }
      throw .unreadable(path: path, reason: reason)
    }
  }

  private mutating func load(_ bytes: [UInt8]) throws(KeyStoreError) {
    // A key line is about 150 bytes: room for every key, so the tables never grow while read.
    keys.reserveCapacity(bytes.count / 128)
    keysByContact.reserveCapacity(bytes.count / 128)
    let end = try Self.forEachLine(of: bytes, path: path) {
      (lineNumber, range, line) throws(KeyStoreError) in
      let read: Line
      if lineNumber > 1, let entry = Self.quickKeyLine(line) {
        // The commonest line, as the store writes it: read without building JSON values.
        read = .key(entry)
      } else {
        read = try Self.line(Array(line), number: lineNumber, path: path)
      }
      switch read {
      case .header, .write:
        break
      case .erasing(let contact):
        if !pendingErasures.contains(contact) { pendingErasures.append(contact) }
      case .erased(let id, let contact):
        erasedKeys[id] = contact
      case .key(let entry):
        guard keys[entry.id] == nil else {
          throw .corrupt(path: path, line: lineNumber, problem: "key \(entry.id) appears twice")
        }
        remember(entry)
      }
    }
    if end.torn {
      // The whole key lines of a torn append were read before its damage was found: they are
      // not the store's (the next writer cuts them).
      for entry in Self.keyEntries(in: bytes[end.committed...], path: path)
      where keys[entry.id] == entry {
        forget(entry.id)
      }
    }
    committedEnd = Int64(end.committed)
    tornTail = end.torn
    lacksFinalNewline = end.lacksNewline
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
    let entry = try addPending(contact: contact, seeded: &seeded)
    try commitPending()
    return entry
  }

  /// Makes a key for `contact` (from `seeded` when given, else the secure random source) and
  /// holds it in memory, unwritten: ``commitPending()`` writes and syncs every key held so far
  /// with one write and one sync, and must return before any event sealed under one of them is
  /// written. A store dropped before that leaves the file as it was.
  mutating func addPending(
    contact: String, seeded: inout GeneratorRandom?
  ) throws(KeyStoreError) -> Entry {
    let entry = try Self.makeKey(for: contact, seeded: &seeded) { keys[$0] != nil }
    pending.append(entry)
    remember(entry)
    return entry
  }

  /// A new key for `contact`, from `seeded` when given (four draws for the key, then one for
  /// each id tried), else from the secure random source, under an id `isTaken` refuses: what
  /// every store of keys (this file, a database's key table) makes, so a seed gives the same
  /// keys in each.
  /// - Throws: `KeyStoreError.randomSourceFailed`.
  package static func makeKey(
    for contact: String, seeded: inout GeneratorRandom?, isTaken: (KeyID) -> Bool
  ) throws(KeyStoreError) -> Entry {
    let key: ChaCha20Poly1305.Key
    var id: KeyID
    do {
      if seeded != nil {
        var secret: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: seeded?.next() ?? 0) { secret += $0 } }
        key = try ChaCha20Poly1305.Key(bytes: secret)
        repeat { id = KeyID(rawValue: seeded?.next() ?? 0) } while isTaken(id)
      } else {
        key = try ChaCha20Poly1305.Key.random()
        repeat {
          id = KeyID(rawValue: try SecureRandom.bytes(count: 8).reduce(0) { $0 << 8 | UInt64($1) })
        } while isTaken(id)
      }
    } catch {
      throw .randomSourceFailed(String(describing: error))
    }
    return Entry(id: id, contact: contact, key: key)
  }

  /// Takes `entry` as one of the store's keys, the contact's newest.
  private mutating func remember(_ entry: Entry) {
    keys[entry.id] = entry
    keysByContact[entry.contact, default: []].append(entry.id)
  }

  /// Drops the key `id` from the tables (a key of a torn write, or one never written).
  private mutating func forget(_ id: KeyID) {
    guard let entry = keys.removeValue(forKey: id) else { return }
    keysByContact[entry.contact]?.removeAll { $0 == id }
    if keysByContact[entry.contact]?.isEmpty == true { keysByContact[entry.contact] = nil }
  }

  /// Refuses a store whose torn tail the next writer would cut while the log beside it names a
  /// key the store would then lack: keys are synced before the first line that uses them is
  /// written, so such a key was never part of a torn write, and the damage is to synced lines.
  /// - Throws: `KeyStoreError.corrupt` naming the first line the cut would take.
  private func checkCut(of bytes: [UInt8], logPath: String) throws(KeyStoreError) {
    let named = try Self.keysNamed(byLogAt: logPath)
    guard let lost = named.filter({ keys[$0] == nil && erasedKeys[$0] == nil }).min() else {
      return
    }
    let line = 1 + bytes[..<Int(committedEnd)].lazy.filter { $0 == 0x0A }.count
    throw .corrupt(
      path: path, line: line,
      problem:
        "the line is damaged and the lines from it to the end read as a torn write, but the log "
        + "'\(logPath)' uses key \(lost), which they would take with them")
  }

  /// Writes and syncs the keys `addPending` made, all at once; durable when it returns. On a
  /// failure they are forgotten (a line the failure left half-written is a torn tail, which
  /// readers ignore and the next writer of a fresh read cuts).
  mutating func commitPending() throws(KeyStoreError) {
    guard !pending.isEmpty else { return }
    var lines = Self.writeMark(keyCount: pending.count)
    for entry in pending { lines += Self.line(for: entry) }
    do throws(KeyStoreError) {
      try appendDurably(lines)
      pending = []
    } catch {
      for entry in pending { forget(entry.id) }
      pending = []
      throw error
    }
  }

  /// `commitPending()` for the engine's writers, whose errors are `EngineError`s.
  mutating func commitPendingKeys() throws(EngineError) {
    do throws(KeyStoreError) {
      try commitPending()
    } catch {
      throw .keyStore(error)
    }
  }

  /// Takes over `entry`, a key of another store (a migration copies a log's keys to its new
  /// log), under the same id; durable when it returns.
  mutating func adopt(_ entry: Entry) throws(KeyStoreError) {
    guard keys[entry.id] == nil else { return }
    try appendDurably(Self.writeMark(keyCount: 1) + Self.line(for: entry))
    remember(entry)
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
    try appendDurably(Self.erasingLine(contact))
    pendingErasures.append(contact)
  }

  /// Checks, before an erasure writes anything, that the store can be rewritten: its folder
  /// takes a new file and the store opens for writing.
  /// - Throws: `KeyStoreError.unwritable` saying which cannot.
  public func checkRewritable() throws(KeyStoreError) {
    do throws(EngineError) {
      try SidecarFile.checkRewritable(path)
    } catch {
      throw .unwritable(path: path, reason: error.description)
    }
  }

  /// Removes temporary copies of the store that killed processes left (each holds every key
  /// the store held then). Call under the log's lock, where no other process writes the store.
  /// - Returns: the copies that could not be removed.
  @discardableResult
  public func removeLeftoverCopies() -> [String] {
    SidecarFile.removeLeftovers(of: path, deadOnly: false)
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

  /// The contacts whose erasure began and did not finish, from the marks the store at
  /// `logPath` ends with (each checked against its crc): what a reader honours, whether or not
  /// the key is destroyed yet. An erasure holds the log's lock from its mark to the rewrite
  /// that drops it, so unfinished marks are always the last lines.
  static func pendingErasures(logPath: String) -> Set<String> {
    // Nearly always there is none: the last line alone says so, from one small read.
    guard endsWithPendingErasure(logPath: logPath) else { return [] }
    let path = Self.path(forLog: logPath)
    guard let file = try? FileDescriptor.open(path, .readOnly) else { return [] }
    defer { file.close() }
    guard let size = try? file.status().size, size > 0 else { return [] }
    let start = max(0, size - 65_536)
    guard let tail = try? file.readFully(count: Int(size - start), at: start) else { return [] }
    var contacts: Set<String> = []
    var end = tail.count
    // A torn last line (no newline) is not a mark anyone acknowledged.
    if tail.last != 0x0A, let lastNewline = tail.lastIndex(of: 0x0A) { end = lastNewline + 1 }
    let prefix = Array("{\"erasing\":".utf8)
    while end > 0 {
      let lineEnd = end - 1
      let lineStart = tail[..<lineEnd].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
      guard lineStart > 0 || start == 0 else { break }
      let line = Array(tail[lineStart..<lineEnd])
      guard line.starts(with: prefix),
        let fields = try? fields(of: line, lineNumber: 0, path: path),
        let contact = fields["erasing"]
      else { break }
      contacts.insert(contact)
      end = lineStart
    }
    return contacts
  }

  /// Appends whole lines (the header first when the store is new), syncs them, and only then
  /// takes them as written.
  private mutating func appendDurably(_ line: [UInt8]) throws(KeyStoreError) {
    var bytes: [UInt8] = committedEnd == 0 ? Self.headerLine : lacksFinalNewline ? [0x0A] : []
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
      if tornTail {
        // What is cut is kept: a torn tail was never acknowledged, but damage that reads as
        // one could be a key.
        let cut = try file.readFully(count: Int(size - committedEnd), at: committedEnd)
        if cut.contains(where: { $0 != 0 }) {
          try SidecarFile.quarantine(
            cut, forLog: String(path.dropLast(5)), name: "keys-byte\(committedEnd)")
        }
        try file.truncate(to: committedEnd)
      }
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
    lacksFinalNewline = false
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
    for other in pending { bytes += Self.erasingLine(other) }
    do throws(EngineError) {
      try SidecarFile.write(bytes, to: path)
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
    lacksFinalNewline = false
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
  /// The contact's `ContactErased` is in the log, but its key could not be destroyed yet.
  case erasureUnfinished(path: String, contact: String, sequence: Int64?, reason: String)

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
    case .erasureUnfinished(let path, let contact, let sequence, let reason):
      "contact \(contact)'s ContactErased is in the log"
        + (sequence.map { " (seq \($0))" } ?? "")
        + ", but its key could not be destroyed: cannot write the key store '\(path)': \(reason). "
        + "Every reader already shows the contact as erased (the store marks the erasure); "
        + "fix the cause, then run any write to this log (e.g. 'replay contacts erase \(contact)' "
        + "again) to destroy the key"
    case .missingKey(let path, let key, let contact):
      "the key store '\(path)' has no key \(key) for contact \(contact), and the log does not "
        + "erase that contact: the store belongs to another log or lost keys; restore the one "
        + "backed up with this log"
    }
  }
}
