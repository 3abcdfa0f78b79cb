import Foundation
import Testing

@testable import Engine
@testable import Events

/// `LogMigration`: a plaintext log copied with its contacts sealed, everything else the same.
@Suite struct LogMigrationTests {
  /// A log written before sealing: its contact payloads at schema 1, in clear.
  static func plaintextLog(at path: String) throws {
    let record = ContactRecord(
      id: ContactID(unchecked: "13"), name: "Miss Piggy", emailAddress: "piggy@muppets.example")
    var lines: [UInt8] = []
    let payloads: [(String, String, [UInt8])] = [
      ("contact-13", "ContactAdded", ContactAdded(record: record).encodedData),
      ("state-Ohio", "StateAdded", Array(#"{"state":"Ohio"}"#.utf8)),
      ("contact-13", "ContactFavorited", Array(#"{"id":"13"}"#.utf8)),
    ]
    var versions: [String: Int64] = [:]
    for (index, (stream, type, data)) in payloads.enumerated() {
      let version = (versions[stream] ?? 0) + 1
      versions[stream] = version
      data.withUnsafeBytes { data in
        LogLineCodec.encode(
          sequence: Int64(index + 1), id: EventID(high: 1, low: UInt64(index + 1)), stream: stream,
          version: version, type: type, schemaVersion: 1,
          timestamp: Timestamp(millisecondsSince1970: 1_790_000_000_000), batch: nil,
          metadata: EventMetadata(actor: "ana"), data: data, into: &lines)
      }
    }
    try writeBytes(lines, to: path)
  }

  @Test func theCopyIsSealedTheSameOtherwiseAndTheOldLogUntouched() throws {
    try withTemporaryDirectory { directory in
      let old = directory + "/old.jsonl"
      let new = directory + "/new.jsonl"
      try Self.plaintextLog(at: old)
      let before = try fileBytes(old)
      let summary = try LogMigration(source: old, output: new).run()
      #expect(summary.eventCount == 3 && summary.sealedCount == 1 && summary.keysMade == 1)
      #expect(summary.comparedAt == [1, 2, 3])
      #expect(try fileBytes(old) == before)
      #expect(!FileManager.default.fileExists(atPath: KeyStore.path(forLog: old)))
      let oldEvents = try readAll(old)
      let newEvents = try readAll(new)
      #expect(newEvents.map(\.id) == oldEvents.map(\.id))
      #expect(newEvents.map(\.sequence) == oldEvents.map(\.sequence))
      #expect(newEvents.map(\.timestamp) == oldEvents.map(\.timestamp))
      #expect(newEvents.map(\.metadata) == oldEvents.map(\.metadata))
      #expect(newEvents.map(\.schemaVersion) == [2, 1, 1])
      #expect(newEvents[1] == oldEvents[1] && newEvents[2] == oldEvents[2])
      #expect(!String(decoding: try fileBytes(new), as: UTF8.self).contains("Piggy"))
      #expect(try LogVerifier(path: new).verify().isValid)
      // Erasable now: the contact's data opens no more.
      let log = try EventLog(path: new, configuration: testConfiguration())
      _ = try log.eraseContact(ContactID(unchecked: "13"))
      let models = try Replayer(reader: LogReader(path: new)).readModels(at: .end).models
      #expect(models.contacts.contact(ContactID(unchecked: "13"))?.name == ContactRecord.erasedName)
      // Migrating again onto an existing output is refused, nothing written.
      let keys = try fileBytes(KeyStore.path(forLog: new))
      #expect(throws: ExportError.self) { try LogMigration(source: old, output: new).run() }
      #expect(try fileBytes(KeyStore.path(forLog: new)) == keys)
    }
  }

  @Test func aPartlySealedLogKeepsItsKeysAndSealsTheRestUnderThem() throws {
    try withTemporaryDirectory { directory in
      let old = directory + "/old.jsonl"
      let new = directory + "/new.jsonl"
      try Self.plaintextLog(at: old)
      // After the upgrade the same log gets a sealed update for the contact.
      let log = try EventLog(path: old, configuration: testConfiguration())
      var update = ContactUpdated(id: ContactID(unchecked: "13"))
      update.city = .set("New York")
      let (stream, event) = EventVocabulary.proposedEvent(.contact(.updated(update)))
      try log.append([event], to: stream)
      let oldKeys = try KeyStore(logPath: old)
      let summary = try LogMigration(source: old, output: new).run()
      #expect(summary.sealedCount == 1 && summary.alreadySealedCount == 1)
      #expect(summary.keysCarriedOver == 1 && summary.keysMade == 0)
      let newKeys = try KeyStore(logPath: new)
      #expect(newKeys.keys == oldKeys.keys)
      let models = try Replayer(reader: LogReader(path: new)).readModels(at: .end).models
      let contact = models.contacts.contact(ContactID(unchecked: "13"))
      #expect(contact?.name == "Miss Piggy" && contact?.address.city == "New York")
    }
  }

  @Test func comparisonPointsAreSpreadAndEndAtTheLast() {
    #expect(LogMigration.spread([], count: 12) == [])
    #expect(LogMigration.spread([3, 5], count: 12) == [3, 5])
    let points = LogMigration.spread(Array(1...1000), count: 4)
    #expect(points == [251, 501, 751, 1000])
  }
}
