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
  /// The keys of `replay_keys`, once read (for the domain events of sealed contacts).
  private var keys: [KeyStore.KeyID: KeyStore.Lookup]?

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

  /// Appends `writes` as one atomic write: one transaction.
  /// - Returns: What became of each event and the events appended.
  /// - Throws: `EngineError.versionConflict`, `.duplicateEventID`, `.invalidEvent`;
  ///   `PostgresError.replicaOfLog` for a database `replay ship` fills,
  ///   `.statementTimeout` when another writer held the store past the lock timeout, and the
  ///   connection's errors. Nothing is written when anything is thrown.
  @discardableResult
  package func append(_ writes: [EventLog.StreamWrite]) throws -> StoreWrite {
    try connection.execute("BEGIN")
    do {
      // Waits for the other writers (up to `lock_timeout`).
      try connection.execute(Self.lockKey)
      let write = try plan(writes)
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
      try connection.execute("COMMIT")
      return write
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// Reads what the write depends on, under the store's lock, and plans it.
  private func plan(_ writes: [EventLog.StreamWrite]) throws -> StoreWrite {
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
        """, [Self.jsonArray(streams)]
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
        """, [Self.jsonArray(ids)]
      ).rows
      for row in rows {
        guard var line = row[0] else { continue }
        let event = try line.withUTF8 { bytes in
          try StoreWrite.decodeLine(bytes, source: name) { $0.recordedEvent() }
        }
        stored[event.id] = event
      }
    }
    return try StoreWrite(
      writes, after: lastSequence, lastTimestamp: lastTimestamp, configuration: configuration,
      version: { versions[$0] ?? 0 }, stored: stored)
  }

  /// `values` as a JSON array of strings: a parameter `jsonb_array_elements_text` unpacks.
  static func jsonArray(_ values: [String]) -> String {
    var writer = JSONWriter(capacity: 64 * values.count)
    writer.beginArray()
    for value in values { writer.string(value) }
    writer.endArray()
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}

extension MessageStoreWriter: EventStorage {
  /// Every event of `stream` (its rows in `position` order, each line decoded) and its version.
  /// - Throws: `PostgresError`; `EngineError.corruptLine` for a row whose line does not check.
  package func events(inStream stream: String) throws -> (
    events: [RecordedEvent], version: Int64
  ) {
    let rows = try connection.query(
      """
      SELECT metadata->>'line' FROM message_store.messages
      WHERE stream_name = $1 ORDER BY position
      """, [stream]
    ).rows
    var events: [RecordedEvent] = []
    events.reserveCapacity(rows.count)
    for row in rows {
      guard var line = row[0] else {
        throw EngineError.invalidEvent(
          location: name,
          problem:
            "a row of stream '\(stream)' holds no line (metadata.line): it was not written by replay"
        )
      }
      events.append(
        try line.withUTF8 { bytes in
          try StoreWrite.decodeLine(bytes, source: name) { $0.recordedEvent() }
        })
    }
    return (events, events.last?.version ?? 0)
  }

  /// The typed event inside a recorded one, sealed personal data opened with the keys of
  /// `message_store.replay_keys`.
  package func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws
    -> D.Event?
  {
    let keys = try keyLookup()
    return try event.domainEvent(
      for: decider, logName: name, keyStoreName: name + " (message_store.replay_keys)",
      keys: { keys[$0] ?? .missing })
  }

  /// The keys of `replay_keys`, read once a writer.
  private func keyLookup() throws -> [KeyStore.KeyID: KeyStore.Lookup] {
    if let keys { return keys }
    let read = try MessageStoreLog.keys(on: connection)
    keys = read
    return read
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
