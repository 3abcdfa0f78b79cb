import Foundation
import Projections
import Testing

@testable import Engine
@testable import Events

/// Contacts' personal data sealed on the way in, opened on the way out, and erased.
@Suite struct PersonalDataTests {
  static let piggy = ContactRecord(
    id: ContactID(unchecked: "13"), name: "Miss Piggy", companyName: "Muppets, Baby",
    emailAddress: "Miss.Piggy@muppetsbaby.com", phone: PhoneNumbers(work: "602-225-9543"))

  func add(_ record: ContactRecord, to log: EventLog, id: EventID? = nil) throws -> RecordedEvent {
    let (stream, event) = EventVocabulary.proposedEvent(
      .contact(.added(ContactAdded(record: record))), id: id)
    return try log.append([event], to: stream)[0].event
  }

  func contacts(_ path: String) throws -> ContactList {
    var models = ReadModels()
    for event in try readAll(path) { try models.fold(event, path: path) }
    return models.contacts
  }

  @Test func writesSealTheFieldsAndReadsOpenThem() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let recorded = try add(Self.piggy, to: log)
      #expect(recorded.schemaVersion == 2)
      let text = String(decoding: try fileBytes(path), as: UTF8.self)
      #expect(!text.contains("Piggy") && !text.contains("602-225"))
      #expect(text.contains(#""companyName":"Muppets, Baby","isFavorite":false"#))
      #expect(try contacts(path).contact(Self.piggy.id) == Self.piggy)
      // Decode → encode gives the stored bytes back (the sealed form is kept).
      let decoded = try EventVocabulary.decode(recorded)
      #expect(decoded.map(EventVocabulary.encode)?.data == recorded.data)
      // One key per contact, reused by its later events.
      var update = ContactUpdated(id: Self.piggy.id)
      update.city = .set("Phoenix")
      let (stream, event) = EventVocabulary.proposedEvent(.contact(.updated(update)))
      try log.append([event], to: stream)
      let store = try KeyStore(logPath: path)
      #expect(store.keys.count == 1)
      #expect(try contacts(path).contact(Self.piggy.id)?.address.city == "Phoenix")
    }
  }

  @Test func aRetriedWriteWithTheSameIdIsADuplicateNotAConflict() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let id = EventID(high: 7, low: 7)
      let first = try add(Self.piggy, to: log, id: id)
      let (stream, event) = EventVocabulary.proposedEvent(
        .contact(.added(ContactAdded(record: Self.piggy))), id: id)
      let outcome = try log.append([event], to: stream)[0]
      #expect(outcome.isDuplicate && outcome.event == first)
      var other = Self.piggy
      other.name = "Someone Else"
      let (_, changed) = EventVocabulary.proposedEvent(
        .contact(.added(ContactAdded(record: other))), id: id)
      #expect(throws: EngineError.self) { try log.append([changed], to: stream) }
    }
  }

  @Test func aSealedRecordMovedToAnotherEventOrChangedDoesNotOpen() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let recorded = try add(Self.piggy, to: log)
      // The same sealed payload offered under another id: refused, nothing written.
      let before = try fileBytes(path)
      let copy = ProposedEvent(
        id: EventID(high: 9, low: 9), type: recorded.type, schemaVersion: 2, data: recorded.data)
      #expect(throws: EngineError.self) {
        try log.append([copy], to: recorded.stream, expectedVersion: .any)
      }
      #expect(try fileBytes(path) == before)
      // Opening with the wrong binding fails.
      guard let decoded = try EventVocabulary.decode(recorded) else { return }
      #expect(throws: EngineError.self) {
        try PersonalData.open(
          decoded, id: EventID(high: 1, low: 1), stream: recorded.stream, sequence: 1,
          log: OpenLog.named(path))
      }
    }
  }

  @Test func aRefusedWriteLeavesTheKeyStoreAsItWasAndAWriteItsKeysInOneLine() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let recorded = try add(Self.piggy, to: log)
      let keysBefore = try fileBytes(KeyStore.path(forLog: path))
      let logBefore = try fileBytes(path)
      // A new contact, then a sealed payload that does not open here: the new contact's key
      // was made while sealing, but the write is refused, so it never reaches the store.
      var kermit = Self.piggy
      kermit.id = ContactID(unchecked: "14")
      kermit.name = "Kermit"
      let (kermitStream, kermitEvent) = EventVocabulary.proposedEvent(
        .contact(.added(ContactAdded(record: kermit))))
      let moved = ProposedEvent(
        id: EventID(high: 9, low: 9), type: recorded.type, schemaVersion: 2, data: recorded.data)
      #expect(throws: EngineError.self) {
        try log.append([
          EventLog.StreamWrite(stream: kermitStream, events: [kermitEvent]),
          EventLog.StreamWrite(stream: recorded.stream, events: [moved]),
        ])
      }
      #expect(try fileBytes(KeyStore.path(forLog: path)) == keysBefore)
      #expect(try fileBytes(path) == logBefore)
      // Three new contacts in one import: three keys, each readable, written together.
      let writes = (20..<23).map { number in
        var record = Self.piggy
        record.id = ContactID(unchecked: String(number))
        let (stream, event) = EventVocabulary.proposedEvent(
          .contact(.added(ContactAdded(record: record))))
        return EventLog.StreamWrite(stream: stream, events: [event])
      }
      try log.importEvents(writes, chunkSize: 1)
      let store = try KeyStore(logPath: path)
      #expect(store.keys.count == 4)
      #expect(try contacts(path).contact(ContactID(unchecked: "21"))?.name == "Miss Piggy")
    }
  }

  @Test func withoutItsKeyStoreALogIsAnErrorNotAnErasure() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      _ = try add(Self.piggy, to: log)
      try FileManager.default.removeItem(atPath: KeyStore.path(forLog: path))
      #expect {
        _ = try contacts(path)
      } throws: { error in
        guard case EngineError.keyStore(.missingKey(_, _, let contact)) = error else {
          return false
        }
        return contact == "13"
      }
    }
  }

  @Test func anEraseDestroysTheKeyAndEveryPointShowsTheContactErased() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      _ = try add(Self.piggy, to: log)
      let bytes = try fileBytes(path)
      let erasure = try log.eraseContact(Self.piggy.id, metadata: EventMetadata(actor: "dpo"))
      #expect(erasure.event?.type == "ContactErased" && erasure.destroyedKeyCount == 1)
      #expect(try fileBytes(path).starts(with: bytes))
      let shown = try contacts(path).contact(Self.piggy.id)
      #expect(shown?.name == ContactRecord.erasedName && shown?.emailAddress == nil)
      #expect(shown?.companyName == "Muppets, Baby")
      // Only the first event, before the erasure: erased as well.
      var models = ReadModels()
      try models.fold(try readAll(path)[0], path: path)
      #expect(models.contacts.contact(Self.piggy.id)?.name == ContactRecord.erasedName)
      let twice = try log.eraseContact(Self.piggy.id)
      #expect(twice.event == nil && twice.noChangeReason == "contact '13' is already erased")
      #expect(throws: EventsError.self) { try log.eraseContact(ContactID(unchecked: "404")) }
    }
  }

  @Test func aReadNeverTakesAKeyStoreCopyOlderThanTheFile() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      var kermit = Self.piggy
      kermit.id = ContactID(unchecked: "14")
      _ = try add(Self.piggy, to: log)
      _ = try add(kermit, to: log)
      let before = try KeyStore(logPath: path)
      guard let piggyKey = before.key(forContact: "13")?.id,
        let kermitKey = before.key(forContact: "14")?.id
      else {
        Issue.record("no keys")
        return
      }
      // This process holds the whole store; then another writer destroys Miss Piggy's key.
      let open = OpenLog.named(path)
      _ = try open.keys.store()
      var other = try KeyStore(logPath: path)
      try other.erase(contact: "13")
      // A read that looks up another key first must not adopt the copy held from before.
      var ring = PersonalData.KeyRing(open)
      guard case .present = try ring.lookup(kermitKey) else {
        Issue.record("Kermit's key should be there")
        return
      }
      #expect(try ring.lookup(piggyKey) == .erased(contact: "13"))
    }
  }

  @Test func anEraseACrashInterruptedIsFinishedOrAbandonedByTheNextWriter() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let reports = ReportCollector()
      do {
        let log = try EventLog(path: path, configuration: testConfiguration())
        _ = try add(Self.piggy, to: log)
        var kermit = Self.piggy
        kermit.id = ContactID(unchecked: "9")
        kermit.name = "Kermit"
        _ = try add(kermit, to: log)
        // Crash after the mark and the event, before the key's destruction.
        var store = try KeyStore(logPath: path)
        try store.beginErasure(contact: "13")
        let (stream, event) = EventVocabulary.proposedEvent(
          .contact(.erased(ContactErased(id: Self.piggy.id))))
        try log.append([event], to: stream)
      }
      #expect(KeyStore.endsWithPendingErasure(logPath: path))
      let next = try EventLog(path: path, configuration: testConfiguration(reports: reports))
      try next.refresh()
      #expect(!KeyStore.endsWithPendingErasure(logPath: path))
      let store = try KeyStore(logPath: path)
      #expect(store.key(forContact: "13") == nil && store.key(forContact: "9") != nil)
      #expect(reports.messages.contains { $0.contains("finished erasing contact 13") })
      // Crash after the mark, before the event: the contact stays as it was.
      var again = try KeyStore(logPath: path)
      try again.beginErasure(contact: "9")
      let third = try EventLog(path: path, configuration: testConfiguration(reports: reports))
      try third.refresh()
      #expect(try KeyStore(logPath: path).key(forContact: "9") != nil)
      #expect(try KeyStore(logPath: path).pendingErasures.isEmpty)
      #expect(try contacts(path).contact(ContactID(unchecked: "9"))?.name == "Kermit")
    }
  }
}
