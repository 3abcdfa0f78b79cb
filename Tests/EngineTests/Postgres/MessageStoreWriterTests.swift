import Events
import Foundation
import Testing

@testable import Engine
@testable import Postgres

/// The store writer as a library uses it: one writer for many writes, domain commands through
/// `EventStorage.handle`, and a failed write (a conflict, a lock timeout) leaves the writer
/// ready for the next.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct MessageStoreWriterTests {
  @Test func oneWriterKeepsWritingAfterAConflictAndALockTimeout() throws {
    let server = try PostgresTestServer()
    defer { try? server.stop(removing: true) }
    let url = server.url()
    _ = try MessageStoreSchema.install(on: PostgresConnection(url: url))
    var configuration = EventLog.Configuration()
    configuration.lockTimeout = 0.3
    let writer = try MessageStoreWriter(url: url, configuration: configuration)
    defer { writer.close() }
    let storage: any EventStorage = writer
    let added = try storage.handle(
      .addState(StateName("Ohio")), with: USStateDecider.self,
      metadata: EventMetadata(actor: "ana"))
    #expect(added.events.map(\.sequence) == [1])
    #expect(throws: EngineError.self) {
      try storage.handle(
        .addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")),
        with: USStateDecider.self, expectedVersion: .noStream)
    }
    // Another session holds the store: the wait ends with a timeout, nothing is written.
    let holder = try PostgresConnection(url: url)
    try holder.execute("BEGIN; " + MessageStoreWriter.lockKey)
    #expect(throws: PostgresError.self) {
      try writer.append(
        [ProposedEvent(type: "StateAdded", data: Array(#"{"name":"Iowa"}"#.utf8))],
        to: "state-Iowa")
    }
    try holder.execute("ROLLBACK")
    let zip = try storage.handle(
      .addZipCode(state: StateName("Ohio"), zipCode: ZipCode("43001")), with: USStateDecider.self)
    #expect(zip.events.map(\.sequence) == [2])
    #expect(zip.events.map(\.version) == [2])
    let (events, version) = try writer.events(inStream: "state-Ohio")
    #expect(events.map(\.type) == ["StateAdded", "ZipCodeAdded"] && version == 2)
    #expect(try writer.streamNames(withPrefix: "state-") == ["state-Ohio"])
  }
}
