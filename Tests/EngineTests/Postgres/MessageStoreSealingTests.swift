import Events
import Foundation
import Testing

@testable import Engine
@testable import Postgres

/// Contacts' personal data written through `MessageStoreWriter`: sealed as the file writer
/// seals it (one `PersonalData.seal`, the keys from `replay_keys`), the key inserted with the
/// rows, a record offered sealed opened with the database's keys, and an erasure that leaves
/// nothing written when it is refused.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct MessageStoreSealingTests {
  /// A seeded configuration: the same ids, time, keys and nonces on a file and a database.
  private static func configuration() -> EventLog.Configuration {
    var configuration = EventLog.Configuration(
      clock: { Timestamp(Date(timeIntervalSince1970: 1_795_000_000)) },
      makeEventID: { EventID.derived(fromName: "sealing/\($0)") })
    configuration.sealingSeed = "sealing-tests"
    return configuration
  }

  private static func added(_ id: String, _ name: String) -> ProposedEvent {
    ProposedEvent(
      type: ContactAdded.eventType,
      data: Array(
        #"{"id":"\#(id)","name":"\#(name)","isFavorite":false,"emailAddress":"\#(id)@example.com","phone":{"mobile":"+1 555 01\#(id)"},"source":"t"}"#
          .utf8))
  }

  private static func updated(_ id: String, _ name: String) -> ProposedEvent {
    ProposedEvent(
      type: ContactUpdated.eventType,
      data: Array(#"{"id":"\#(id)","name":"\#(name)"}"#.utf8))
  }

  /// The writes both stores take: new contacts, an update of one, a write to two streams.
  private static let writes: [[EventLog.StreamWrite]] = [
    [EventLog.StreamWrite(stream: "contact-1", events: [added("1", "Ana Lima")])],
    [
      EventLog.StreamWrite(
        stream: "contact-2", events: [added("2", "Bo Zed"), updated("2", "Bo Zeta")]),
      EventLog.StreamWrite(stream: "contact-1", events: [updated("1", "Ana Lima Neto")]),
    ],
    [EventLog.StreamWrite(stream: "contact-3", events: [added("3", "Cy Young")])],
  ]

  /// A server with the schema, and its URL.
  private func withDatabase(_ body: (PostgresTestServer, String) throws -> Void) throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    let url = server.url()
    _ = try MessageStoreSchema.install(on: PostgresConnection(url: url))
    try body(server, url)
  }

  @Test func aSeedGivesTheDatabaseTheFilesLinesAndKeys() throws {
    try withTemporaryDirectory { directory in
      try withDatabase { server, url in
        let log = try EventLog(
          path: directory + "/events.jsonl", configuration: Self.configuration())
        let writer = try MessageStoreWriter(url: url, configuration: Self.configuration())
        defer { writer.close() }
        for write in Self.writes {
          _ = try log.append(write)
          try writer.append(write)
        }
        let lines = try server.psql(
          "SELECT metadata->>'line' FROM message_store.messages ORDER BY global_position")
        let file = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(lines == file)
        #expect(file.contains(#""schema":2"#) && !file.contains("Ana Lima"))
        // The same keys, under the same ids.
        let store = try KeyStore(logPath: log.path)
        let keys = try MessageStoreKeys.lookups(on: PostgresConnection(url: url))
        #expect(keys.count == 3 && store.keys.count == 3)
        for (id, entry) in store.keys {
          #expect(keys[id] == .present(entry), "key \(id)")
        }
        // And the same typed events, opened.
        let (events, _) = try writer.events(inStream: "contact-1")
        let names = try events.compactMap {
          try writer.domainEvent(of: $0, for: ContactDecider.self)
        }.compactMap { event -> String? in
          switch event {
          case .added(let added): added.record.name
          case .updated(let update): update.name
          default: nil
          }
        }
        #expect(names == ["Ana Lima", "Ana Lima Neto"])
      }
    }
  }

  /// A key id the seed draws for a contact that another contact's key already has: the writer
  /// draws again, as the file's store does for an id it holds.
  @Test func aNewKeyWhoseIDTheTableHoldsIsDrawnAgain() throws {
    try withTemporaryDirectory { directory in
      try withDatabase { server, url in
        let log = try EventLog(
          path: directory + "/events.jsonl", configuration: Self.configuration())
        _ = try log.append(Self.writes[0])
        let drawn = try #require(try KeyStore(logPath: log.path).keys.keys.first)
        _ = try server.psql(
          "INSERT INTO message_store.replay_keys VALUES ('\(drawn)', 'someone else', NULL)")
        let writer = try MessageStoreWriter(url: url, configuration: Self.configuration())
        defer { writer.close() }
        try writer.append(Self.writes[0])
        let rows = try server.psql(
          "SELECT key_id FROM message_store.replay_keys WHERE contact = '1' AND key IS NOT NULL")
        let made = rows.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(made.count == 16 && made != drawn.description)
        let line = try server.psql("SELECT data->>'key' FROM message_store.messages")
        #expect(line.trimmingCharacters(in: .whitespacesAndNewlines) == made)
        let (events, _) = try writer.events(inStream: "contact-1")
        #expect(try writer.domainEvent(of: events[0], for: ContactDecider.self) != nil)
      }
    }
  }

  /// A schema 2 record offered as it is (its row lost, say, and written again) opens with the
  /// database's key and is taken; one whose sealed bytes changed, or sealed under a key the
  /// table lacks, is refused and nothing is written.
  @Test func aSealedRecordOfferedAsItIsMustOpenWithTheTablesKeys() throws {
    try withDatabase { server, url in
      let writer = try MessageStoreWriter(url: url, configuration: Self.configuration())
      defer { writer.close() }
      let written = try writer.append(Self.writes[0]).appended[0]
      _ = try server.psql("DELETE FROM message_store.messages")
      let sealed = ProposedEvent(
        id: written.id, type: written.type, schemaVersion: 2, data: written.data)
      var tampered = sealed
      let text = String(decoding: sealed.data, as: UTF8.self)
      let sealedField = try #require(text.range(of: #""sealed":""#))
      var bytes = Array(text.utf8)
      let index = text.utf8.distance(from: text.utf8.startIndex, to: sealedField.upperBound) + 4
      bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
      tampered.data = bytes
      let keyID = try server.psql("SELECT key_id FROM message_store.replay_keys")
        .trimmingCharacters(in: .whitespacesAndNewlines)
      var foreign = sealed
      foreign.data = Array(text.replacingOccurrences(of: keyID, with: "00000000000000ff").utf8)
      #expect(foreign.data != sealed.data)
      for refused in [tampered, foreign] {
        #expect(throws: EngineError.self) { try writer.append([refused], to: "contact-1") }
        #expect(try server.psql("SELECT count(*) FROM message_store.messages") == "0\n")
      }
      try writer.append([sealed], to: "contact-1")
      #expect(try server.psql("SELECT count(*) FROM message_store.replay_keys") == "1\n")
      let (events, _) = try writer.events(inStream: "contact-1")
      #expect(events.map(\.data) == [written.data])
      guard case .added(let added) = try writer.domainEvent(of: events[0], for: ContactDecider.self)
      else {
        Issue.record("not a ContactAdded")
        return
      }
      #expect(added.record.name == "Ana Lima")
    }
  }

  @Test func erasingAnUnknownContactWritesNothingAndErasingTwiceAppendsNothing() throws {
    try withDatabase { server, url in
      let writer = try MessageStoreWriter(url: url, configuration: Self.configuration())
      defer { writer.close() }
      try writer.append(Self.writes[0])
      let before = try server.psql(
        "SELECT (SELECT string_agg(m::text, ',') FROM message_store.messages m) || "
          + "(SELECT string_agg(k::text, ',') FROM message_store.replay_keys k)")
      #expect(throws: EventsError.unknownEntity(kind: .contact, id: "9")) {
        try writer.eraseContact(ContactID("9"))
      }
      #expect(
        try server.psql(
          "SELECT (SELECT string_agg(m::text, ',') FROM message_store.messages m) || "
            + "(SELECT string_agg(k::text, ',') FROM message_store.replay_keys k)") == before)
      let erasure = try writer.eraseContact(ContactID("1"), metadata: EventMetadata(actor: "dpo"))
      #expect(erasure.event?.type == ContactErased.eventType && erasure.destroyedKeyCount == 1)
      let again = try writer.eraseContact(ContactID("1"))
      #expect(again.event == nil && again.destroyedKeyCount == 0)
      #expect(again.noChangeReason == "contact '1' is already erased")
      #expect(
        try server.psql("SELECT count(*) FROM message_store.replay_keys WHERE key IS NULL") == "1\n"
      )
      // Read as erased, not as a key missing.
      let (events, _) = try writer.events(inStream: "contact-1")
      guard case .added(let added) = try writer.domainEvent(of: events[0], for: ContactDecider.self)
      else {
        Issue.record("not a ContactAdded")
        return
      }
      #expect(added.record.name == ContactRecord.erasedName)
    }
  }
}
