import Events
import Foundation
import Testing

@testable import Engine
@testable import Postgres

@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct LogShipperTests {
  @Test func theShippedTableEqualsTheLogEventForEventAndARerunShipsOnlyWhatIsNew() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let connection = try PostgresConnection(url: server.url())
      _ = try MessageStoreSchema.install(on: connection)
      let full = try makeGeneratedLog(in: directory, count: 4000, seed: "ship")
      let path = directory + "/shipped.jsonl"
      let bytes = try fileBytes(full)
      // The first two writes (1000 events each), then the rest as another process appends it.
      let cut = try #require(lineEnd(bytes, line: 2000))
      try writeBytes(Array(bytes[..<cut]), to: path)
      try copyKeyStore(of: full, to: path)

      let first = try LogShipper(logPath: path, connection: connection, batchSize: 300)
        .ship(following: false)
      #expect(first.shippedEvents == 2000)
      #expect(first.lastShippedSequence == 2000)
      try expectTable(connection, equals: path)

      try appendBytes(Array(bytes[cut...]), to: path)
      var reports: [LogShipper.Progress] = []
      let second = try LogShipper(logPath: path, connection: connection, batchSize: 300)
        .ship(following: false) { reports.append($0) }
      #expect(second.shippedEvents == 2000)
      #expect(second.lastShippedSequence == 4000)
      #expect(second.lag == 0)
      #expect(reports.last == second)
      try expectTable(connection, equals: full)

      let third = try LogShipper(logPath: path, connection: connection).ship(following: false)
      #expect(third.shippedEvents == 0)
      #expect(third.lastShippedSequence == 4000)
    }
  }

  @Test func aLogThatIsNotTheShippedOneIsRefused() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let connection = try PostgresConnection(url: server.url())
      _ = try MessageStoreSchema.install(on: connection)
      let full = try makeGeneratedLog(in: directory, count: 3000, seed: "ship")
      _ = try LogShipper(logPath: full, connection: connection).ship(following: false)
      // The same log cut back to its first 2000 events: it begins the same, but the database
      // holds events it does not have.
      let bytes = try fileBytes(full)
      let shorter = directory + "/shorter.jsonl"
      try writeBytes(Array(bytes[..<(try #require(lineEnd(bytes, line: 2000)))]), to: shorter)
      try copyKeyStore(of: full, to: shorter)
      let error = thrownPostgresError {
        _ = try LogShipper(logPath: shorter, connection: connection).ship(following: false)
      }
      guard case .anotherLog(_, let detail) = error else {
        Issue.record("expected anotherLog, got \(String(describing: error))")
        return
      }
      #expect(detail.contains("seq 3000"))
      #expect(detail.contains("ends at seq 2000"))
      #expect(try count(connection) == 3000)
    }
  }

  @Test func followingShipsEachEventAsItIsCommitted() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let setup = try PostgresConnection(url: server.url())
      _ = try MessageStoreSchema.install(on: setup)
      let full = try makeGeneratedLog(in: directory, count: 3000, seed: "follow")
      let path = directory + "/followed.jsonl"
      let bytes = try fileBytes(full)
      let cut = try #require(lineEnd(bytes, line: 1000))
      try writeBytes(Array(bytes[..<cut]), to: path)
      try copyKeyStore(of: full, to: path)

      let shipping = FollowingShipper(
        try LogShipper(logPath: path, connection: PostgresConnection(url: server.url())))
      try waitFor { try count(setup) == 1000 }
      try appendBytes(Array(bytes[cut...]), to: path)
      try waitFor { try count(setup) == 3000 }
      #expect(shipping.stop() == nil)
      try expectTable(setup, equals: full)
    }
  }

  @Test func aServerStoppedMidShipFailsClearlyAndARerunResumesWithNoGapNorRepeat() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let path = try makeGeneratedLog(in: directory, count: 4000, seed: "restart")
      do {
        let connection = try PostgresConnection(url: server.url())
        _ = try MessageStoreSchema.install(on: connection)
        var batches = 0
        let error = thrownPostgresError {
          _ = try LogShipper(logPath: path, connection: connection, batchSize: 100)
            .ship(following: false) { _ in
              batches += 1
              if batches == 5 { try? server.stop() }
            }
        }
        guard case .connectionLost = error else {
          Issue.record("expected connectionLost, got \(String(describing: error))")
          return
        }
      }
      try server.start()
      let connection = try PostgresConnection(url: server.url())
      #expect(try count(connection) == 500)
      let resumed = try LogShipper(logPath: path, connection: connection, batchSize: 100)
        .ship(following: false)
      #expect(resumed.shippedEvents == 3500)
      try expectTable(connection, equals: path)
    }
  }
}

