import Events
import Foundation
import Testing

@testable import Engine

@Suite struct EventLogTests {
  @Test func appendAssignsGaplessSequenceAndPerStreamVersions() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [proposed("ContactAdded", #"{"id":"1","name":"A","isFavorite":false}"#)], to: "contact-1")
      try log.append(
        [proposed("ContactAdded", #"{"id":"2","name":"B","isFavorite":false}"#)], to: "contact-2")
      try log.append(
        [
          proposed("ContactFavorited", #"{"id":"1"}"#),
          proposed("ContactUnfavorited", #"{"id":"1"}"#),
        ],
        to: "contact-1", expectedVersion: .exactly(1))
      let events = try readAll(path)
      #expect(events.map(\.sequence) == [1, 2, 3, 4])
      #expect(events.map(\.version) == [1, 1, 2, 3])
      #expect(events.map(\.stream) == ["contact-1", "contact-2", "contact-1", "contact-1"])
      #expect(events.map(\.batch) == [nil, nil, 3...4, 3...4])
      #expect(try log.version(of: "contact-1") == 3)
      #expect(log.lastSequence == 4)
    }
  }

  @Test func openingAMissingLogCreatesNothingUntilTheFirstAppend() async throws {
    try await withAsyncTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let store = try await EventStore(path: path, configuration: testConfiguration())
      // Reads of the missing log see an empty one and still create nothing.
      #expect(try log.events(inStream: "contact-1").version == 0)
      #expect(try log.version(of: "contact-1") == 0)
      try log.refresh()
      try log.saveIndex()
      // Readers of the log itself still find no log.
      await #expect(throws: EngineError.fileNotFound(path: path)) { try await store.readModels() }
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
      try await store.handle(
        ContactCommand.addContact(try ContactRecord(id: ContactID("1"), name: "A")))
      #expect(try readAll(path).map(\.type) == ["ContactAdded"])
      try log.refresh()
      #expect(log.lastSequence == 1)
    }
  }

  @Test func encodedLineHasTheDocumentedLayout() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [
          ProposedEvent(
            type: "ContactFavorited", data: Array(#"{"id":"13"}"#.utf8),
            metadata: EventMetadata(actor: "ana", reason: "asked"))
        ], to: "contact-13")
      let text = String(decoding: try fileBytes(path), as: UTF8.self)
      #expect(
        text
          == #"{"seq":1,"id":"11110000-0000-4000-8000-000000000001","stream":"contact-13","version":1,"type":"ContactFavorited","schema":1,"at":"2026-09-21T14:13:20.000Z","meta":{"actor":"ana","reason":"asked"},"data":{"id":"13"},"crc":"\#(crcOf(text))"}"#
          + "\n")
    }
  }

  private func crcOf(_ line: String) -> String {
    let body = line.components(separatedBy: ",\"crc\":")[0]
    return String(format: "%08x", CRC32C.checksum(of: body))
  }

  @Test func expectedVersionMismatchIsAConflictAndWritesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("A", "{}")], to: "s-1")
      let before = try fileBytes(path)
      #expect(throws: EngineError.versionConflict(stream: "s-1", expected: .noStream, actual: 1)) {
        try log.append([proposed("A", "{}")], to: "s-1", expectedVersion: .noStream)
      }
      #expect(throws: EngineError.versionConflict(stream: "s-1", expected: .exactly(3), actual: 1))
      {
        try log.append([proposed("A", "{}")], to: "s-1", expectedVersion: .exactly(3))
      }
      #expect(throws: EngineError.versionConflict(stream: "s-2", expected: .exactly(1), actual: 0))
      {
        try log.append([proposed("A", "{}")], to: "s-2", expectedVersion: .exactly(1))
      }
      #expect(try fileBytes(path) == before)
      try log.append([proposed("A", "{}")], to: "s-1", expectedVersion: .exactly(1))
      try log.append([proposed("A", "{}")], to: "s-2", expectedVersion: .noStream)
      #expect(try readAll(path).count == 3)
    }
  }

  @Test func conflictMessageNamesStreamExpectedAndActual() {
    let error = EngineError.versionConflict(stream: "contact-4", expected: .exactly(2), actual: 5)
    #expect(
      error.description
        == "stream 'contact-4' has version 5, but the append expected version 2; reload the stream and retry"
    )
  }

  @Test func duplicateIDWithSameContentAppendsNothingAndReportsTheExistingEvent() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let id = try #require(EventID("6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"))
      try log.append([proposed("A", #"{"x":1}"#)], to: "s-0")
      try log.append([proposed("A", #"{"x":1}"#, id: id)], to: "s-1")
      let before = try fileBytes(path)
      let outcomes = try log.append(
        [proposed("A", #"{"x":1}"#, id: id, actor: "someone else")], to: "s-1",
        expectedVersion: .noStream)
      #expect(outcomes.count == 1)
      #expect(outcomes[0].isDuplicate)
      #expect(outcomes[0].event.sequence == 2)
      #expect(outcomes[0].event.id == id)
      #expect(try fileBytes(path) == before)
    }
  }

  @Test func duplicateIDWithDifferentContentIsAnErrorAndWritesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let id = try #require(EventID("6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"))
      try log.append([proposed("A", #"{"x":1}"#, id: id)], to: "s-1")
      let before = try fileBytes(path)
      #expect(
        throws: EngineError.duplicateEventID(
          id: id, existingSequence: 1, difference: #"data {"x":1} there, {"x":2} here"#)
      ) {
        try log.append([proposed("A", #"{"x":2}"#, id: id)], to: "s-1")
      }
      #expect(
        throws: EngineError.duplicateEventID(
          id: id, existingSequence: 1, difference: "stream 's-1' there, 's-2' here")
      ) {
        try log.append([proposed("A", #"{"x":1}"#, id: id)], to: "s-2")
      }
      #expect(try fileBytes(path) == before)
    }
  }

  @Test(arguments: [
    ("", #"{}"#, "an event type name is empty"),
    ("9Lives", #"{}"#, "event type '9Lives' must start with a letter (A-Z or a-z)"),
    ("A", #"[1]"#, "data must be a JSON object, found another value"),
    (
      "A", #"{"a":}"#,
      "data is not valid JSON: expected a value (object, array, string, number, true, false or null), found '}' at byte 5"
    ),
    ("A", "{\n}", "data must be compact JSON without line breaks"),
  ])
  func invalidEventsAreRejectedAndWriteNothing(type: String, data: String, message: String) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("A", "{}")], to: "s-1")
      let before = try fileBytes(path)
      #expect(throws: EngineError.invalidEvent(location: nil, problem: message)) {
        try log.append([proposed(type, data)], to: "s-1")
      }
      #expect(try fileBytes(path) == before)
    }
  }

  /// A write to one stream counts its versions on alone; a write to several keeps a table of
  /// the streams it met, so a stream met again in a later part of the write counts on from
  /// there. An id twice in one write is refused, whichever part holds it.
  @Test func versionsCountOnWithinAWriteAndAnIDTwiceInItIsRefused() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("A", "{}")], to: "s-1")
      try log.append([proposed("A", "{}"), proposed("A", "{}"), proposed("A", "{}")], to: "s-1")
      try log.append([
        EventLog.StreamWrite(stream: "s-1", events: [proposed("A", "{}")]),
        EventLog.StreamWrite(stream: "s-2", events: [proposed("A", "{}"), proposed("A", "{}")]),
        EventLog.StreamWrite(stream: "s-1", events: [proposed("A", "{}")]),
      ])
      let events = try readAll(path)
      #expect(events.map(\.stream) == ["s-1", "s-1", "s-1", "s-1", "s-1", "s-2", "s-2", "s-1"])
      #expect(events.map(\.version) == [1, 2, 3, 4, 5, 1, 2, 6])
      #expect(try log.version(of: "s-1") == 6)

      let before = try fileBytes(path)
      let id = try #require(EventID("0b5c3f1e-4a7d-4c2b-9e8f-1a2b3c4d5e6f"))
      #expect(
        throws: EngineError.invalidEvent(
          location: "event 2 of 2",
          problem: "event id \(id) appears twice in this write (also for stream 's-3')")
      ) {
        try log.append([proposed("A", "{}", id: id), proposed("A", "{}", id: id)], to: "s-3")
      }
      #expect(
        throws: EngineError.invalidEvent(
          location: "event 2 of 2",
          problem: "event id \(id) appears twice in this write (also for stream 's-3')")
      ) {
        try log.append([
          EventLog.StreamWrite(stream: "s-3", events: [proposed("A", "{}", id: id)]),
          EventLog.StreamWrite(stream: "s-4", events: [proposed("A", "{}", id: id)]),
        ])
      }
      #expect(try fileBytes(path) == before)
      // One event with an id is written (a write of one event keeps no table of its ids).
      try log.append([proposed("A", "{}", id: id)], to: "s-3")
      #expect(try readAll(path).last?.id == id)
    }
  }

  @Test func multiStreamWriteIsAllOrNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("A", "{}")], to: "s-2")
      let before = try fileBytes(path)
      #expect(throws: EngineError.self) {
        try log.append([
          EventLog.StreamWrite(stream: "s-1", events: [proposed("A", "{}")]),
          EventLog.StreamWrite(
            stream: "s-2", expectedVersion: .noStream, events: [proposed("A", "{}")]),
        ])
      }
      #expect(try fileBytes(path) == before)
    }
  }

  @Test func importWritesEverythingInChunksAsOneBatch() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let writes = (1...25).map { number in
        EventLog.StreamWrite(
          stream: "s-\(number % 4)", events: [proposed("A", #"{"n":\#(number)}"#)])
      }
      let summary = try log.importEvents(writes, chunkSize: 7)
      #expect(
        summary == EventLog.ImportSummary(appendedCount: 25, duplicateCount: 0, sequences: 1...25))
      let events = try readAll(path)
      #expect(events.count == 25)
      #expect(Set(events.map(\.batch)) == [1...25])
      let again = try log.importEvents(
        writes.enumerated().map { index, write in
          var write = write
          write.events[0].id = events[index].id
          return write
        }, chunkSize: 7)
      #expect(again == EventLog.ImportSummary(appendedCount: 0, duplicateCount: 25, sequences: nil))
    }
  }

  @Test func secondWriterSeesTheFirstWritersAppends() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let first = try EventLog(path: path, configuration: testConfiguration())
      let second = try EventLog(path: path, configuration: testConfiguration())
      try first.append([proposed("A", "{}")], to: "s-1")
      try second.append([proposed("A", "{}")], to: "s-1", expectedVersion: .exactly(1))
      try first.append([proposed("A", "{}")], to: "s-1", expectedVersion: .exactly(2))
      #expect(try readAll(path).map(\.sequence) == [1, 2, 3])
    }
  }
}
