import Engine

/// The read models' checkpoints of a log kept in PostgreSQL, in the table
/// `message_store.replay_checkpoints` of the same database: each row holds the five models
/// after the event at `seq` (`ReadModelCheckpoint`'s bytes, the file checkpoints' format), and
/// `line_sha256`, the SHA-256 of that event's line as the row of `messages` holds it.
///
/// A checkpoint is used only while the line at its seq is the one it was made after (the row's
/// hash and the one inside the checkpoint's bytes both equal the hash of the line now at that
/// `global_position`): a table emptied and filled from another log, or a row rewritten, makes
/// it stale, and it is ignored (`replay checkpoint` deletes it). A sealed contact is written
/// sealed under a key derived from its key in `replay_keys`, as the file's checkpoints are
/// (`LogCheckpointKeys`): once an erasure sets that key to NULL, no checkpoint's copy of the
/// contact can be opened, and it reads as erased.
package struct MessageStoreCheckpoints {
  /// The log whose models the checkpoints hold.
  package let log: MessageStoreLog

  package init(log: MessageStoreLog) {
    self.log = log
  }

  /// A checkpoint's binding to the line at its seq, as stored inside its bytes.
  static func anchor(lineSHA256 hex: String) -> String { "message_store line " + hex }

  /// One row of the table, without its models.
  package struct Entry: Sendable, Equatable {
    /// The event the models are after.
    package var sequence: Int64
    /// The models' bytes.
    package var byteCount: Int
    /// Why it cannot be used (stale or damaged), nil when it can.
    package var problem: String?
  }

  /// Whether the database has the table (`replay pg init` of this version creates it).
  static func tableExists(on connection: PostgresConnection) throws -> Bool {
    try connection.query(
      "SELECT to_regclass('message_store.replay_checkpoints') IS NOT NULL", []
    ).rows.first?.first == "t"
  }

  /// The columns `replay pg init` gives the table, with their types.
  private static let columns = ["seq": "bigint", "line_sha256": "text", "models": "bytea"]

  /// Whether the table exists with the columns `replay pg init` gives it (an erasure deletes
  /// the rows of any table of that name: `tableExists(on:)`).
  /// - Throws: `PostgresError.schemaMismatch` naming each column missing or of another type.
  static func requireTable(on connection: PostgresConnection) throws(PostgresError) -> Bool {
    let found = try MessageStoreSchema.columnTypes(of: ["replay_checkpoints"], on: connection)
    guard !found.isEmpty else { return false }
    let differences = columns.sorted { $0.key < $1.key }.compactMap { column, type in
      let key = "replay_checkpoints." + column
      guard let other = found[key] else {
        return "table message_store.replay_checkpoints has no column \(column)"
      }
      return MessageStoreSchema.typeDifference(key, expected: type, found: other)
    }
    guard differences.isEmpty else { throw .schemaMismatch(differences: differences) }
    return true
  }

  /// The rows at or before seq `limit` (all when nil), newest first, each checked against the
  /// line now at its seq (the models are not read).
  /// - Throws: `PostgresError`; `.schemaMismatch` for a table that is not the one
  ///   `replay pg init` writes.
  package func entries(
    on connection: PostgresConnection, atOrBefore limit: Int64? = nil
  ) throws -> [Entry] {
    guard try Self.requireTable(on: connection) else { return [] }
    let rows = try connection.query(
      """
      SELECT c.seq, octet_length(c.models), c.line_sha256,
        encode(sha256(convert_to(m.metadata->>'line', 'UTF8')), 'hex')
      FROM message_store.replay_checkpoints c
      LEFT JOIN message_store.messages m ON m.global_position = c.seq
      WHERE c.seq <= $1::bigint ORDER BY c.seq DESC
      """, [String(limit ?? .max)]
    ).rows
    return rows.compactMap { row in
      guard let sequence = row[0].flatMap({ Int64($0) }) else { return nil }
      let problem: String? =
        if row[3] == nil {
          "the table has no row at global_position \(sequence): the log is shorter than it was"
        } else if row[2] != row[3] {
          "the line at global_position \(sequence) is not the one it was made after (another log, or a changed row)"
        } else { nil }
      return Entry(
        sequence: sequence, byteCount: row[1].flatMap { Int($0) } ?? 0, problem: problem)
    }
  }

  /// A checkpoint loaded to start a fold from.
  struct Loaded {
    /// The models after the event at `sequence`.
    var models: ReadModels
    /// The event the models are after (its `global_position` too).
    var sequence: Int64
    /// The SHA-256 (lowercase hex) of the line at `sequence` the models were made after: a
    /// follower checks that the row still holds it when it reads on from there.
    var lineSHA256: String
  }

  /// The newest checkpoint at or before seq `limit` that still matches the table, with its
  /// models; nil when none does. Each one passed over is explained.
  /// - Throws: `PostgresError`.
  func newest(
    on connection: PostgresConnection, atOrBefore limit: Int64?, keys: LogCheckpointKeys,
    explain: (String) -> Void
  ) throws -> Loaded? {
    let found: [Entry]
    do {
      found = try entries(on: connection, atOrBefore: limit)
    } catch PostgresError.schemaMismatch(let differences) {
      // A cache: a table that cannot hold checkpoints is passed over, every row read.
      explain("message_store.replay_checkpoints ignored: " + differences.joined(separator: "; "))
      return nil
    }
    for entry in found {
      let name = "checkpoint at seq \(entry.sequence) in message_store.replay_checkpoints"
      if let problem = entry.problem {
        explain("\(name) ignored: \(problem)")
        continue
      }
      let rows = try connection.query(
        """
        SELECT c.models, c.line_sha256 FROM message_store.replay_checkpoints c
        WHERE c.seq = $1::bigint
        """, [String(entry.sequence)]
      ).rows
      guard let row = rows.first, let text = row[0], let hash = row[1],
        let bytes = SHA256.bytes(fromHex: text.dropFirst(2))
      else { continue }
      do {
        let checkpoint = try ReadModelCheckpoint(decoding: bytes, keys: keys)
        guard checkpoint.sequence == entry.sequence,
          checkpoint.anchor == Self.anchor(lineSHA256: hash)
        else {
          explain("\(name) ignored: it holds seq \(checkpoint.sequence), bound to another line")
          continue
        }
        explain("starting from the \(name)")
        return Loaded(
          models: checkpoint.models, sequence: checkpoint.sequence, lineSHA256: hash)
      } catch {
        explain("\(name) ignored: \(error)")
      }
    }
    return nil
  }

  /// Saves `models`, the state after seq `sequence`, replacing a checkpoint at that seq and
  /// deleting those that no longer match the table, in one transaction.
  /// - Throws: `PostgresError`; `.schemaMissing` when the table does not exist.
  func save(
    _ models: ReadModels, at sequence: Int64, on connection: PostgresConnection,
    keys: LogCheckpointKeys
  ) throws {
    guard try Self.requireTable(on: connection) else {
      throw PostgresError.schemaMissing(missing: ["message_store.replay_checkpoints"])
    }
    let rows = try connection.query(
      """
      SELECT encode(sha256(convert_to(metadata->>'line', 'UTF8')), 'hex')
      FROM message_store.messages WHERE global_position = $1::bigint
      """, [String(sequence)]
    ).rows
    guard let hash = rows.first?.first ?? nil else {
      throw EngineError.invalidEvent(
        location: log.name, problem: "there is no row at global_position \(sequence)")
    }
    let bytes = ReadModelCheckpoint(
      models: models, sequence: sequence, anchor: Self.anchor(lineSHA256: hash)
    ).encoded(keys: keys)
    var text: [UInt8] = Array("\\x".utf8)
    text.reserveCapacity(2 + 2 * bytes.count)
    SHA256.appendHex(bytes, to: &text)
    try connection.execute("BEGIN")
    do {
      try connection.query(
        """
        INSERT INTO message_store.replay_checkpoints (seq, line_sha256, models)
        VALUES ($1::bigint, $2, $3::bytea)
        ON CONFLICT (seq) DO UPDATE SET line_sha256 = EXCLUDED.line_sha256, models = EXCLUDED.models
        """, [String(sequence), hash, String(decoding: text, as: UTF8.self)])
      // Stale ones are rebuilt by saving anew: the ones that no longer match go.
      try connection.execute(
        """
        DELETE FROM message_store.replay_checkpoints c WHERE NOT EXISTS (
          SELECT 1 FROM message_store.messages m WHERE m.global_position = c.seq
          AND encode(sha256(convert_to(m.metadata->>'line', 'UTF8')), 'hex') = c.line_sha256)
        """)
      try connection.execute("COMMIT")
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// Deletes every checkpoint.
  /// - Returns: how many there were.
  package func removeAll(on connection: PostgresConnection) throws -> Int {
    guard try Self.tableExists(on: connection) else { return 0 }
    return try connection.execute("DELETE FROM message_store.replay_checkpoints").affectedRows
  }
}
