import Events
import Foundation
import Testing

@testable import Engine

/// A library user's own event type, changed twice: every line written at v1, v2 and v3 reads
/// back at v3, the log unchanged.
@Suite struct PayloadUpcastersTests {
  static func upcasters() throws -> PayloadUpcasters {
    var upcasters = PayloadUpcasters()
    // v1 → v2: `body` renamed `text`.
    try upcasters.register(type: "NoteAdded", from: 1) { payload in
      var object = payload.objectValue ?? JSONObject()
      object["text"] = object["body"]
      object["body"] = nil
      return .object(object)
    }
    // v2 → v3: `pinned` added, false for older notes.
    try upcasters.register(type: "NoteAdded", from: 2) { payload in
      var object = payload.objectValue ?? JSONObject()
      if object["pinned"] == nil { object["pinned"] = .bool(false) }
      return .object(object)
    }
    return upcasters
  }

  @Test func aChainBringsEveryVersionToTheNewest() async throws {
    try await withAsyncTemporaryDirectory { directory in
      let path = directory + "/notes.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [
          ProposedEvent(type: "NoteAdded", schemaVersion: 1, data: Array(#"{"body":"a"}"#.utf8)),
          ProposedEvent(type: "NoteAdded", schemaVersion: 2, data: Array(#"{"text":"b"}"#.utf8)),
          ProposedEvent(
            type: "NoteAdded", schemaVersion: 3,
            data: Array(#"{"text":"c","pinned":true}"#.utf8)),
          ProposedEvent(type: "NoteRemoved", data: Array(#"{}"#.utf8)),
        ], to: "note-1")
      let before = try fileBytes(path)
      let store = try await EventStore(
        path: path, configuration: testConfiguration(), upcasters: try Self.upcasters())
      let (events, version) = try await store.recordedEvents(inStream: "note-1")
      #expect(version == 4)
      #expect(events.map(\.schemaVersion) == [3, 3, 3, 1])
      #expect(
        events.map { String(decoding: $0.data, as: UTF8.self) } == [
          #"{"text":"a","pinned":false}"#, #"{"text":"b","pinned":false}"#,
          #"{"text":"c","pinned":true}"#, "{}",
        ])
      #expect(try fileBytes(path) == before)
    }
  }

  @Test func registrationsAndFailuresAreNamed() throws {
    var upcasters = try Self.upcasters()
    #expect(upcasters.newestVersion(of: "NoteAdded") == 3)
    #expect(throws: UpcastError.self) {
      try upcasters.register(type: "ContactAdded", from: 1) { $0 }
    }
    #expect(throws: UpcastError.self) { try upcasters.register(type: "NoteAdded", from: 1) { $0 } }
    #expect(throws: UpcastError.self) { try upcasters.register(type: "NoteAdded", from: 0) { $0 } }
    let broken = RecordedEvent(
      sequence: 1, id: EventID(high: 1, low: 1), stream: "note-1", version: 1, type: "NoteAdded",
      schemaVersion: 1, timestamp: Timestamp(millisecondsSince1970: 0), data: Array("{".utf8))
    #expect(throws: UpcastError.self) { try upcasters.upcast(broken) }
    var gapped = PayloadUpcasters()
    try gapped.register(type: "T", from: 1) { $0 }
    try gapped.register(type: "T", from: 3) { $0 }
    var event = broken
    event.type = "T"
    event.data = Array("{}".utf8)
    #expect(throws: UpcastError.gap(type: "T", from: 2, newest: 4)) { try gapped.upcast(event) }
  }
}
