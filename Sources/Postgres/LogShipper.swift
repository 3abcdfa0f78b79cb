import Engine
import Events
import Foundation

/// Ships a log's committed events into Message DB's `messages` table, exactly once each, in seq
/// order: each batch's rows and the last seq shipped (`replay_shipped`) are written in one
/// transaction, so a shipper killed at any instant leaves the database at the end of a batch,
/// and the next one resumes after it.
///
/// The mapping: `id` is the event's id, `stream_name` its stream, `type` its type, `data` its
/// payload as stored (a sealed contact stays sealed: the key store is never shipped, so
/// destroying a key still erases), `position` its version − 1, `time` its `at` (UTC), and
/// `metadata` holds `seq`, `at`, `schema` and the audit fields (`actor`, `reason`,
/// `correlation`, `causation`).
///
/// ```swift
/// let shipper = try LogShipper(logPath: "app.jsonl", connection: connection)
/// let done = try shipper.ship(following: false) { print($0.lastShippedSequence) }
/// ```
package final class LogShipper {
  /// Where shipping stands after a batch was committed.
  public struct Progress: Sendable, Equatable {
    /// Events this shipper committed.
    public var shippedEvents: Int64
    /// The seq of the last event in the database (0 when none).
    public var lastShippedSequence: Int64
    /// The last committed seq the shipper knows of in the log.
    public var logLastSequence: Int64
    /// When the last shipped event was appended to the log, if any was shipped.
    public var lastShippedAt: Timestamp?
    /// When the batch was committed.
    public var committedAt: Timestamp

    /// Events committed in the log and not yet in the database.
    public var lag: Int64 { max(0, logLastSequence - lastShippedSequence) }
  }

  /// The log shipped.
  public let logPath: String
  /// The follower that reads the log; `stop()` it (from any thread) to end `ship` after the
  /// batch being written.
  public let follower: LogFollower
  private var connection: PostgresConnection
  private let reconnection: Reconnection?
  private let batchSize: Int
  private let lockWait: Duration
  private let clock: @Sendable () -> Timestamp
  /// The id of the log's first event, which names the log in `replay_shipped`; nil while the
  /// log is empty.
  private var logID: String?
  private var progress: Progress
  /// The shipped event's id the log must hold at `progress.lastShippedSequence`, until checked.
  private var unverifiedID: String?
  /// The events read and not yet committed.
  private var batch = Batch()
  /// The keys of the key store beside the log, by contact: read when a batch first holds a
  /// sealed line, and again when a contact's key is not in it yet (made since).
  private var keys: [String: [(id: KeyStore.KeyID, key: ChaCha20Poly1305.Key?)]]?

  /// Reads where the database stands for this log and prepares to ship from there.
  /// - Parameters:
  ///   - logPath: The log.
  ///   - connection: A connection to a database `replay pg init` prepared.
  ///   - batchSize: Events a transaction at most.
  ///   - lockWait: How long to wait for another shipper of the same log to let go (a killed
  ///     one's session ends when the server sees its socket closed).
  ///   - reconnection: How to reconnect when the server goes away; nil to fail at once with
  ///     `PostgresError.connectionLost`.
  ///   - clock: The time a batch is committed, for `Progress`.
  /// - Throws: `PostgresError` (`.schemaMissing`, `.shipperBusy`, `.anotherLog`, ...),
  ///   `EngineError` for a missing or damaged log.
  public init(
    logPath: String, connection: PostgresConnection, batchSize: Int = 1000,
    lockWait: Duration = .seconds(5), reconnection: Reconnection? = nil,
    clock: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) }
  ) throws {
    precondition(batchSize >= 1, "a batch holds at least one event")
    self.logPath = logPath
    self.connection = connection
    self.batchSize = batchSize
    self.lockWait = lockWait
    self.reconnection = reconnection
    self.clock = clock
    try MessageStoreSchema.requireTables(on: connection)
    var firstID: String?
    let summary = try LogReader(path: logPath).forEachEvent(through: 1) { line in
      firstID = line.id.description
      return false
    }
    let logEnd = try LogReader.lastCommittedSequence(ofLogAt: logPath)
    progress = Progress(
      shippedEvents: 0, lastShippedSequence: 0, logLastSequence: max(logEnd, summary.lastSequence),
      lastShippedAt: nil, committedAt: clock())
    var start = FollowStart.beginning
    if let firstID {
      try Self.lock(logID: firstID, logPath: logPath, connection: connection, waiting: lockWait)
      logID = firstID
      let row = try connection.query(
        "SELECT seq, event_id FROM message_store.replay_shipped WHERE log_id = $1::uuid",
        [firstID]
      ).rows.first
      if let row, let seq = row[0].flatMap({ Int64($0) }), seq > 0 {
        progress.lastShippedSequence = seq
        unverifiedID = row[1]
        start = .afterSequence(seq - 1)
      }
    }
    // Each row's global_position is its seq, as a direct write makes it: a batch rolled back
    // burns none, so readers find seq N at global_position N. A table shipped before this,
    // whose sequence skipped, goes on from the sequence as it was written.
    let lastRow = try connection.query(
      """
      SELECT global_position, metadata->>'seq' FROM message_store.messages
      ORDER BY global_position DESC LIMIT 1
      """, []
    ).rows.first
    follower = LogFollower(path: logPath, from: start)
    batch.positioned = lastRow.map { $0[0] != nil && $0[0] == $0[1] } ?? true
  }

  /// Ships every committed event not yet in the database, then (when `following`) each new one
  /// as it is committed, until `follower.stop()`.
  /// - Parameter report: Called after each committed batch (and once when caught up).
  /// - Returns: Where shipping stands at the end.
  /// - Throws: `PostgresError` (the server gone, a timeout, a refused row), `EngineError`,
  ///   `FollowError`; every batch committed before the error stays shipped.
  public func ship(following: Bool, report: (Progress) -> Void = { _ in }) throws -> Progress {
    try follower.follow(
      caughtUp: {
        try requireVerified()
        if batch.count == 0 { report(progress) }
        try commit(report)
        return following
      },
      { line in
        progress.logLastSequence = max(progress.logLastSequence, line.sequence)
        if let expected = unverifiedID {
          // The first line read is the last one shipped: it must be the same event.
          let found = line.id.description
          guard line.sequence == progress.lastShippedSequence, found == expected else {
            throw PostgresError.anotherLog(
              logPath: logPath,
              detail:
                "its last shipped event, seq \(progress.lastShippedSequence), is \(expected), "
                + "but the log has \(found) at seq \(line.sequence)")
          }
          unverifiedID = nil
          return true
        }
        if logID == nil {
          // The log was empty when shipping started: its first event names it now.
          let id = line.id.description
          try Self.lock(
            logID: id, logPath: logPath, connection: connection, waiting: .seconds(5))
          logID = id
        }
        batch.append(line)
        if batch.count >= batchSize { try commit(report) }
        return true
      })
    try commit(report)
    return progress
  }

  private func requireVerified() throws(PostgresError) {
    if let expected = unverifiedID {
      throw .anotherLog(
        logPath: logPath,
        detail:
          "its last shipped event is seq \(progress.lastShippedSequence) (\(expected)), but "
          + "the log ends at seq \(progress.logLastSequence)")
    }
  }

  /// Writes the batch's rows and the new position in one transaction, then reports. When the
  /// connection breaks and `reconnection` allows, connects again and asks the database whether
  /// the batch's transaction committed before the break: if it did, the batch is done; if not,
  /// it is written again. So a server that goes away neither loses nor repeats an event.
  private func commit(_ report: (Progress) -> Void) throws {
    guard batch.count > 0, let logID, let last = batch.last else { return }
    let erasing = !batch.erasedContacts.isEmpty
    let keyRows = try keyRows(
      for: batch.sealedContacts, erased: batch.erasedContacts, reread: erasing)
    var reconnected = false
    while true {
      do throws(PostgresError) {
        if reconnected {
          // Whether the last attempt's COMMIT reached the database before the break.
          let stored = try shippedSequence(logID: logID)
          if stored == last.sequence { break }
          guard stored == progress.lastShippedSequence else {
            throw PostgresError.shipperBusy(logPath: logPath)
          }
        }
        try write(logID: logID, last: last, keyRows: keyRows)
        break
      } catch .connectionLost(let message) {
        guard let reconnection else { throw PostgresError.connectionLost(message: message) }
        try reconnect(reconnection, logID: logID, lost: message)
        reconnected = true
      }
    }
    if erasing {
      // The destroyed keys' old row versions are dead tuples until a vacuum: the table is
      // rewritten without them (docs/SCALING.md says what WAL and backups still hold).
      try connection.execute("VACUUM FULL message_store.replay_keys")
    }
    progress.shippedEvents += Int64(batch.count)
    progress.lastShippedSequence = last.sequence
    progress.lastShippedAt = last.timestamp
    progress.committedAt = clock()
    batch.removeAll()
    report(progress)
  }

  /// The batch's rows and the new position, in one transaction.
  private func write(
    logID: String, last: (sequence: Int64, id: String, timestamp: Timestamp),
    keyRows: [[String?]]
  ) throws(PostgresError) {
    try connection.execute("BEGIN")
    do throws(PostgresError) {
      if progress.lastShippedSequence == 0 {
        // The first batch: under the lock of the store's writers, a database they wrote to
        // is refused (and once this commits, they refuse it: a replica never forks).
        try connection.execute(MessageStoreWriter.lockKey)
        let direct = try connection.query(
          """
          SELECT EXISTS (SELECT 1 FROM message_store.messages)
            AND NOT EXISTS (SELECT 1 FROM message_store.replay_shipped)
          """, []
        ).rows.first?.first
        if direct == "t" { throw PostgresError.writtenDirectly(logPath: logPath) }
      }
      if batch.positioned {
        try connection.copy(Batch.positionedCopyStatement, data: batch.rows)
        // Other tools' `write_message` takes the next value of the column's sequence.
        try connection.query(
          """
          SELECT setval(pg_get_serial_sequence('message_store.messages', 'global_position'),
            $1::bigint)
          """, [String(last.sequence)])
      } else {
        try connection.copy(Batch.copyStatement, data: batch.rows)
      }
      // A key already there stays; one the log's store destroyed since is destroyed here.
      try MessageStoreKeys.insert(
        keyRows,
        onConflict: "ON CONFLICT (key_id) DO UPDATE SET key = NULL WHERE excluded.key IS NULL",
        on: connection)
      let moved = try connection.query(
        """
        INSERT INTO message_store.replay_shipped AS shipped (log_id, seq, event_id, log_path)
        VALUES ($1::uuid, $2::bigint, $3::uuid, $4)
        ON CONFLICT (log_id) DO UPDATE SET seq = excluded.seq, event_id = excluded.event_id,
          log_path = excluded.log_path, shipped_at = now()
        WHERE shipped.seq = $5::bigint
        """,
        [
          logID, String(last.sequence), last.id, logPath,
          String(progress.lastShippedSequence),
        ])
      guard moved.affectedRows == 1 else {
        throw PostgresError.shipperBusy(logPath: logPath)
      }
      try connection.execute("COMMIT")
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// The rows of `replay_keys` the lines of `contacts` need: each of their keys in the store
  /// beside the log (key id, contact, key in hex; no key for one destroyed or being erased).
  /// The store is read again when `reread` (an erasure) or when it lacks a contact.
  /// - Throws: `KeyStoreError` when the store cannot be read, `EngineError.keyStore` when it
  ///   has no key for a contact whose sealed line is shipped.
  private func keyRows(
    for sealed: Set<String>, erased: Set<String>, reread: Bool
  ) throws -> [[String?]] {
    let contacts = sealed.union(erased)
    guard !contacts.isEmpty else { return [] }
    if reread || keys == nil || sealed.contains(where: { keys?[$0] == nil }) {
      keys = try Self.keysByContact(KeyStore(logPath: logPath))
    }
    var rows: [[String?]] = []
    for contact in contacts.sorted() {
      guard let entries = keys?[contact] else {
        // A contact erased before it had a key has none to destroy.
        if !sealed.contains(contact) { continue }
        throw EngineError.keyStore(
          .missingKey(
            path: KeyStore.path(forLog: logPath), key: "needed by its shipped lines",
            contact: contact))
      }
      for entry in entries {
        rows.append(MessageStoreKeys.row(id: entry.id, contact: contact, key: entry.key))
      }
    }
    return rows
  }

  private static func keysByContact(
    _ store: KeyStore
  ) -> [String: [(id: KeyStore.KeyID, key: ChaCha20Poly1305.Key?)]] {
    var byContact: [String: [(id: KeyStore.KeyID, key: ChaCha20Poly1305.Key?)]] = [:]
    let erasing = Set(store.pendingErasures)
    for entry in store.keys.values.sorted(by: { $0.id < $1.id }) {
      byContact[entry.contact, default: []].append(
        (entry.id, erasing.contains(entry.contact) ? nil : entry.key))
    }
    for (id, contact) in store.erasedKeys.sorted(by: { $0.key < $1.key }) {
      byContact[contact, default: []].append((id, nil))
    }
    return byContact
  }

  /// The last seq the database holds for this log (0 when none).
  private func shippedSequence(logID: String) throws(PostgresError) -> Int64 {
    let row = try connection.query(
      "SELECT seq FROM message_store.replay_shipped WHERE log_id = $1::uuid", [logID]
    ).rows.first
    return row?.first.flatMap { $0 }.flatMap { Int64($0) } ?? 0
  }

  /// Connects again, waiting longer after each failed attempt, and takes the shipping lock
  /// again (the old session's ended with it).
  /// - Throws: `PostgresError.serverGone` once `reconnection.giveUpAfter` has passed,
  ///   `.connectionLost` when the follower was stopped while waiting, and any error other than
  ///   an unreachable server (refused credentials, another shipper) at once.
  private func reconnect(
    _ reconnection: Reconnection, logID: String, lost message: String
  ) throws(PostgresError) {
    connection.close()
    func attempt() throws(PostgresError) -> PostgresConnection {
      let fresh = try PostgresConnection(url: reconnection.url)
      try Self.lock(logID: logID, logPath: logPath, connection: fresh, waiting: lockWait)
      return fresh
    }
    let outcome = try reconnection.retry(
      lost: message, lastSequence: progress.lastShippedSequence,
      isStopped: { follower.isStopped }, attempt)
    switch outcome {
    case .connected(let fresh):
      connection = fresh
    case .stopped:
      throw .connectionLost(message: message)
    case .gaveUp(let attempts, let seconds, let lastFailure):
      throw .serverGone(
        target: PostgresConnection.redacted(reconnection.url), attempts: attempts,
        seconds: seconds, message: lastFailure, lastShippedSequence: progress.lastShippedSequence)
    }
  }

  /// Takes the session's advisory lock for shipping this log, waiting up to `waiting`.
  private static func lock(
    logID: String, logPath: String, connection: PostgresConnection, waiting: Duration
  ) throws(PostgresError) {
    let deadline = ContinuousClock.now + waiting
    while true {
      let taken = try connection.query(
        "SELECT pg_try_advisory_lock(hashtext('replay ship ' || $1))", [logID]
      ).rows.first?.first
      if taken == "t" { return }
      guard ContinuousClock.now < deadline else { throw .shipperBusy(logPath: logPath) }
      usleep(100_000)
    }
  }
}

extension LogShipper {
  /// How a shipper connects again when the server goes away (a restart, a failover, a cut
  /// network): attempts `firstDelay` apart, twice as long after each failure up to
  /// `longestDelay`, until one succeeds or `giveUpAfter` has passed.
  public struct Reconnection: Sendable {
    /// What happened to the connection, for the caller to tell its user.
    public enum Event: Sendable, Equatable {
      /// The connection broke; every event up to `lastShippedSequence` is in the database.
      case lost(message: String, lastShippedSequence: Int64)
      /// A new connection is ready, after `attempts` tries over `after`.
      case reconnected(attempts: Int, after: Duration)
    }

    /// The database, as a libpq connection string.
    public var url: String
    /// How long to keep trying; nil: until the follower is stopped.
    public var giveUpAfter: Duration?
    /// The wait before the first attempt.
    public var firstDelay: Duration
    /// The longest wait between two attempts.
    public var longestDelay: Duration
    /// Called when the connection breaks and when it is made again.
    public var report: @Sendable (Event) -> Void

    /// How `retry` ended.
    package enum Outcome<Connection> {
      /// `attempt` connected.
      case connected(Connection)
      /// `isStopped` became true while waiting.
      case stopped
      /// `giveUpAfter` passed: `attempts` tries over `seconds`, the last failing with
      /// `lastFailure`.
      case gaveUp(attempts: Int, seconds: Int, lastFailure: String)
    }

    /// Reports the lost connection, then calls `attempt` until it connects: after `firstDelay`,
    /// then twice as long after each failure, up to `longestDelay` apart, for `giveUpAfter`.
    /// Reports the reconnection.
    /// - Parameters:
    ///   - message: Why the connection was lost.
    ///   - lastSequence: The last seq the caller has handled, for the report.
    ///   - isStopped: Checked while waiting; true ends with `.stopped`.
    ///   - attempt: Connects (and takes what the caller needs on the new connection).
    /// - Throws: What `attempt` throws other than an unreachable server, at once.
    func retry<Connection>(
      lost message: String, lastSequence: Int64, isStopped: () -> Bool,
      _ attempt: () throws(PostgresError) -> Connection
    ) throws(PostgresError) -> Outcome<Connection> {
      report(.lost(message: message, lastShippedSequence: lastSequence))
      let started = ContinuousClock.now
      var delay = firstDelay
      var attempts = 0
      var lastFailure = message
      while true {
        let waitEnd = ContinuousClock.now + delay
        while ContinuousClock.now < waitEnd {
          if isStopped() { return .stopped }
          usleep(20_000)
        }
        attempts += 1
        do throws(PostgresError) {
          let connection = try attempt()
          report(.reconnected(attempts: attempts, after: ContinuousClock.now - started))
          return .connected(connection)
        } catch {
          switch error {
          case .connectionFailed(_, let failure), .connectionLost(let failure):
            lastFailure = failure
          default:
            throw error
          }
        }
        let elapsed = ContinuousClock.now - started
        if let giveUpAfter, elapsed >= giveUpAfter {
          return .gaveUp(
            attempts: attempts, seconds: Int(elapsed.components.seconds), lastFailure: lastFailure)
        }
        delay = min(delay * 2, longestDelay)
      }
    }

    /// - Parameters:
    ///   - url: The database, as a libpq connection string.
    ///   - giveUpAfter: How long to keep trying; nil: until the follower is stopped.
    ///   - firstDelay: The wait before the first attempt.
    ///   - longestDelay: The longest wait between two attempts.
    ///   - report: Called when the connection breaks and when it is made again.
    public init(
      url: String, giveUpAfter: Duration?, firstDelay: Duration = .milliseconds(100),
      longestDelay: Duration = .seconds(5), report: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
      self.url = url
      self.giveUpAfter = giveUpAfter
      self.firstDelay = firstDelay
      self.longestDelay = longestDelay
      self.report = report
    }
  }
}
