import Events
import Foundation
import Testing

@testable import Engine
@testable import Projections

/// Streams and ids that are equal as text but not as bytes ("é" composed and decomposed) stay
/// two streams and two entities through appends, replay, checkpoints and diffs.
@Suite struct ByteIdentityReplayTests {
  static let composed = "\u{E9}"
  static let decomposed = "e\u{301}"

  @Test func twoContactsStayTwoThroughReplayCheckpointsAndDiff() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      for (id, name) in [(Self.composed, "Composed"), (Self.decomposed, "Decomposed")] {
        try log.append(
          [proposed("ContactAdded", #"{"id":"\#(id)","name":"\#(name)","isFavorite":false}"#)],
          to: "contact-\(id)", expectedVersion: .noStream)
      }
      for id in [Self.decomposed, Self.composed] {
        try log.append(
          [proposed("ContactFavorited", #"{"id":"\#(id)"}"#)], to: "contact-\(id)",
          expectedVersion: .exactly(1))
      }
      #expect(try log.version(of: "contact-\(Self.composed)") == 2)
      #expect(try log.version(of: "contact-\(Self.decomposed)") == 2)

      let store = CheckpointStore(logPath: path)
      let saving = Replayer(reader: LogReader(path: path), checkpoints: store)
      let full = try saving.readModels(at: .end, saveEvery: 2)
      #expect(full.checkpointsSaved == [2, 4])
      let contacts = full.models.contacts
      #expect(contacts.count == 2)
      #expect(contacts.entries.count == 2)
      #expect(contacts.entries[EntityKey(Self.composed)]?["name"] == "Composed")
      #expect(contacts.entries[EntityKey(Self.decomposed)]?["name"] == "Decomposed")

      let resumed = try saving.readModels(at: .sequence(3))
      #expect(resumed.startedFrom == 2)
      let plain = try Replayer(reader: LogReader(path: path)).readModels(at: .sequence(3))
      #expect(resumed.models == plain.models)
      #expect(resumed.models.contacts.entries == plain.models.contacts.entries)
      #expect(resumed.models.contacts.entries.count == 2)
      let atEnd = try saving.readModels(at: .end)
      #expect(atEnd.startedFrom == 4)
      #expect(atEnd.models == full.models)
      #expect(atEnd.models.contacts.entries == contacts.entries)

      let diff = try Replayer(reader: LogReader(path: path)).diff(
        model: "contacts", from: .sequence(1), to: .end)
      #expect(diff.changes.added.map(\.id) == [Self.decomposed])
      #expect(diff.changes.changed.map(\.id) == [Self.composed])
      #expect(diff.changes.removed.isEmpty)
      let favorites = try Replayer(reader: LogReader(path: path)).diff(
        model: "contacts", from: .sequence(2), to: .end)
      let favorited = [
        EntryDiff.FieldDifference(
          name: "isFavorite", before: "false", after: "true", kind: .boolean)
      ]
      #expect(
        favorites.changes.changed == [
          EntryDiff.Change(id: Self.decomposed, fields: favorited),
          EntryDiff.Change(id: Self.composed, fields: favorited),
        ])
      #expect(
        favorites.labels == [
          EntityKey(Self.composed): "Composed", EntityKey(Self.decomposed): "Decomposed",
        ])
    }
  }

  /// Another tool may write a stream name escaped; it is still compared by its bytes.
  @Test func anEscapedNameIsComparedByItsDecodedBytes() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [
          proposed(
            "ContactAdded", #"{"id":"\#(Self.composed)","name":"Composed","isFavorite":false}"#)
        ],
        to: "contact-\(Self.composed)")
      let body =
        #"{"seq":2,"id":"2e4deec3-25f6-49d6-8328-58449a75b630","stream":"contact-e\u0301","#
        + #""version":1,"type":"ContactAdded","schema":1,"at":"2026-09-21T14:13:20.000Z","#
        + #""data":{"id":"e\u0301","name":"Decomposed","isFavorite":false}"#
      let line = body + String(format: #","crc":"%08x"}"#, CRC32C.checksum(of: body)) + "\n"
      let handle = try #require(FileHandle(forWritingAtPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(line.utf8))
      try handle.close()

      let scanned = try LogReader(path: path).events(inStreams: ["contact-\(Self.composed)"])
      #expect(scanned["contact-\(Self.composed)"]?.events.map(\.sequence) == [1])
      let reopened = try EventLog(path: path, configuration: testConfiguration())
      #expect(try reopened.version(of: "contact-\(Self.composed)") == 1)
      #expect(try reopened.version(of: "contact-\(Self.decomposed)") == 1)
      #expect(
        try Replayer(reader: LogReader(path: path)).readModels(at: .end).models.contacts.count == 2)
    }
  }

  /// One write to both spellings: two new streams at version 1, a log that opens again, and a
  /// verifier that counts two streams.
  @Test func oneWriteToBothSpellingsMakesTwoStreams() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [Self.composed, Self.decomposed].map { id in
          EventLog.StreamWrite(
            stream: "contact-\(id)", expectedVersion: .noStream,
            events: [proposed("ContactAdded", #"{"id":"\#(id)","name":"N","isFavorite":false}"#)])
        })
      #expect(try readAll(path).map(\.version) == [1, 1])
      let reopened = try EventLog(path: path, configuration: testConfiguration())
      #expect(try reopened.version(of: "contact-\(Self.decomposed)") == 1)
      let report = try LogVerifier(path: path).verify()
      #expect(report.problems.isEmpty)
      #expect(report.streamCount == 2)
    }
  }
}