extension LogShipperTests {
  @Test func aFollowingShipperReconnectsWhenTheServerRestartsWithNoGapNorRepeat() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let setup = try PostgresConnection(url: server.url())
      _ = try MessageStoreSchema.install(on: setup)
      setup.close()
      let full = try makeGeneratedLog(in: directory, count: 3000, seed: "reconnect")
      let path = directory + "/followed.jsonl"
      let bytes = try fileBytes(full)
      let firstCut = try #require(lineEnd(bytes, line: 1000))
      let secondCut = try #require(lineEnd(bytes, line: 2000))
      try writeBytes(Array(bytes[..<firstCut]), to: path)
      try copyKeyStore(of: full, to: path)

      let events = Box<[LogShipper.Reconnection.Event]>([])
      let lock = NSLock()
      let reconnection = LogShipper.Reconnection(
        url: server.url(), giveUpAfter: nil, firstDelay: .milliseconds(50),
        longestDelay: .milliseconds(400)
      ) { event in lock.withLock { events.value.append(event) } }
      let shipping = FollowingShipper(
        try LogShipper(
          logPath: path, connection: PostgresConnection(url: server.url()), batchSize: 300,
          reconnection: reconnection))
      try waitFor { try Self.rows(server) == 1000 }
      // The server goes away while the shipper waits for events; events are committed in the
      // log while it is down, and it comes back a second later.
      try server.stop()
      try appendBytes(Array(bytes[firstCut..<secondCut]), to: path)
      sleep(1)
      try server.start()
      try waitFor { try Self.rows(server) == 2000 }
      // Down again, this time while the shipper is in the middle of catching up.
      try server.stop()
      try appendBytes(Array(bytes[secondCut...]), to: path)
      usleep(300_000)
      try server.start()
      try waitFor { try Self.rows(server) == 3000 }
      #expect(shipping.stop() == nil)
      let connection = try PostgresConnection(url: server.url())
      try expectTable(connection, equals: full)
      let seen = lock.withLock { events.value }
      #expect(seen.count >= 4)
      if case .lost(_, let last) = seen.first {
        #expect(last == 1000)
      } else {
        Issue.record("expected the first event to be .lost, got \(seen)")
      }
      #expect(seen.contains { if case .reconnected = $0 { true } else { false } })
    }
  }

  @Test func aCatchUpThatCannotReconnectSaysSoAndARerunResumes() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let path = try makeGeneratedLog(in: directory, count: 2000, seed: "gone")
      let connection = try PostgresConnection(url: server.url())
      _ = try MessageStoreSchema.install(on: connection)
      var batches = 0
      let reconnection = LogShipper.Reconnection(
        url: server.url(), giveUpAfter: .seconds(1), firstDelay: .milliseconds(100),
        longestDelay: .milliseconds(200))
      let error = thrownPostgresError {
        _ = try LogShipper(
          logPath: path, connection: connection, batchSize: 100, reconnection: reconnection
        ).ship(following: false) { _ in
          batches += 1
          if batches == 3 { try? server.stop() }
        }
      }
      guard case .serverGone(_, let attempts, _, _, let last) = error else {
        Issue.record("expected serverGone, got \(String(describing: error))")
        return
      }
      #expect(attempts >= 3)
      #expect(last == 300)
      #expect(error?.description.contains("every event up to seq 300 is in the database") == true)
      try server.start()
      let again = try PostgresConnection(url: server.url())
      #expect(try count(again) == 300)
      let resumed = try LogShipper(logPath: path, connection: again).ship(following: false)
      #expect(resumed.shippedEvents == 1700)
      try expectTable(again, equals: path)
    }
  }

  @Test(arguments: [
    ("plain", "plain"), ("a\\b", "a\\\\b"), ("tab\there", "tab\\there"),
    ("two\nlines\r", "two\\nlines\\r"), ("", ""),
  ])
  func copyTextEscapesBackslashTabAndLineBreaks(value: String, escaped: String) {
    var row: [UInt8] = []
    CopyText.append(value, to: &row)
    #expect(String(decoding: row, as: UTF8.self) == escaped)
  }

  /// The rows in `messages`, read over a connection of its own (the server restarts).
  static func rows(_ server: PostgresTestServer) throws -> Int {
    guard let connection = try? PostgresConnection(url: server.url()) else { return -1 }
    return try count(connection)
  }
}

