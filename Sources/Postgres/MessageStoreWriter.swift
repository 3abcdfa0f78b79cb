import Engine
import Events
import Foundation

/// Appends to a log kept in PostgreSQL (Message DB's `messages` table) as `EventLog` appends to
/// a file: the same checks and the same lines (`StoreWrite`), each row's `global_position`
/// equal to its line's seq, its `position` its version − 1 and `metadata.line` the line as the
/// file writer would write it, so `MessageStoreLog` reads it through the one fold and other
/// tools read ordinary Message DB rows.
///
/// Writers on any number of machines serialize on one transaction-level advisory lock of the
/// store (`lockKey`), so two never give the same seq and none leaves a gap: under it, a write
/// reads the last seq, the versions of its streams (holding Message DB's category locks as
/// `write_message` does), checks the expected versions, copies its rows with their positions
/// and moves the column's sequence past them, then commits. A write that fails (a conflict, a
/// refused row, a lost connection) leaves nothing.
///
/// A database that `replay ship` fills (a row in `replay_shipped`) is a replica of a file and
/// is refused: appending to it would fork it from the file.
///
/// ```swift
/// let writer = try MessageStoreWriter(url: "postgresql://db.example/app")
/// let write = try writer.append([EventLog.StreamWrite(stream: "contact-13", events: [event])])
/// ```
package final class MessageStoreWriter {
  /// The lock every writer of a store takes (and `replay ship` before its first batch).
  static let lockKey = "SELECT pg_advisory_xact_lock(hashtext('replay store'))"

  /// The database, as a libpq connection string.
  package let url: String
  /// The clock, the id generator and the lock timeout, as for a file.
  package let configuration: EventLog.Configuration
  let connection: PostgresConnection
  /// The keys of `replay_keys` read so far (for the domain events of sealed contacts).
  private var keys: [KeyStore.KeyID: KeyStore.Lookup] = [:]

  /// Connects and checks the schema.
  /// - Parameters:
  ///   - url: A database `replay pg init` prepared.
  ///   - configuration: `lockTimeout` bounds the wait for another writer; `.never` syncing
  ///     commits with `synchronous_commit = off` (a crash of the server can lose the last
  ///     commits, never part of one).
  /// - Throws: `PostgresError`.
  package init(url: String, configuration: EventLog.Configuration = EventLog.Configuration())
    throws(PostgresError)
  {
    self.url = url
    self.configuration = configuration
    connection = try PostgresConnection(url: url)
    try MessageStoreSchema.requireTables(on: connection)
    let milliseconds = Int((configuration.lockTimeout * 1000).rounded(.up))
    try connection.execute(
      "SET lock_timeout = \(max(milliseconds, 1))"
        + (configuration.syncPolicy == .never ? "; SET synchronous_commit = off" : ""))
  }

  /// The database's name in messages: the URL without its password.
  package var name: String { PostgresConnection.redacted(url) }

  /// Closes the connection.
  package func close() { connection.close() }

  /// Appends `events` to `stream` atomically, if the stream is at `expectedVersion`.
  /// - Throws: as `append(_:)`.
  @discardableResult
  package func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion = .any
  ) throws -> [EventLog.Outcome] {
    let write = EventLog.StreamWrite(
      stream: stream, expectedVersion: expectedVersion, events: events)
    return try append([write]).outcomes
  }

  /// Appends `writes` as one atomic write: one transaction. The personal data of schema 1
  /// `ContactAdded` and `ContactUpdated` is sealed as the file writer seals it, under each
  /// contact's key in `replay_keys`; a contact without one gets a new key, inserted in the
  /// same transaction as the rows.
  /// - Returns: What became of each event and the events appended.
  /// - Throws: `EngineError.versionConflict`, `.duplicateEventID`, `.invalidEvent`;
  ///   `PostgresError.replicaOfLog` for a database `replay ship` fills,
  ///   `.statementTimeout` when another writer held the store past the lock timeout, and the
  ///   connection's errors. Nothing is written when anything is thrown.
  @discardableResult
  package func append(_ writes: [EventLog.StreamWrite]) throws -> StoreWrite {
    try transaction { try write(writes) }
  }

  /// Runs `body` in one transaction holding the store's lock (waiting for the other writers
  /// up to `lock_timeout`): committed when it returns, rolled back when it throws.
  private func transaction<Result>(_ body: () throws -> Result) throws -> Result {
    try connection.execute("BEGIN")
    do {
      try connection.execute(Self.lockKey)
      let result = try body()
      try connection.execute("COMMIT")
      return result
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// Plans `writes` and inserts their rows and the keys their sealing made, in the caller's
  /// transaction.
  private func write(_ writes: [EventLog.StreamWrite]) throws -> StoreWrite {
    let (write, madeKeys) = try plan(writes)
    if let last = write.appended.last {
      var batch = Batch()
      batch.positioned = true
      for event in write.appended {
        var line = event.logLine
        line.removeLast()
        try line.withUnsafeBufferPointer { bytes in
          try StoreWrite.decodeLine(bytes, source: name) { batch.append($0) }
        }
      }
      try connection.copy(Batch.positionedCopyStatement, data: batch.rows)
      // Other tools' `write_message` takes the next value of the column's sequence.
      try connection.query(
        """
        SELECT setval(pg_get_serial_sequence('message_store.messages', 'global_position'),
          $1::bigint)
        """, [String(last.sequence)])
    }
    if !madeKeys.isEmpty {
      // In the rows' transaction: a write that fails or is killed leaves neither.
      try MessageStoreKeys.insert(
        madeKeys.map { MessageStoreKeys.row(id: $0.id, contact: $0.contact, key: $0.key) },
        onConflict: "", on: connection)
      keys = [:]
    }
    return write
  }

  /// Reads what the write depends on, under the store's lock, and plans it.
  /// Returns the write and the keys its sealing made.
  private func plan(
    _ writes: [EventLog.StreamWrite]
  ) throws -> (StoreWrite, madeKeys: [KeyStore.Entry]) {
    let head = try connection.query(
      """
      SELECT (SELECT log_path FROM message_store.replay_shipped LIMIT 1),
        last.global_position, last.metadata->>'seq', last.metadata->>'at'
      FROM (SELECT 1) AS one LEFT JOIN LATERAL (
        SELECT global_position, metadata FROM message_store.messages
        ORDER BY global_position DESC LIMIT 1) AS last ON true
      """, []
    ).rows.first
    if let logPath = head?[0] { throw PostgresError.replicaOfLog(logPath: logPath) }
    let lastSequence = head?[1].flatMap { Int64($0) } ?? 0
    if lastSequence > 0, head?[2].flatMap({ Int64($0) }) != lastSequence {
      throw EngineError.invalidEvent(
        location: name,
        problem:
          "the row at global_position \(lastSequence) holds no line of seq \(lastSequence) (metadata.seq and metadata.line): it was not written by replay; append only through replay to a log kept in PostgreSQL"
      )
    }
    let lastTimestamp = head?[3].flatMap { Timestamp.parseISO8601($0) }
    let streams = Array(Set(writes.filter { !$0.events.isEmpty }.map(\.stream))).sorted()
    var versions: [String: Int64] = [:]
    if !streams.isEmpty {
      // Message DB's category locks too, so that its own `write_message` callers and this
      // write agree on versions.
      let rows = try connection.query(
        """
        SELECT s.name, message_store.acquire_lock(s.name::varchar),
          coalesce((SELECT max(m.position) FROM message_store.messages m
            WHERE m.stream_name = s.name), -1)
        FROM jsonb_array_elements_text($1::jsonb) AS s(name)
        """, [JSONArray.of(streams)]
      ).rows
      for row in rows {
        if let stream = row[0], let position = row[2].flatMap({ Int64($0) }) {
          versions[stream] = position + 1
        }
      }
    }
    let ids = writes.flatMap { $0.events.compactMap { $0.id?.description } }
    var stored: [EventID: RecordedEvent] = [:]
    if !ids.isEmpty {
      let rows = try connection.query(
        """
        SELECT metadata->>'line' FROM message_store.messages
        WHERE id IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))
        """, [JSONArray.of(ids)]
      ).rows
      for row in rows {
        guard var line = row[0] else { continue }
        let event = try line.withUTF8 { bytes in
          try StoreWrite.decodeLine(bytes, source: name) { $0.recordedEvent() }
        }
        stored[event.id] = event
      }
    }
    var sealing = try MessageStoreKeys(
      on: connection, logName: name, contacts: StoreWrite.contactsToSeal(in: writes))
    while true {
      let write = try StoreWrite(
        writes, after: lastSequence, lastTimestamp: lastTimestamp, configuration: configuration,
        version: { versions[$0] ?? 0 }, stored: stored, keys: &sealing)
      // A new key's id another contact's key has (1 in 2⁶⁴ a pair): planned again without it.
      if try !sealing.forgetMadeKeysIfTheirIDsClash() { return (write, sealing.made) }
    }
  }
}

extension MessageStoreWriter: EventStorage {
  /// Every event of `stream` (its rows in `position` order, each line decoded) and its version.
  /// - Throws: `PostgresError`; `EngineError.corruptLine` for a row whose line does not check.
  package func events(inStream stream: String) throws -> (
    events: [RecordedEvent], version: Int64
  ) {
    // The keys are read again for each read of a stream: a writer can live as long as an
    // `EventStore`, and a contact another process erased since must read as erased.
    keys = [:]
    let rows = try connection.query(
      """
      SELECT metadata->>'line' FROM message_store.messages
      WHERE stream_name = $1 ORDER BY position
      """, [stream]
    ).rows
    let events = try rows.map { try recordedEvent(line: $0[0], stream: stream) }
    return (events, events.last?.version ?? 0)
  }

  /// The event a row of `stream` holds in `metadata.line` (`line`, nil when it has none).
  /// - Throws: `EngineError.invalidEvent` for a row holding no line; `.corruptLine` for a line
  ///   that does not check.
  func recordedEvent(line: String?, stream: String) throws -> RecordedEvent {
    guard var line else {
      throw EngineError.invalidEvent(
        location: name,
        problem:
          "a row of stream '\(stream)' holds no line (metadata.line): it was not written by replay"
      )
    }
    return try line.withUTF8 { bytes in
      try StoreWrite.decodeLine(bytes, source: name) { $0.recordedEvent() }
    }
  }

  /// The typed event inside a recorded one, sealed personal data opened with the keys of
  /// `message_store.replay_keys`.
  package func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws
    -> D.Event?
  {
    try event.domainEvent(
      for: decider, logName: name, keyStoreName: name + " (message_store.replay_keys)",
      keys: { try self.key($0) })
  }

  /// What `replay_keys` says of key `id`, read once a read of a stream (and again after a
  /// write of this writer changed the table).
  private func key(_ id: KeyStore.KeyID) throws -> KeyStore.Lookup {
    if let known = keys[id] { return known }
    let lookup =
      try MessageStoreKeys.lookups(on: connection, where: "key_id = $1", [id.description])[id]
      ?? .missing
    keys[id] = lookup
    return lookup
  }
}

extension MessageStoreWriter {
  /// The names of the streams whose names start with `prefix`, in no particular order.
  /// - Throws: `PostgresError`.
  package func streamNames(withPrefix prefix: String) throws(PostgresError) -> [String] {
    try connection.query(
      """
      SELECT DISTINCT stream_name FROM message_store.messages
      WHERE left(stream_name, length($1)) = $1
      """, [prefix]
    ).rows.compactMap { $0[0] }
  }
}

extension MessageStoreWriter {
  /// Erases contact `id`'s personal data, as `EventLog.eraseContact` does in a file. In one
  /// transaction under the store's lock: appends `ContactErased` (decided by `ContactDecider`
  /// on the stream read; who, when and why in `metadata`, no personal data), sets the
  /// contact's keys in `replay_keys` to NULL (its sealed rows then read as erased, at every
  /// seq) and deletes the rows of `replay_checkpoints` (caches that hold the contact sealed
  /// under keys derived from those). Then `VACUUM FULL` rewrites both tables without their old
  /// row versions, which hold the key and the checkpoints until a vacuum.
  ///
  /// Run again for an erased contact, it appends nothing and vacuums again: an erasure whose
  /// vacuum a crash stopped is finished so.
  /// - Throws: `EventsError.unknownEntity` for a contact never added, and as `append(_:)`;
  ///   nothing is written when anything is thrown before the commit. `UnfinishedErasure`
  ///   when the erasure committed but a vacuum did not run.
  package func eraseContact(
    _ id: ContactID, metadata: EventMetadata = EventMetadata()
  ) throws -> ContactErasure {
    let erasure = try transaction {
      let (recorded, version) = try events(inStream: id.streamName)
      let state = ContactDecider.fold(
        try recorded.compactMap { try domainEvent(of: $0, for: ContactDecider.self) })
      let decision = try ContactDecider.decision(.eraseContact(id: id), state)
      var appended: RecordedEvent?
      if !decision.events.isEmpty {
        let proposed = decision.events.map {
          EventVocabulary.proposedEvent(.contact($0), metadata: metadata).event
        }
        appended = try write([
          EventLog.StreamWrite(
            stream: id.streamName, expectedVersion: .exactly(version), events: proposed)
        ]).appended.first
      }
      let destroyed = try connection.query(
        "UPDATE message_store.replay_keys SET key = NULL WHERE contact = $1 AND key IS NOT NULL",
        [id.rawValue]
      ).affectedRows
      var removed = 0
      if appended != nil || destroyed > 0, try MessageStoreCheckpoints.tableExists(on: connection) {
        removed = try connection.execute("DELETE FROM message_store.replay_checkpoints")
          .affectedRows
      }
      return ContactErasure(
        event: appended, destroyedKeyCount: destroyed, removedCheckpointCount: removed,
        noChangeReason: appended == nil ? decision.noChangeReason : nil)
    }
    keys = [:]
    // Outside the transaction (VACUUM cannot run in one): the destroyed keys' old row
    // versions are dead tuples until then (docs/SCALING.md says what WAL and backups hold).
    var table = "message_store.replay_keys"
    do {
      try connection.execute("VACUUM FULL " + table)
      if try MessageStoreCheckpoints.tableExists(on: connection) {
        table = "message_store.replay_checkpoints"
        try connection.execute("VACUUM FULL " + table)
      }
    } catch let error as PostgresError {
      throw UnfinishedErasure(contact: id, erasure: erasure, table: table, cause: error)
    }
    return erasure
  }
}

/// An erasure committed whose `VACUUM FULL` did not run (the server went away, a reader held
/// the table past the lock timeout): the contact reads as erased everywhere, but the old row
/// versions that held its key stay in the table's file until a vacuum. Running the erasure
/// again appends nothing and vacuums.
package struct UnfinishedErasure: Error {
  /// The contact erased.
  package var contact: ContactID
  /// What was committed.
  package var erasure: ContactErasure
  /// The table the vacuum did not rewrite (`message_store.replay_keys` or
  /// `message_store.replay_checkpoints`).
  package var table: String
  /// Why the vacuum did not run.
  package var cause: PostgresError
}
