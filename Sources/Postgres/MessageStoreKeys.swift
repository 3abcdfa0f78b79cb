import Engine
import Events

/// The contacts' keys of a log kept in PostgreSQL, the table `message_store.replay_keys`, as
/// one write of `MessageStoreWriter` sees them under the store's lock: the key store a schema 1
/// `ContactAdded` or `ContactUpdated` is sealed with (`StoreWrite`, through
/// `PersonalData.seal`, as the file's `KeyStore` is), and the one a schema 2 record offered
/// as it is must open with.
///
/// A contact has at most one key that is not destroyed: one is made only when the contact has
/// none (never sealed, or erased: its key `NULL`), under the lock every writer takes, and the
/// writer inserts it in the transaction that inserts the rows sealed under it. So a write that
/// fails or is killed leaves neither, and two writers never make two keys for one contact.
struct MessageStoreKeys: StoreKeys {
  /// The database's name in errors.
  let logName: String
  private let connection: PostgresConnection
  /// The contacts whose rows were read, and the key each one seals under (nil: none yet).
  private var sealingKeys: [String: KeyStore.Entry?] = [:]
  /// The ids the table holds for the contacts read, and those of the keys made: a new key's
  /// id is drawn again when it is one of them.
  private var taken: Set<KeyStore.KeyID> = []
  /// The keys made by this write, for the writer to insert with its rows.
  private(set) var made: [KeyStore.Entry] = []

  /// The keys of `contacts`, read at once (a write's contacts: `StoreWrite.contactsToSeal`).
  /// - Throws: `PostgresError`; `EngineError.invalidEvent` for a row replay did not write.
  init(on connection: PostgresConnection, logName: String, contacts: Set<String>) throws {
    self.connection = connection
    self.logName = logName
    if !contacts.isEmpty { try read(contacts.sorted()) }
  }

  /// The key table's name in messages.
  var keyStoreName: String { logName + " (message_store.replay_keys)" }

  /// The contact's key, or a new one (held in `made`) when it has none that is not destroyed.
  mutating func sealingKey(
    forContact contact: String, seeded: inout GeneratorRandom?
  ) throws -> KeyStore.Entry {
    if sealingKeys[contact] == nil { try read([contact]) }
    if let entry = sealingKeys[contact] ?? nil { return entry }
    let entry: KeyStore.Entry
    do throws(KeyStoreError) {
      entry = try KeyStore.makeKey(for: contact, seeded: &seeded) { taken.contains($0) }
    } catch {
      throw EngineError.keyStore(error)
    }
    sealingKeys[contact] = entry
    taken.insert(entry.id)
    made.append(entry)
    return entry
  }

  /// What the table says of key `id`.
  func lookup(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup {
    try Self.lookups(
      on: connection,
      where: "key_id = $1", [id.description]
    )[id] ?? .missing
  }

  /// Whether a key made by this write has an id the table already holds (for another
  /// contact: each contact's own ids were avoided). Such ids are avoided from then on and the
  /// keys made are forgotten, for the writer to plan the write again.
  mutating func forgetMadeKeysIfTheirIDsClash() throws -> Bool {
    guard !made.isEmpty else { return false }
    let clashing = try connection.query(
      """
      SELECT key_id FROM message_store.replay_keys
      WHERE key_id IN (SELECT jsonb_array_elements_text($1::jsonb))
      """, [JSONArray.of(made.map(\.id.description))]
    ).rows.compactMap { $0[0].flatMap(KeyStore.KeyID.init) }
    guard !clashing.isEmpty else { return false }
    taken.formUnion(clashing)
    for entry in made { sealingKeys[entry.contact] = .some(nil) }
    made = []
    return true
  }

  /// Reads the rows of `contacts`.
  private mutating func read(_ contacts: [String]) throws {
    for contact in contacts { sealingKeys[contact] = .some(nil) }
    let found = try Self.lookups(
      on: connection,
      where: "contact IN (SELECT jsonb_array_elements_text($1::jsonb))", [JSONArray.of(contacts)])
    for (id, lookup) in found.sorted(by: { $0.key < $1.key }) {
      taken.insert(id)
      if case .present(let entry) = lookup { sealingKeys[entry.contact] = entry }
    }
  }

  // MARK: The table

  /// The rows of `replay_keys` that `condition` (with `parameters`) selects, all when nil:
  /// present, or erased when the key was destroyed.
  /// - Throws: `PostgresError`; `EngineError.invalidEvent` for a row replay did not write.
  static func lookups(
    on connection: PostgresConnection, where condition: String? = nil,
    _ parameters: [String?] = []
  ) throws -> [KeyStore.KeyID: KeyStore.Lookup] {
    let rows = try connection.query(
      "SELECT key_id, contact, encode(key, 'hex') FROM message_store.replay_keys"
        + (condition.map { " WHERE " + $0 } ?? ""), parameters
    ).rows
    var keys: [KeyStore.KeyID: KeyStore.Lookup] = [:]
    keys.reserveCapacity(rows.count)
    for row in rows {
      guard let text = row[0], let id = KeyStore.KeyID(text), let contact = row[1] else {
        throw EngineError.invalidEvent(
          location: "message_store.replay_keys",
          problem: "key_id '\(row[0] ?? "NULL")' is not 16 hex digits; it was not written by replay"
        )
      }
      guard let hex = row[2] else {
        keys[id] = .erased(contact: contact)
        continue
      }
      let bytes = SHA256.bytes(fromHex: hex) ?? []
      keys[id] = .present(
        KeyStore.Entry(id: id, contact: contact, key: try ChaCha20Poly1305.Key(bytes: bytes)))
    }
    return keys
  }

  /// Keys sent in one `INSERT` at most (three parameters each, well under the protocol's 65,535).
  private static let rowsAStatement = 2000

  /// Inserts `rows` (key id, contact, key in hex or nil for a destroyed key), a statement for
  /// up to `rowsAStatement` of them, `conflict` deciding what becomes of an id already there.
  static func insert(
    _ rows: [[String?]], onConflict conflict: String, on connection: PostgresConnection
  ) throws(PostgresError) {
    var first = 0
    while first < rows.count {
      let part = rows[first..<min(first + rowsAStatement, rows.count)]
      let values = (0..<part.count).map {
        "($\(3 * $0 + 1), $\(3 * $0 + 2), decode($\(3 * $0 + 3), 'hex'))"
      }
      try connection.query(
        "INSERT INTO message_store.replay_keys AS keys (key_id, contact, key) VALUES "
          + values.joined(separator: ", ") + " " + conflict,
        part.flatMap { $0 })
      first += part.count
    }
  }

  /// A key's row for `insert`: its id, its contact and the key in hex (nil when destroyed).
  static func row(
    id: KeyStore.KeyID, contact: String, key: ChaCha20Poly1305.Key?
  ) -> [String?] {
    [id.description, contact, key.map { $0.withUnsafeBytes(hex) }]
  }

  /// `bytes` in lowercase hexadecimal.
  private static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

/// JSON arrays of strings, as parameters `jsonb_array_elements_text` unpacks.
enum JSONArray {
  /// `values` as a JSON array of strings.
  static func of(_ values: [String]) -> String {
    var writer = JSONWriter(capacity: 64 * values.count)
    writer.beginArray()
    for value in values { writer.string(value) }
    writer.endArray()
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