/// A shipper running `ship(following: true)` on a thread of its own until `stop()`.
final class FollowingShipper: @unchecked Sendable {
  // @unchecked: `outcome` is written by the thread before it signals `finished`, and read only
  // after `finished.wait()`.
  private let shipper: LogShipper
  private let finished = DispatchSemaphore(value: 0)
  private var outcome: (any Error)?

  init(_ shipper: LogShipper) {
    self.shipper = shipper
    Thread { [self] in
      do {
        _ = try self.shipper.ship(following: true)
      } catch {
        outcome = error
      }
      finished.signal()
    }.start()
  }

  /// Stops the shipper and waits for it; returns what it threw, if anything.
  func stop() -> (any Error)? {
    shipper.follower.stop()
    finished.wait()
    return outcome
  }
}

/// A value handed to another thread; the test reads it only after that thread is done.
final class Box<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

/// Checks that `messages` holds the events of the log at `path`, in seq order, each once, with
/// the documented mapping.
func expectTable(_ connection: PostgresConnection, equals path: String) throws {
  let rows = try connection.query(
    """
    SELECT id::text, stream_name, position::text, type, data::text, metadata::text,
      to_char(time, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    FROM message_store.messages ORDER BY global_position
    """, []
  ).rows
  let events = try readAll(path)
  // Each row keeps its line as written.
  let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
  #expect(rows.count == events.count)
  for (row, (event, line)) in zip(rows, zip(events, lines)) {
    let at = event.timestamp.description
    #expect(row[0] == event.id.description)
    #expect(row[1] == event.stream)
    #expect(row[2] == String(event.version - 1))
    #expect(row[3] == event.type)
    #expect(try sameJSON(row[4], event.data))
    var metadata: [String: Any] = ["seq": event.sequence, "at": at, "schema": event.schemaVersion]
    metadata["actor"] = event.metadata.actor
    metadata["reason"] = event.metadata.reason
    metadata["correlation"] = event.metadata.correlation
    metadata["causation"] = event.metadata.causation
    metadata["line"] = String(line)
    let expected = try JSONSerialization.data(withJSONObject: metadata)
    #expect(try sameJSON(row[5], Array(expected)))
    #expect(row[6] == at)
    if row[0] != event.id.description { return }
  }
}

/// A copy of a log goes with its key store (the keys its sealed contacts ship with).
func copyKeyStore(of log: String, to copy: String) throws {
  guard FileManager.default.fileExists(atPath: log + ".keys") else { return }
  try FileManager.default.copyItem(atPath: log + ".keys", toPath: copy + ".keys")
}

func sameJSON(_ text: String?, _ bytes: [UInt8]) throws -> Bool {
  guard let text else { return false }
  let found = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
  let wanted = try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary
  return found != nil && found == wanted
}

func count(_ connection: PostgresConnection) throws -> Int {
  let text = try connection.query("SELECT count(*) FROM message_store.messages", []).rows
  return Int(text.first?.first.flatMap { $0 } ?? "") ?? -1
}

/// The offset just past line `line` (1-based) of `bytes`.
func lineEnd(_ bytes: [UInt8], line: Int) -> Int? {
  var seen = 0
  for (offset, byte) in bytes.enumerated() where byte == 0x0A {
    seen += 1
    if seen == line { return offset + 1 }
  }
  return nil
}

func appendBytes(_ bytes: [UInt8], to path: String) throws {
  let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
  defer { try? handle.close() }
  try handle.seekToEnd()
  try handle.write(contentsOf: Data(bytes))
}

/// Polls `condition` every 20 ms for up to 20 s.
func waitFor(_ condition: () throws -> Bool) throws {
  let deadline = Date().addingTimeInterval(20)
  while try !condition() {
    if Date() > deadline {
      Issue.record("timed out waiting")
      return
    }
    usleep(20_000)
  }
}
