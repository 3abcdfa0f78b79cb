import Foundation
import Projections
import Testing

@testable import Engine
@testable import Events

/// Imports are checked, sealed and written a chunk at a time, each chunk while the one before
/// it syncs: a bad event in a later chunk must still leave the log and its key store as they
/// were, and the chunking must not change a byte of what is written.
@Suite struct ChunkedImportTests {
  /// Synced (so that chunks sync in the background), with seeded sealing (so that two logs
  /// written alike hold the same bytes).
  func configuration() -> EventLog.Configuration {
    var configuration = testConfiguration()
    configuration.syncPolicy = .always
    configuration.sealingSeed = "chunks"
    return configuration
  }

  /// 30 single-event writes: a new contact every third event (plaintext, so sealing makes a
  /// key for each), the rest favourites and notes on other streams.
  func writes() -> [EventLog.StreamWrite] {
    (1...30).map { number in
      if number % 3 == 1 {
        let record = ContactRecord(
          id: ContactID(unchecked: "c\(number)"), name: "Contact \(number)",
          emailAddress: "c\(number)@example.com", phone: PhoneNumbers(work: "555-01\(number)"))
        let (stream, event) = EventVocabulary.proposedEvent(
          .contact(.added(ContactAdded(record: record))))
        return EventLog.StreamWrite(stream: stream, events: [event])
      }
      return EventLog.StreamWrite(
        stream: "note-\(number % 4)", events: [proposed("Noted", #"{"n":\#(number)}"#)])
    }
  }

  /// A log with a contact already in it (so the key store exists) and a few other events.
  func seededLog(_ path: String) throws -> EventLog {
    let log = try EventLog(path: path, configuration: configuration())
    let record = ContactRecord(id: ContactID(unchecked: "13"), name: "Miss Piggy")
    let (stream, event) = EventVocabulary.proposedEvent(
      .contact(.added(ContactAdded(record: record))), id: EventID(high: 7, low: 7))
    try log.append([event], to: stream)
    try log.append([proposed("Noted", #"{"n":0}"#)], to: "note-0")
    return log
  }

  enum BadEvent: CaseIterable {
    case invalidData, versionConflict, changedDuplicate, idTwice, sealedElsewhere, badStreamName
  }

  /// The 30 writes with one bad event at position 23 (the fifth chunk of 5).
  func writes(with bad: BadEvent) -> [EventLog.StreamWrite] {
    var writes = writes()
    switch bad {
    case .invalidData:
      writes[22].events[0].data = Array(#"{"n":}"#.utf8)
    case .versionConflict:
      writes[22].expectedVersion = .exactly(99)
    case .changedDuplicate:
      // The id of the contact already in the log, with other data.
      writes[22].events[0].id = EventID(high: 7, low: 7)
    case .idTwice:
      writes[2].events[0].id = EventID(high: 5, low: 5)
      writes[22].events[0].id = EventID(high: 5, low: 5)
    case .sealedElsewhere:
      // A schema 2 contact event whose seal names a key this log's store does not hold (with
      // its id, as a copied line has it: only then can it be checked ahead of the write).
      writes[21].events[0].id = EventID(high: 9, low: 9)
      writes[21].events[0].schemaVersion = 2
      writes[21].events[0].data = Array(
        #"{"id":"c22","companyName":"","isFavorite":false,"sealed":{"key":"00000000000000ff","record":"AAAA"}}"#
          .utf8)
    case .badStreamName:
      writes[22].stream = "bad stream\n"
    }
    return writes
  }

  @Test(arguments: BadEvent.allCases)
  func aBadEventInALaterChunkLeavesTheLogAndItsKeysAsTheyWere(_ bad: BadEvent) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try seededLog(path)
      let logBefore = try fileBytes(path)
      let keysBefore = try fileBytes(KeyStore.path(forLog: path))
      #expect(throws: EngineError.self) {
        try log.importEvents(writes(with: bad), chunkSize: 5)
      }
      // Four chunks were written (and three synced) before the bad one: all cut back, and
      // none of the seven keys their contacts were sealed under reached the store.
      #expect(try fileBytes(path) == logBefore)
      #expect(try fileBytes(KeyStore.path(forLog: path)) == keysBefore)
      #expect(log.lastSequence == 2)
      // Its index forgot the events it had taken in: the third event (seq 3) was written and
      // cut, and "note-2" has events only in the write.
      let third = EventID(high: 0x1111_0000_0000_4000, low: 0x8000_0000_0000_0003)
      #expect(try !log.contains(eventID: third))
      #expect(try log.version(of: "note-2") == 0)
      #expect(try log.version(of: "note-0") == 1)
      // The writer goes on from where it was.
      let summary = try log.importEvents(writes(), chunkSize: 5)
      #expect(summary.sequences == 3...32)
      let events = try readAll(path)
      #expect(events.map(\.sequence) == Array(1...32))
      #expect(Set(events.dropFirst(2).map(\.batch)) == [3...32])
      #expect(try KeyStore(logPath: path).keys.count == 11)
      #expect(try log.contains(eventID: third))
      // Of 1...30, those not 1 more than a multiple of 3 (contacts), by their remainder by 4.
      #expect(try log.version(of: "note-2") == 6)
      #expect(try log.version(of: "note-0") == 5)
    }
  }

  /// A chosen clock earlier than the last event is refused before the keys that sealing made
  /// for the write reach the key store.
  @Test func aRefusedClockLeavesTheKeysAsTheyWere() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      _ = try seededLog(path)
      let logBefore = try fileBytes(path)
      let keysBefore = try fileBytes(KeyStore.path(forLog: path))
      var earlier = configuration()
      earlier.clock = { Timestamp(millisecondsSince1970: 1_000_000_000_000) }
      earlier.clockIsChosen = true
      let log = try EventLog(path: path, configuration: earlier)
      for chunk in [5, Int.max] {
        #expect(throws: EngineError.self) { try log.importEvents(writes(), chunkSize: chunk) }
        #expect(throws: EngineError.self) { try log.append([writes()[0]]) }
        #expect(try fileBytes(path) == logBefore)
        #expect(try fileBytes(KeyStore.path(forLog: path)) == keysBefore)
      }
    }
  }

  /// Large writes check each event's own rules ahead of the write on a second thread
  /// (`Prechecks`): what is refused, the error given and every byte written are the same
  /// whether every check is taken from there or none is.
  @Test(arguments: BadEvent.allCases)
  func checkingAheadChangesNoErrorAndNoByte(_ bad: BadEvent) throws {
    try withTemporaryDirectory { directory in
      var errors: [String] = []
      var logs: [[UInt8]] = []
      for use in [EventLog.Prechecks.Use.everyEvent, .never] {
        let path = directory + "/events-\(use).jsonl"
        _ = try seededLog(path)
        var configuration = configuration()
        configuration.prechecks = use
        let log = try EventLog(path: path, configuration: configuration)
        let before = try fileBytes(path)
        do {
          try log.importEvents(writes(with: bad), chunkSize: 5)
          Issue.record("\(bad) was written")
        } catch {
          errors.append("\(error)")
        }
        #expect(try fileBytes(path) == before)
        try log.importEvents(writes(), chunkSize: 5)
        logs.append(try fileBytes(path))
      }
      #expect(errors.count == 2 && errors.first == errors.last, "\(errors)")
      #expect(logs.count == 2 && logs.first == logs.last)
    }
  }

  /// A generated log's events offered as they are (its contacts sealed, its key store copied
  /// beside the new log): each sealed record is found to open ahead of the write, and the
  /// same bytes are written as when the write's thread opens every one.
  @Test func eventsOfferedSealedAreCheckedAheadAlike() throws {
    try withTemporaryDirectory { directory in
      let source = try makeGeneratedLog(in: directory, count: 3000, seed: "prechecks")
      let events = try readAll(source)
      #expect(events.contains { $0.schemaVersion == 2 })
      let writes = events.map { event in
        EventLog.StreamWrite(
          stream: event.stream,
          events: [
            ProposedEvent(
              id: event.id, type: event.type, schemaVersion: event.schemaVersion, data: event.data,
              metadata: event.metadata)
          ])
      }
      var logs: [[UInt8]] = []
      for use in [EventLog.Prechecks.Use.everyEvent, .never] {
        let path = directory + "/copy-\(use).jsonl"
        try FileManager.default.copyItem(
          atPath: KeyStore.path(forLog: source), toPath: KeyStore.path(forLog: path))
        var configuration = configuration()
        configuration.prechecks = use
        let log = try EventLog(path: path, configuration: configuration)
        let summary = try log.importEvents(writes, chunkSize: 100)
        #expect(summary.appendedCount == events.count)
        logs.append(try fileBytes(path))
      }
      #expect(logs.count == 2 && logs.first == logs.last)
    }
  }

  @Test func theChunkSizeChangesNoByte() throws {
    try withTemporaryDirectory { directory in
      var logs: [[UInt8]] = []
      var keys: [[UInt8]] = []
      for chunk in [1, 4, 7, 30, Int.max] {
        let path = directory + "/events-\(chunk).jsonl"
        let log = try seededLog(path)
        let summary = try log.importEvents(writes(), chunkSize: chunk)
        #expect(
          summary == EventLog.ImportSummary(appendedCount: 30, duplicateCount: 0, sequences: 3...32)
        )
        logs.append(try fileBytes(path))
        keys.append(try fileBytes(KeyStore.path(forLog: path)))
        var models = ReadModels()
        for event in try readAll(path) { try models.fold(event, path: path) }
        #expect(models.contacts.contact(ContactID(unchecked: "c28"))?.name == "Contact 28")
      }
      #expect(Set(logs).count == 1)
      #expect(Set(keys).count == 1)
    }
  }

  @Test func duplicatesBetweenAndAfterTheNewEventsAreCheckedAndSkipped() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: configuration())
      let first = (1...6).map { number in
        EventLog.StreamWrite(
          stream: "note-\(number)",
          events: [
            proposed("Noted", #"{"n":\#(number)}"#, id: EventID(high: 1, low: UInt64(number)))
          ])
      }
      try log.importEvents(first, chunkSize: 2)
      // New events with the first six offered again among them and after them.
      var mixed: [EventLog.StreamWrite] = []
      for number in 1...6 {
        mixed.append(first[number - 1])
        mixed.append(
          EventLog.StreamWrite(stream: "other", events: [proposed("Noted", #"{"m":\#(number)}"#)]))
      }
      mixed += first
      let summary = try log.importEvents(mixed, chunkSize: 4)
      #expect(
        summary == EventLog.ImportSummary(appendedCount: 6, duplicateCount: 12, sequences: 7...12))
      let events = try readAll(path)
      #expect(events.count == 12)
      #expect(events.dropFirst(6).map(\.version) == Array(1...6))
      #expect(Set(events.dropFirst(6).map(\.batch)) == [7...12])
      // A duplicate after the last new event whose data differs: refused, nothing written.
      let before = try fileBytes(path)
      var changed = mixed
      changed[changed.count - 1].events[0].data = Array(#"{"n":60}"#.utf8)
      changed.append(
        EventLog.StreamWrite(stream: "other", events: [proposed("Noted", #"{"m":7}"#)]))
      #expect(throws: EngineError.self) { try log.importEvents(changed, chunkSize: 4) }
      #expect(try fileBytes(path) == before)
      // Appends report each event, duplicates included, in order.
      let outcomes = try log.append([first[0], mixed[1], first[1]])
      #expect(outcomes.map(\.isDuplicate) == [true, false, true])
      #expect(outcomes.map(\.event.sequence) == [1, 13, 2])
    }
  }
}
