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
  /// - Parameters:
  ///   - usingCheckpoints: start from the newest checkpoint of `replay_checkpoints` that
  ///     still matches the table and lies before `point` (not for `.instant`), folding only
  ///     the rows after it; `explain` hears which one and why others are not used.
  /// - Throws: `PostgresError` (unreachable, refused, no schema), `EngineError` for a row that
  ///   holds no line (shipped by an older version), a damaged line, a seq out of order or past
  ///   the end, or a seq inside an atomic write.
  package func readModels(
    at point: ReplayPoint, refusingSeqsInsideWrites: Bool = true, usingCheckpoints: Bool = false,
    explain: (String) -> Void = { _ in }
  ) throws -> Replayer.Result {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    let keys = try Self.keys(on: connection)
    let instant: Timestamp? = if case .instant(let instant) = point { instant } else { nil }
    let target: Int64? = if case .sequence(let target) = point { target } else { nil }
    var checkpoint: MessageStoreCheckpoints.Loaded?
    if usingCheckpoints, instant == nil, target.map({ $0 > 0 }) ?? true {
      // A checkpoint is never inside an atomic write (`saveCheckpoint`), so one at the
      // target needs no line after it to tell.
      checkpoint = try newestCheckpoint(
        on: connection, atOrBefore: target, keys: keys, explain: explain)
    }
    var fold = LineFold(
      source: name, keyStoreName: keyStoreName, asOf: instant,
      from: checkpoint.map { ($0.models, $0.sequence) }, keys: Self.lookup(keys, on: connection))
    if target != 0 {
      try forEachLine(on: connection, after: checkpoint?.sequence ?? 0, through: target) {
        try fold.fold($0)
        return true
      }
    }
    if let target, fold.lastSequence < target {
      throw EngineError.invalidEvent(
        location: name,
        problem: "the log has \(fold.lastSequence) events; there is no seq \(target)")
    }
    if refusingSeqsInsideWrites, let target, target > 0, let batch = fold.lastBatch,
      batch.upperBound > target
    {
      throw EngineError.invalidEvent(
        location: name,
        problem:
          "seq \(target) is inside the atomic write of events \(batch.lowerBound)...\(batch.upperBound), a state no reader could see; use --at \(batch.lowerBound - 1) (before that write) or --at \(batch.upperBound) (after it)"
      )
    }
    return fold.result
  }

  /// Saves a checkpoint of the read models at `point` (`.end` or a seq, never inside an
  /// atomic write) in `replay_checkpoints`, starting from the newest one that still matches,
  /// and deletes those that no longer match.
  /// - Returns: the seq saved at (0: the log is empty, nothing saved).
  /// - Throws: as `readModels(at:)`; `PostgresError.schemaMissing` without the table.
  package func saveCheckpoint(at point: ReplayPoint) throws -> Int64 {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    var target: Int64 = 0
    if case .sequence(let sequence) = point {
      target = sequence
    } else if let last = try connection.query(
      "SELECT max(global_position) FROM message_store.messages", []
    ).rows.first?.first ?? nil {
      target = Int64(last) ?? 0
    }
    guard target > 0 else { return 0 }
    // At a seq, so that one inside an atomic write (a ship stopped inside it) is refused.
    let result = try readModels(at: .sequence(target), usingCheckpoints: true)
    let keys = try Self.keys(on: connection)
    try MessageStoreCheckpoints(log: self).save(
      result.models, at: result.lastSequence, on: connection, keys: checkpointKeys(keys))
    return result.lastSequence
  }

  /// The newest checkpoint of `replay_checkpoints` at or before seq `target` (the end when
  /// nil) that still matches the table, its contacts opened with `keys`; nil when none does.
  /// What a replay (`readModels(at:usingCheckpoints:)`) and a follow of the read models
  /// (`MessageStoreFollower.follow(foldingModels:)`) start from; `explain` hears which one
  /// and why others are not used.
  /// - Throws: `PostgresError`.
  func newestCheckpoint(
    on connection: PostgresConnection, atOrBefore target: Int64?,
    keys: [KeyStore.KeyID: KeyStore.Lookup], explain: (String) -> Void
  ) throws -> MessageStoreCheckpoints.Loaded? {
    try MessageStoreCheckpoints(log: self).newest(
      on: connection, atOrBefore: target, keys: checkpointKeys(keys), explain: explain)
  }

  /// The keys checkpoints seal contacts under, derived from `keys`.
  private func checkpointKeys(_ keys: [KeyStore.KeyID: KeyStore.Lookup]) -> LogCheckpointKeys {
    LogCheckpointKeys(logName: name, keyStoreName: keyStoreName) { @Sendable id in
      keys[id] ?? .missing
    }
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
    try forEachLine(on: connection, after: 0, through: last) { bytes in
      try lines.decode(bytes) { line in
        if line.sequence >= first, filter.matches(line) { going = try body(line) }
      }
      return going
    }
  }

  /// The history of one entity, as `LogReader.history(of:)` gives it for the file: the rows'
  /// lines go through the same scan and fold.
  /// - Throws: as `LogReader.history(of:)`, and as `readModels(at:)`.
  package func history(of nameOrID: String) throws -> EntityHistory {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    let keys = try Self.keys(on: connection)
    return try LogReader.history(
      of: nameOrID, logName: name, keyStoreName: keyStoreName, lines: lines(on: connection),
      keys: Self.lookup(keys, on: connection))
  }

  /// The imported animals' source records, as `LogReader.animalRecords(for:through:)` gives
  /// them for the file.
  /// - Throws: as `readModels(at:)`.
  package func animalRecords(
    for catalog: AnimalCatalog, through last: Int64
  ) throws -> [AnimalID: AnimalRecord] {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    return try LogReader.animalRecords(
      for: catalog, through: last, logName: name, lines: lines(on: connection))
  }

  /// Calls `body` with a connection to the database, closed after.
  /// - Throws: `PostgresError`, and what `body` throws.
  package func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws
    -> Result
  {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    return try body(connection)
  }

  /// Every key of `replay_keys`: present, or erased when its key was destroyed.
  /// - Throws: as `readModels(at:)`.
  package func keys() throws -> [KeyStore.KeyID: KeyStore.Lookup] {
    try withConnection { try Self.keys(on: $0) }
  }

  /// The rows' lines, checked and decoded, in seq order from seq 1, a connection each time
  /// it is called: the source Engine's readers and `replay report` take.
  package var lineSource: LineSource {
    { body in try forEachEvent(matching: EventFilter(), body) }
  }

  /// The key table's name in messages.
  package var keyStoreName: String { name + " (message_store.replay_keys)" }

  /// The rows' lines, checked and decoded, as a source the Engine's readers take.
  private func lines(on connection: PostgresConnection) -> LineSource {
    { body in
      var lines = LineDecoder(source: name)
      try forEachLine(on: connection, after: 0, through: nil) { bytes in
        try lines.decode(bytes) { try body($0) }
      }
    }
  }

  /// Calls `body` with each row's line, in `global_position` order, from the one after
  /// `first` through seq `last` (all when nil), a page of `pageSize` rows a query.
  private func forEachLine(
    on connection: PostgresConnection, after first: Int64, through last: Int64?,
    _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool
  ) throws {
    var after = first
    while true {
      // Positions run without a gap (the decoder checks each line's seq).
      let limit = last.map { min(Int64(pageSize), $0 - after) } ?? Int64(pageSize)
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
      }
      if rows.count < limit { return }
    }
  }

  /// `keys` as a lookup for the rows read on `connection`: a key not in them is read again
  /// from the table, once a key. `replay ship` commits a sealed contact's key with its row, so
  /// a row committed after `keys` were read (a shipper running meanwhile) has its key there.
  static func lookup(
    _ keys: [KeyStore.KeyID: KeyStore.Lookup], on connection: PostgresConnection
  ) -> (KeyStore.KeyID) throws -> KeyStore.Lookup {
    var keys = keys
    var lookedAgain: Set<KeyStore.KeyID> = []
    return { id in
      if let found = keys[id] { return found }
      guard lookedAgain.insert(id).inserted else { return .missing }
      keys = try Self.keys(on: connection)
      return keys[id] ?? .missing
    }
  }

  /// Every key of `replay_keys`: present, or erased when its key was destroyed.
  static func keys(
    on connection: PostgresConnection
  ) throws -> [KeyStore.KeyID: KeyStore.Lookup] {
    try MessageStoreKeys.lookups(on: connection)
  }
}
