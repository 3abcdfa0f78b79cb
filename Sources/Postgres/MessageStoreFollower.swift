import Engine
import Events
import Foundation
import Synchronization

/// Follows a log kept in PostgreSQL (Message DB's `messages`, as `replay ship` fills it): its
/// committed events from a start, then each new one as it is committed, in seq order and once
/// each, with the lines as written (`metadata.line`) checked and decoded as a reader of the
/// file checks them. What `replay log -f` and `state --follow` run on `--log postgresql://…`.
///
/// **Wake-ups.** The follower `LISTEN`s on the channel `message_store_messages`, which the
/// trigger `messages_notify` (made by `replay pg init`) notifies at the commit of any
/// transaction that added rows, whoever wrote them. It also looks every `pollInterval` without
/// a notification, so a missed one (a database made before the trigger, a notification lost
/// with a connection) only delays an event, never loses it.
///
/// **What was delivered is still there.** Each read starts at the last row read, in the same
/// statement: when that row is gone or holds another line (the table was emptied and shipped
/// again, a row deleted or changed by hand), the follower stops with `Failure.rowChanged`.
///
/// **The server going away.** A lost connection is made again, waiting longer after each
/// attempt, for as long as `reconnection` allows (`--retry-for`); the follower then goes on
/// after the last row it read, so nothing is delivered twice or skipped. Past that,
/// `Failure.serverGone`.
///
/// A row whose seq is past the next one expected is taken for a transaction that is not
/// committed yet: the follower waits for the missing seqs for up to `gapPatience` before it
/// reports them missing.
package final class MessageStoreFollower: EventFollowing {
  /// The database, as a libpq connection string.
  package let url: String
  /// Where delivery starts.
  package let start: FollowStart
  /// Which events are delivered.
  package let filter: EventFilter
  /// How to reconnect when the server goes away; nil to fail at once.
  package let reconnection: LogShipper.Reconnection?
  /// How long to wait for a notification before looking anyway.
  package let pollInterval: Duration
  /// How long a gap in the seqs may last before it is an error.
  package let gapPatience: Duration
  /// Rows fetched a round trip.
  package let pageSize: Int
  private let stopped = Mutex<Bool>(false)
  /// `stop()` writes a byte here, so that a follower waiting in `poll` wakes at once.
  private let wakeRead: Int32
  private let wakeWrite: Int32

  /// Why following a database stopped with an error of its own (other errors are
  /// `PostgresError` and `EngineError`).
  package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The last row read holds another line, or is gone: what was delivered may not be in the
    /// database any more.
    case rowChanged(target: String, sequence: Int64, globalPosition: Int64, found: String)
    /// The connection broke and could not be made again in `seconds` (`attempts` tries);
    /// every event up to `lastSequence` was read (delivered, or passed over by the filter).
    case serverGone(
      target: String, attempts: Int, seconds: Int, message: String, lastSequence: Int64)

    package var description: String {
      switch self {
      case .rowChanged(let target, let sequence, let position, let found):
        "'\(target)' changed while it was followed: the row at global_position \(position) (seq \(sequence)), the last one read, \(found), so what was delivered may not be in the database any more; check it with 'replay log --log <url>', then restart the follower (from the beginning, or from a seq known to be unchanged)"
      case .serverGone(let target, let attempts, let seconds, let message, let last):
        "the connection to PostgreSQL at '\(target)' was lost and could not be made again in \(seconds) s (\(attempts) attempts; the last: \(message)); every event up to seq \(last) was read: follow again with --from \(last + 1) once the server is back (or raise --retry-for)"
      }
    }
  }

  /// - Parameters:
  ///   - url: The database, as a libpq connection string.
  ///   - start: Where delivery starts.
  ///   - filter: Which events are delivered.
  ///   - reconnection: How to reconnect when the server goes away; nil to fail at once.
  ///   - pollInterval: How long to wait for a notification before looking anyway.
  ///   - gapPatience: How long a gap in the seqs may last before it is an error.
  ///   - pageSize: Rows fetched a round trip.
  package init(
    url: String, from start: FollowStart = .beginning, filter: EventFilter = EventFilter(),
    reconnection: LogShipper.Reconnection? = nil, pollInterval: Duration = .seconds(1),
    gapPatience: Duration = .seconds(10), pageSize: Int = 2000
  ) {
    precondition(pageSize >= 1, "a page holds at least one row")
    self.pageSize = pageSize
    self.url = url
    self.start = start
    self.filter = filter
    self.reconnection = reconnection
    self.pollInterval = pollInterval
    self.gapPatience = gapPatience
    var descriptors: [Int32] = [-1, -1]
    if pipe(&descriptors) == 0 {
      for descriptor in descriptors {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
      }
    } else {
      // No pipe: `stop()` is then seen at the next poll.
      descriptors = [-1, -1]
    }
    wakeRead = descriptors[0]
    wakeWrite = descriptors[1]
  }

  deinit {
    if wakeRead >= 0 { close(wakeRead) }
    if wakeWrite >= 0 { close(wakeWrite) }
  }

  /// The database's name in messages: the URL without its password.
  package var name: String { PostgresConnection.redacted(url) }

  /// Stops `follow` (from any thread): it returns once the event it is delivering, if any, is
  /// handled.
  package func stop() {
    stopped.withLock { $0 = true }
    if wakeWrite >= 0 {
      var byte: UInt8 = 1
      _ = write(wakeWrite, &byte, 1)
    }
  }

  package var isStopped: Bool { stopped.withLock { $0 } }

  /// Calls `body` with every committed event that passes the filter, from `start` on, then with
  /// each new one as it is committed, until `body` returns false, `stop()` is called, or an
  /// error; as `LogFollower.follow(through:caughtUp:_:)` does for a file.
  ///
  /// `.afterSequence` and `.end` read no row before their start: one query finds the row to
  /// read on from (`startRow(after:on:)`), and the first read checks that it still holds the
  /// line found, as each later read checks the last row read. `.beginning` and `.time` read
  /// from the first row.
  /// - Parameter last: when given, following ends once the event with this seq has been read.
  /// - Throws: `PostgresError` (unreachable, refused, no schema), `Failure`, `EngineError` for
  ///   a row with no line, a damaged line, or seqs missing or repeated.
  package func follow(
    through last: Int64? = nil, caughtUp: () throws -> Bool = { true },
    _ body: (EventLine) throws -> Bool
  ) throws {
    var lines = LineDecoder(source: name)
    var skipThrough: Int64 = 0
    var notBefore: Timestamp?
    // Whether a row to read on from is looked up: the bookmark's, or the last row (nil).
    var looksUpStart = false
    var bookmark: Int64?
    switch start {
    case .beginning: break
    case .afterSequence(let sequence):
      skipThrough = sequence
      looksUpStart = sequence > 0
      bookmark = sequence
    case .time(let instant): notBefore = instant
    case .end: looksUpStart = true
    }
    try followRows(
      start: { connection in
        guard looksUpStart else { return .beginning }
        guard let mark = try Self.startRow(after: bookmark, on: connection) else {
          // An empty table, or rows the search cannot use: from the first row, passing over
          // what is before the start, as before.
          if bookmark == nil { skipThrough = try Self.lastSequence(on: connection) }
          return .beginning
        }
        lines = LineDecoder(source: name, after: mark.sequence)
        skipThrough = max(skipThrough, mark.sequence)
        // The event `last` was read (or passed over) already: nothing is left to deliver.
        if let last, last <= mark.sequence { return .finished }
        return .after(mark)
      },
      caughtUp: caughtUp,
      row: { bytes in
        try lines.decode(bytes) { line in
          if let last, line.sequence > last { return false }
          let isLast = line.sequence == last
          // Seqs up to a bookmark past the last row, arriving after the start.
          if line.sequence <= skipThrough { return !isLast }
          if let instant = notBefore {
            guard line.timestamp >= instant else { return !isLast }
            // Times never go backwards: every later event passes too.
            notBefore = nil
          }
          guard filter.isEmpty || filter.matches(line) else { return !isLast }
          return try body(line) && !isLast
        }
      })
  }

  /// Folds the events into the read models with the replay's own fold (`LineFold`), and
  /// calls `caughtUp` with them each time every committed event is folded: first at the end
  /// of what the database holds, then after each burst of new events (`newEventCount` > 0;
  /// 0 when a wake brought none). What `replay state --follow` and `EventStore.updates(of:)`
  /// run on a database.
  ///
  /// The fold starts from the newest checkpoint of `replay_checkpoints` that still matches
  /// the table, as `MessageStoreLog.readModels(at:usingCheckpoints:)` does (the same
  /// look-up), and reads only the rows after it; the first read checks that the row at the
  /// checkpoint's seq still holds the line the checkpoint was made after, as each later read
  /// checks the last row read. Every model is folded: `LineFold` has no narrowing by model.
  /// - Parameters:
  ///   - usingCheckpoints: false to fold from the first row (`--no-checkpoints`).
  ///   - explain: hears which checkpoint the fold starts from, and why others are not used.
  /// - Throws: as `follow(through:caughtUp:_:)`, and what opening sealed personal data throws.
  package func follow(
    usingCheckpoints: Bool = true, explain: (String) -> Void = { _ in },
    foldingModels caughtUp: (_ result: Replayer.Result, _ newEventCount: Int) throws -> Bool
  ) throws {
    let log = MessageStoreLog(url: url)
    let keys = Keys()
    func makeFold(from checkpoint: MessageStoreCheckpoints.Loaded?) -> LineFold {
      LineFold(
        source: name, keyStoreName: log.keyStoreName,
        from: checkpoint.map { ($0.models, $0.sequence) }
      ) { id in keys.lookup[id] ?? .missing }
    }
    var fold = makeFold(from: nil)
    var folded = 0
    try followRows(
      start: { connection in
        guard usingCheckpoints else { return .beginning }
        keys.lookup = try MessageStoreLog.keys(on: connection)
        guard
          let checkpoint = try log.newestCheckpoint(
            on: connection, atOrBefore: nil, keys: keys.lookup, explain: explain)
        else { return .beginning }
        fold = makeFold(from: checkpoint)
        return .after(
          Mark(
            globalPosition: checkpoint.sequence, sequence: checkpoint.sequence,
            line: .sha256(checkpoint.lineSHA256)))
      },
      caughtUp: {
        let keepGoing = try caughtUp(fold.result, folded)
        folded = 0
        return keepGoing
      },
      beforeEachRead: { connection in
        // The keys as they are now: a key made or destroyed since is seen by the next line.
        keys.lookup = try MessageStoreLog.keys(on: connection)
      },
      row: { bytes in
        try fold.fold(bytes)
        folded += 1
        return true
      })
  }

  /// The contacts' keys a fold reads, loaded again before each read.
  private final class Keys {
    var lookup: [KeyStore.KeyID: KeyStore.Lookup] = [:]
  }

  /// The seq of the last row (0 when there is none).
  private static func lastSequence(on connection: PostgresConnection) throws -> Int64 {
    let row = try connection.query(
      """
      SELECT metadata->>'seq' FROM message_store.messages ORDER BY global_position DESC LIMIT 1
      """, []
    ).rows.first
    return row?.first.flatMap { $0 }.flatMap { Int64($0) } ?? 0
  }

  /// The row a follow from a bookmark reads on from, in one query: the row holding seq
  /// `sequence` when there is one, else the last row (its seq below `sequence`: the rows up to
  /// the bookmark are passed over as they arrive); the last row when `sequence` is nil (`.end`).
  /// nil (read from the first row) when the table is empty, or when its rows do not give what
  /// the search relies on (below).
  ///
  /// The row holding a seq is found through `messages`' primary key, with no index on
  /// `metadata->>'seq'`: the writers give each row a `global_position` at least its seq
  /// (`ship`'s `COPY` sends the lines in seq order and takes the column's sequence, which
  /// starts at 1 and only ever skips values; a direct write sets `global_position` = seq), and
  /// `global_position` grows with seq. So the search starts at `global_position` = seq and
  /// passes over only the rows whose `global_position` is ahead of their seq by the values
  /// skipped before (none in a table no write or ship ever rolled back). A table that breaks
  /// this (a last row whose seq is past `sequence` while no row from `global_position` =
  /// `sequence` on holds it) is read from the first row, as before: nothing is skipped wrongly.
  /// - Complexity: One index look-up in a table whose `global_position`s are its seqs; the rows
  ///   between `global_position` = `sequence` and the row found otherwise.
  private static func startRow(after sequence: Int64?, on connection: PostgresConnection)
    throws -> Mark?
  {
    let last = """
      (SELECT 1 AS rank, global_position, metadata FROM message_store.messages
        ORDER BY global_position DESC LIMIT 1)
      """
    let candidates =
      if sequence != nil {
        """
        (SELECT 0 AS rank, global_position, metadata FROM message_store.messages
          WHERE global_position >= $1::bigint AND metadata->>'seq' = $2::text
          ORDER BY global_position LIMIT 1)
        UNION ALL \(last)
        """
      } else {
        last
      }
    let row = try connection.query(
      """
      SELECT global_position, metadata->>'seq', metadata->>'line' FROM (\(candidates)) AS start
      ORDER BY rank LIMIT 1
      """, sequence.map { [String($0), String($0)] } ?? []
    ).rows.first
    guard let row, let position = row[0].flatMap({ Int64($0) }),
      let found = row[1].flatMap({ Int64($0) }), let line = row[2],
      found <= sequence ?? .max
    else { return nil }
    return Mark(globalPosition: position, sequence: found, line: .bytes(Array(line.utf8)))
  }

  /// Where the follower stands: the last row read, as it read it.
  private struct Mark {
    var globalPosition: Int64 = 0
    var sequence: Int64 = 0
    var line = Line.bytes([])

    /// The line the row at `globalPosition` must still hold.
    enum Line {
      /// The line as it was read.
      case bytes([UInt8])
      /// The SHA-256 (lowercase hex) of the line a checkpoint was made after.
      case sha256(String)

      func matches(_ text: String) -> Bool {
        switch self {
        case .bytes(let bytes): Array(text.utf8) == bytes
        case .sha256(let hex): SHA256.hex(SHA256.hash(Array(text.utf8))) == hex
        }
      }
    }
  }

  /// Where `followRows` reads from.
  private enum Start {
    /// From the first row.
    case beginning
    /// From the row after this one (its line checked by the first read).
    case after(Mark)
    /// Nowhere: nothing is left to read.
    case finished
  }

  /// The loop both follows share: hands `row` each row's line in `global_position` order
  /// (`row` returns false to stop), calls `caughtUp` when every committed row was handed over,
  /// waits for a notification or the poll, and reconnects when the server goes away.
  /// - Parameter start: called once, on the first connection: where to read from.
  private func followRows(
    start: (PostgresConnection) throws -> Start = { _ in .beginning },
    caughtUp: () throws -> Bool,
    beforeEachRead: (PostgresConnection) throws -> Void = { _ in },
    row: (UnsafeBufferPointer<UInt8>) throws -> Bool
  ) throws {
    var connection = try connect()
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    var mark = Mark()
    var isStarted = false
    var gapSince: ContinuousClock.Instant?
    while true {
      if isStopped { return }
      do {
        if !isStarted {
          // Inside the loop, so that a connection lost here is made again as any other.
          switch try start(connection) {
          case .beginning: break
          case .after(let from): mark = from
          case .finished: return
          }
          isStarted = true
        }
        var more = true
        while more {
          if isStopped { return }
          try beforeEachRead(connection)
          let page = try readRows(after: mark, on: connection)
          more = page.count >= pageSize
          for (position, sequence, text) in page {
            guard var text else {
              throw EngineError.invalidEvent(
                location: name,
                problem:
                  "the row at global_position \(position) holds no line (metadata.line): it was shipped by a version of replay before 'state' could read PostgreSQL; ship the log again into an empty database"
              )
            }
            if let sequence, sequence > mark.sequence + 1 {
              // A seq is missing: perhaps a transaction that is not committed yet.
              let since = gapSince ?? .now
              gapSince = since
              if ContinuousClock.now - since < gapPatience {
                more = false
                break
              }
            }
            gapSince = nil
            let goOn = try text.withUTF8 { try row($0) }
            mark = Mark(
              globalPosition: position, sequence: sequence ?? mark.sequence + 1,
              line: .bytes(Array(text.utf8)))
            if !goOn { return }
          }
        }
        if isStopped { return }
        if try !caughtUp() { return }
        try wait(on: connection, briefly: gapSince != nil)
      } catch PostgresError.connectionLost(let message) {
        connection.close()
        guard let fresh = try reconnect(lost: message, lastSequence: mark.sequence) else {
          return
        }
        connection = fresh
      }
    }
  }

  /// The rows after the last one read, with that row first (checked, then left out): global
  /// position, the seq in `metadata`, the line.
  private func readRows(after mark: Mark, on connection: PostgresConnection) throws
    -> [(Int64, Int64?, String?)]
  {
    let rows = try connection.query(
      """
      SELECT global_position, metadata->>'seq', metadata->>'line' FROM message_store.messages
      WHERE global_position >= $1::bigint ORDER BY global_position LIMIT $2::bigint
      """, [String(mark.globalPosition), String(pageSize + (mark.globalPosition > 0 ? 1 : 0))]
    ).rows
    var page: [(Int64, Int64?, String?)] = []
    page.reserveCapacity(rows.count)
    for (index, row) in rows.enumerated() {
      let position = row[0].flatMap { Int64($0) } ?? 0
      if index == 0, mark.globalPosition > 0 {
        let found =
          position != mark.globalPosition
          ? "is gone"
          : row[2].map { mark.line.matches($0) } == true ? nil : "holds another line"
        if let found {
          throw Failure.rowChanged(
            target: name, sequence: mark.sequence, globalPosition: mark.globalPosition,
            found: found)
        }
        continue
      }
      page.append((position, row[1].flatMap { Int64($0) }, row[2]))
    }
    if mark.globalPosition > 0, rows.isEmpty {
      throw Failure.rowChanged(
        target: name, sequence: mark.sequence, globalPosition: mark.globalPosition,
        found: "is gone")
    }
    return page
  }

  /// A connection that listens on the channel the trigger notifies.
  private func connect() throws(PostgresError) -> PostgresConnection {
    let connection = try PostgresConnection(url: url)
    try connection.execute("LISTEN \(MessageStoreSQL.notificationChannel)")
    return connection
  }

  /// Waits for a notification, `stop()`, or the poll interval (a tenth of a second when
  /// `briefly`, for a gap to close).
  private func wait(on connection: PostgresConnection, briefly: Bool) throws(PostgresError) {
    // Notifications read along with the last statement's result are not on the socket.
    if try connection.takeNotifications() > 0 { return }
    let interval = briefly ? min(pollInterval, .milliseconds(100)) : pollInterval
    let milliseconds = Int32(
      clamping: interval.components.seconds * 1000 + interval.components.attoseconds
        / 1_000_000_000_000_000)
    var descriptors = [
      pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
    ]
    let count = wakeRead >= 0 ? 2 : 1
    while poll(&descriptors, nfds_t(count), milliseconds) < 0, errno == EINTR {}
    if descriptors[1].revents != 0 {
      var bytes = [UInt8](repeating: 0, count: 64)
      while read(wakeRead, &bytes, bytes.count) > 0 {}
    }
    _ = try connection.takeNotifications()
  }

  /// Connects again, waiting longer after each failed attempt, as long as `reconnection`
  /// allows.
  /// - Returns: The new connection; nil when `stop()` was called while waiting.
  /// - Throws: `Failure.serverGone` past the budget (at once without `reconnection`), any
  ///   error other than an unreachable server at once.
  private func reconnect(lost message: String, lastSequence: Int64) throws -> PostgresConnection? {
    guard let reconnection else {
      throw Failure.serverGone(
        target: name, attempts: 0, seconds: 0, message: message, lastSequence: lastSequence)
    }
    switch try reconnection.retry(
      lost: message, lastSequence: lastSequence, isStopped: { isStopped }, connect)
    {
    case .connected(let fresh):
      return fresh
    case .stopped:
      return nil
    case .gaveUp(let attempts, let seconds, let lastFailure):
      throw Failure.serverGone(
        target: name, attempts: attempts, seconds: seconds, message: lastFailure,
        lastSequence: lastSequence)
    }
  }
}
