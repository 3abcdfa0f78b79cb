import Engine
import Foundation

/// A log kept in PostgreSQL, in Message DB's `messages` table: read in `global_position`
/// order, each row's line as written (`metadata.line`, which `replay ship` stores) folded by
/// Engine's own fold (`LineFold`), with the contacts' keys from `replay_keys`. So the read
/// models equal those of the file at the same point.
///
/// ```swift
/// let log = MessageStoreLog(url: "postgresql://localhost/app")
/// let state = try log.readModels(at: .end)
/// ```
package struct MessageStoreLog {
  /// The database, as a libpq connection string.
  package let url: String
  /// Rows fetched a round trip.
  package var pageSize = 5000

  package init(url: String) {
    self.url = url
  }

  /// Whether `text` names a PostgreSQL database rather than a file
  /// (`postgresql://…` or `postgres://…`).
  package static func isDatabase(_ text: String) -> Bool {
    text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
  }

  /// The database's name in messages: the URL without its password.
  package var name: String { PostgresConnection.redacted(url) }

  /// The read models at `point`, as `Replayer.readModels(at:)` gives them for the file.
  /// - Throws: `PostgresError` (unreachable, refused, no schema), `EngineError` for a row that
  ///   holds no line (shipped by an older version), a damaged line, a seq out of order or past
  ///   the end, or a seq inside an atomic write.
  package func readModels(at point: ReplayPoint) throws -> Replayer.Result {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    let keys = try Self.keys(on: connection)
    let instant: Timestamp? = if case .instant(let instant) = point { instant } else { nil }
    var fold = LineFold(
      source: name, keyStoreName: name + " (message_store.replay_keys)", asOf: instant
    ) { id in keys[id] ?? .missing }
    let target: Int64? = if case .sequence(let target) = point { target } else { nil }
    if target != 0 {
      try forEachLine(on: connection, through: target) {
        try fold.fold($0)
        return true
      }
    }
    if let target, fold.lastSequence < target {
      throw EngineError.invalidEvent(
        location: name,
        problem: "the log has \(fold.lastSequence) events; there is no seq \(target)")
    }
    if let target, target > 0, let batch = fold.lastBatch, batch.upperBound > target {
      throw EngineError.invalidEvent(
        location: name,
        problem:
          "seq \(target) is inside the atomic write of events \(batch.lowerBound)...\(batch.upperBound), a state no reader could see; use --at \(batch.lowerBound - 1) (before that write) or --at \(batch.upperBound) (after it)"
      )
    }
    return fold.result
  }

  /// The differences in model `name` between the states at `from` and at `to`, as
  /// `Replayer.diff(model:from:to:)` gives them for the file.
  /// - Throws: as `readModels(at:)`.
  package func diff(model name: String, from: ReplayPoint, to: ReplayPoint) throws
    -> ReadModelDiff
  {
    ReadModelDiff(
      model: name, from: from, to: to, old: try readModels(at: from),
      new: try readModels(at: to))
  }

  /// Calls `body` with each event that passes `filter`, in seq order, from seq `first` through
  /// `last`, as `LogReader.forEachEvent(matching:from:through:)` does for the file; `body`
  /// returns false to stop.
  /// - Throws: as `readModels(at:)`, and what `body` throws.
  package func forEachEvent(
    matching filter: EventFilter, from first: Int64 = 1, through last: Int64? = nil,
    _ body: (EventLine) throws -> Bool
  ) throws {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    var lines = LineDecoder(source: name)
    var going = true
    try forEachLine(on: connection, through: last) { bytes in
      try lines.decode(bytes) { line in
        if line.sequence >= first, filter.matches(line) { going = try body(line) }
      }
      return going
    }
  }

  /// Calls `body` with each row's line, in `global_position` order, through seq `last` (all
  /// when nil), a page of `pageSize` rows a query.
  private func forEachLine(
    on connection: PostgresConnection, through last: Int64?,
    _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool
  ) throws {
    var after: Int64 = 0
    var read: Int64 = 0
    while true {
      let limit = last.map { min(Int64(pageSize), $0 - read) } ?? Int64(pageSize)
      guard limit > 0 else { return }
      let rows = try connection.query(
        """
        SELECT global_position, metadata->>'line' FROM message_store.messages
        WHERE global_position > $1::bigint ORDER BY global_position LIMIT $2::bigint
        """, [String(after), String(limit)]
      ).rows
      for row in rows {
        let position = row[0].flatMap { Int64($0) } ?? after
        guard var line = row[1] else {
          throw EngineError.invalidEvent(
            location: name,
            problem:
              "the row at global_position \(position) holds no line (metadata.line): it was shipped by a version of replay before 'state' could read PostgreSQL; ship the log again into an empty database"
          )
        }
        guard try line.withUTF8({ try body($0) }) else { return }
        after = position
        read += 1
      }
      if rows.count < limit { return }
    }
  }

  /// Every key of `replay_keys`: present, or erased when its key was destroyed.
  static func keys(
    on connection: PostgresConnection
  ) throws -> [KeyStore.KeyID: KeyStore.Lookup] {
    let rows = try connection.query(
      "SELECT key_id, contact, encode(key, 'hex') FROM message_store.replay_keys", []
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
      var bytes: [UInt8] = []
      var digits = hex.utf8.makeIterator()
      while let high = digits.next(), let low = digits.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
      }
      keys[id] = .present(
        KeyStore.Entry(id: id, contact: contact, key: try ChaCha20Poly1305.Key(bytes: bytes)))
    }
    return keys
  }
}
