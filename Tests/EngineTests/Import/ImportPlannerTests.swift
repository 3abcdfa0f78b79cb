import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

/// Imports into real logs: counts, idempotency, the three-way rules, ids, races.
@Suite struct ImportPlannerTests {
  struct SeedCase: Sendable, CustomTestStringConvertible {
    var kind: ImportKind
    var file: String
    var records: Int
    var eventsByType: [String: Int]
    var testDescription: String { file }
  }

  static let seedCases: [SeedCase] = [
    SeedCase(
      kind: .observations, file: SeedData.observations, records: 11,
      eventsByType: ["ObservationRecorded": 11]),
    SeedCase(
      kind: .states, file: SeedData.statesPlist, records: 2,
      eventsByType: ["StateAdded": 2, "ZipCodeAdded": 4]),
    SeedCase(
      kind: .states, file: SeedData.statesJSON, records: 4,
      eventsByType: ["StateAdded": 4, "ZipCodeAdded": 16 + 17 + 17 + 17]),
    SeedCase(kind: .zoo, file: SeedData.zoo, records: 20, eventsByType: ["AnimalImported": 20]),
    SeedCase(
      kind: .locations, file: SeedData.locations, records: 11,
      eventsByType: ["LocationAdded": 11]),
    SeedCase(
      kind: .contacts, file: SeedData.contacts, records: 18, eventsByType: ["ContactAdded": 18]),
  ]

  @Test(arguments: seedCases)
  func everySeedFileImportsOnceAndAgainAppendsNothing(_ seed: SeedCase) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let parsed = try SeedData.parse(seed.kind, seed.file)
      let first = try importParsed(parsed, into: log)
      let total = seed.eventsByType.values.reduce(0, +)
      #expect(first.appendedCount == total)
      #expect(first.sequences == 1...Int64(total))
      #expect(first.plan.changedRecordCount == seed.records)
      #expect(
        Dictionary(uniqueKeysWithValues: first.plan.eventCounts.map { ($0.type, $0.count) })
          == seed.eventsByType)
      let stored = try readAll(path)
      #expect(stored.count == total)
      #expect(
        stored.allSatisfy { $0.metadata.reason == "import \(seed.kind.rawValue) from \(seed.file)" }
      )
      #expect(Set(stored.map(\.metadata.correlation)).count == 1)
      #expect(stored.allSatisfy { $0.dataText.contains(#""source":"\#(seed.file)""#) })

      let before = try fileBytes(path)
      let again = try importParsed(try SeedData.parse(seed.kind, seed.file), into: log)
      #expect(again.appendedCount == 0)
      #expect(again.plan.writes.isEmpty)
      #expect(again.plan.unchanged.count == seed.records)
      #expect(try fileBytes(path) == before)
    }
  }

  @Test func contactsImportFourFavorites() throws {
    try withTemporaryDirectory { directory in
      let log = try EventLog(path: directory + "/events.jsonl", configuration: testConfiguration())
      try importParsed(try SeedData.parse(.contacts, SeedData.contacts), into: log)
      var favorites: [String] = []
      for stream in try log.streamNames(withPrefix: "contact-").sorted() {
        let events = try log.events(inStream: stream).events.compactMap {
          try log.domainEvent(of: $0, for: ContactDecider.self)
        }
        if ContactDecider.fold(events).record?.isFavorite == true { favorites.append(stream) }
      }
      #expect(favorites == ["contact-16", "contact-4", "contact-5", "contact-6"])
    }
  }

  @Test func changedRecordsAppendTheMatchingChangeEvents() throws {
    try withTemporaryDirectory { directory in
      let log = try EventLog(path: directory + "/events.jsonl", configuration: testConfiguration())
      try importParsed(try SeedData.parse(.contacts, SeedData.contacts), into: log)
      try importParsed(try SeedData.parse(.locations, SeedData.locations), into: log)
      try importParsed(try SeedData.parse(.states, SeedData.statesPlist), into: log)

      var contacts = try JSONValue.parse(try SeedData.bytes(SeedData.contacts))
      try Self.editMember(
        &contacts, index: 0, path: ["phone", "work"], to: .string("602-555-0100"))
      try Self.editMember(&contacts, index: 2, path: ["isFavorite"], to: .bool(true))
      let contactResult = try importParsed(
        try parseSource(.contacts, jsonText(contacts), name: SeedData.contacts), into: log)
      #expect(contactResult.plan.events.map(\.type) == ["ContactUpdated", "ContactFavorited"])
      #expect(contactResult.plan.events.map(\.stream) == ["contact-13", "contact-1"])
      #expect(contactResult.plan.events[0].summary == "phone.work → '602-555-0100'")
      #expect(contactResult.plan.unchanged.count == 16)

      var locations = try JSONValue.parse(try SeedData.bytes(SeedData.locations))
      try Self.editMember(
        &locations, index: 0, path: ["geometry", "coordinates"],
        to: .array([.number("150.5"), .number("-35")]), container: "features")
      try Self.editMember(
        &locations, index: 1, path: ["properties", "name"], to: .string("Bravo Base"),
        container: "features")
      let locationResult = try importParsed(
        try parseSource(.locations, jsonText(locations), name: SeedData.locations), into: log)
      #expect(locationResult.plan.events.map(\.type) == ["LocationMoved", "LocationRenamed"])
      #expect(locationResult.plan.events.map(\.summary) == ["→ -35.0, 150.5", "→ 'Bravo Base'"])

      let states = try parseSource(
        .states,
        #"{"States": [{"Name": "California", "ZipCodes": ["90001", "90002", "90003"]}]}"#,
        name: SeedData.statesPlist)
      let stateResult = try importParsed(states, into: log)
      #expect(stateResult.plan.events.map(\.type) == ["ZipCodeAdded"])
      #expect(stateResult.plan.events.map(\.summary) == ["+ 90003"])
      #expect(stateResult.plan.events[0].version == 4)
    }
  }

  @Test func aUsersFavoriteSurvivesReimportingTheUnchangedSource() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try importParsed(try SeedData.parse(.contacts, SeedData.contacts), into: log)
      let id = try ContactID("13")
      _ = try log.handle(
        ContactCommand.favoriteContact(id: id), with: ContactDecider.self,
        metadata: EventMetadata(actor: "ana"))
      let before = try fileBytes(path)
      let again = try importParsed(try SeedData.parse(.contacts, SeedData.contacts), into: log)
      #expect(again.appendedCount == 0)
      #expect(try fileBytes(path) == before)
      let events = try log.events(inStream: "contact-13").events.compactMap {
        try log.domainEvent(of: $0, for: ContactDecider.self)
      }
      #expect(ContactDecider.fold(events).record?.isFavorite == true)
    }
  }

  @Test func aLocationTheUserRemovedStaysRemovedAndIsReported() throws {
    try withTemporaryDirectory { directory in
      let log = try EventLog(path: directory + "/events.jsonl", configuration: testConfiguration())
      let parsed = try SeedData.parse(.locations, SeedData.locations)
      try importParsed(parsed, into: log)
      let charlie = try LocationID("84e0c359-1e8a-434a-963a-613771dbe2c9")
      _ = try log.handle(LocationCommand.removeLocation(id: charlie), with: LocationDecider.self)
      let again = try importParsed(parsed, into: log)
      #expect(again.appendedCount == 0)
      #expect(again.plan.unchanged.count == 10)
      #expect(
        again.plan.keptRemoved == [
          RecordOutcome(
            recordIndex: 3, label: "id '\(charlie)', name 'Charlie'",
            stream: "location-\(charlie)",
            reason: "location '\(charlie)' was removed; the import leaves it removed")
        ])
    }
  }

  /// Ids are told apart by their bytes, as the log's streams are: `café` with a precomposed é
  /// and with e + U+0301 are two contacts, neither left out for the other.
  @Test func idsThatDifferInBytesAreTwoRecordsEvenWhenTheyCompareEqual() throws {
    let parsed = try parseSource(
      .contacts,
      #"[{"id": "caf\u00e9", "name": "Ann"}, {"id": "cafe\u0301", "name": "Bob"}]"#)
    #expect(parsed.notes.isEmpty)
    #expect(parsed.records.map(\.index) == [1, 2])
  }

  @Test func aRepeatedIDIsReplacedByTheLaterRecordSoReimportsStayIdempotent() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let parsed = try parseSource(
        .contacts,
        """
        [{"id": "1", "name": "Ann"}, {"id": "2", "name": "Bob"},
         {"id": "1", "name": "Ann", "isFavorite": true, "emailAddress": "ann@example.com"}]
        """)
      #expect(
        parsed.notes == [
          "contact record 1 (id '1', name 'Ann') is left out: record 3 imports into the same "
            + "stream ('contact-1') and, coming later, replaces it"
        ])
      #expect(parsed.records.map(\.index) == [2, 3])
      let result = try importParsed(parsed, into: log)
      #expect(
        result.plan.events.map { "\($0.stream) v\($0.version) \($0.type)" } == [
          "contact-2 v1 ContactAdded", "contact-1 v1 ContactAdded",
        ])
      #expect(try importParsed(parsed, into: log).appendedCount == 0)
    }
  }

  @Test func aRepeatedStateMergesItsZipCodesByDecidingInOrder() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let parsed = try parseSource(
        .states,
        """
        {"States": [{"Name": "Ohio", "ZipCodes": ["43001", "43002"]},
                    {"Name": "Iowa", "ZipCodes": ["50001"]},
                    {"Name": "Ohio", "ZipCodes": ["43002", "43003"]}]}
        """)
      #expect(
        parsed.notes == [
          "state record 3 (name 'Ohio') repeats the state of record 1; its zip codes are added "
            + "to that state's"
        ])
      let result = try importParsed(parsed, into: log)
      // Both Ohio records are decided, the second against the state the first produced.
      #expect(
        result.plan.events.map { "\($0.stream) v\($0.version) \($0.summary)" } == [
          "state-Ohio v1 'Ohio'", "state-Ohio v2 + 43001", "state-Ohio v3 + 43002",
          "state-Ohio v4 + 43003", "state-Iowa v1 'Iowa'", "state-Iowa v2 + 50001",
        ])
      #expect(try readAll(path).map(\.version) == [1, 2, 3, 4, 1, 2])
      let again = try importParsed(parsed, into: log)
      #expect(again.appendedCount == 0)
      #expect(again.plan.unchanged.count == 3)
    }
  }

  @Test func eventIDsAreDerivedSoIdenticalImportsAgree() throws {
    try withTemporaryDirectory { directory in
      let first = try EventLog(path: directory + "/a.jsonl", configuration: testConfiguration())
      let second = try EventLog(path: directory + "/b.jsonl", configuration: testConfiguration())
      let parsed = try SeedData.parse(.contacts, SeedData.contacts)
      try importParsed(parsed, into: first)
      try importParsed(parsed, into: second, actor: "someone else")
      let ids = try readAll(directory + "/a.jsonl").map(\.id)
      #expect(try readAll(directory + "/b.jsonl").map(\.id) == ids)
      #expect(Set(ids).count == 18)
      let record = parsed.records[0]
      #expect(
        ids[0]
          == ImportIdentity.eventID(
            kind: .contacts, source: SeedData.contacts, stream: "contact-13", version: 1,
            recordDigest: record.digest, position: 0))
      // Another source name is another import: other ids.
      let renamed = try SourceParser.parse(
        try SeedData.bytes(SeedData.contacts), kind: .contacts, sourceName: "copy.json")
      let plan = try ImportPlanner.plan(
        renamed, histories: [:], logPath: "x", metadata: EventMetadata())
      #expect(plan.events[0].event.id != ids[0])
    }
  }

  /// The id is the documented one (stable forever): `EventID.derived(fromName:)` of the seven
  /// lines, built here as the documentation spells them.
  @Test(arguments: [(Int64(1), 0), (42, 3), (1_234_567_890_123, 11)])
  func eventIDIsDerivedFromTheDocumentedName(version: Int64, position: Int) {
    let digest = SHA256.hash(Array("a record".utf8))
    let name = [
      "replay-import/1", "contacts", "contacts é.json", "contact-13", "\(version)",
      SHA256.hex(digest), "\(position)",
    ].joined(separator: "\n")
    #expect(
      ImportIdentity.eventID(
        kind: .contacts, source: "contacts é.json", stream: "contact-13", version: version,
        recordDigest: digest, position: position) == EventID.derived(fromName: name))
    #expect(
      EventID.derived(fromName: "replay-import/1\ncontacts\ns.json\ncontact-1\n1\n00ff\n0")
        == ImportIdentity.eventID(
          kind: .contacts, source: "s.json", stream: "contact-1", version: 1,
          recordDigest: [0x00, 0xFF], position: 0))
  }

  @Test func anIdenticalImportThatRacedAheadLeavesOnlyDuplicates() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let parsed = try SeedData.parse(.locations, SeedData.locations)
      let metadata = ImportPlanner.metadata(for: parsed, actor: nil, reason: nil)
      // Both plan against the empty log; the other one writes first.
      let plan = try ImportPlanner.plan(
        parsed, histories: try log.events(inStreams: ImportPlanner.streams(of: parsed)),
        logPath: path, metadata: metadata)
      let other = try EventLog(path: path, configuration: testConfiguration())
      try importParsed(parsed, into: other)
      let before = try fileBytes(path)
      let summary = try log.importEvents(plan.writes)
      #expect(summary.appendedCount == 0)
      #expect(summary.duplicateCount == 11)
      #expect(try fileBytes(path) == before)
    }
  }

  @Test func aRaceOnAStreamMakesTheImportPlanAgainOnce() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let parsed = try SeedData.parse(.contacts, SeedData.contacts)
      try importParsed(parsed, into: log)
      var edited = try JSONValue.parse(try SeedData.bytes(SeedData.contacts))
      try Self.editMember(&edited, index: 0, path: ["emailAddress"], to: .string("p@example.com"))
      let changed = try parseSource(.contacts, jsonText(edited), name: SeedData.contacts)
      let other = try EventLog(path: path, configuration: testConfiguration())
      let result = try log.importRecords(
        changed, metadata: EventMetadata(), skipInvalid: false, chunkSize: 1000, progress: nil
      ) { attempt in
        // Another writer favourites contact 13 between planning and writing, once.
        if attempt == 1 {
          _ = try other.handle(
            ContactCommand.favoriteContact(id: try ContactID("13")), with: ContactDecider.self)
        }
      }
      #expect(result.attempts == 2)
      #expect(result.appendedCount == 1)
      #expect(result.plan.events.map { "\($0.type) v\($0.version)" } == ["ContactUpdated v3"])

      var again = try JSONValue.parse(try SeedData.bytes(SeedData.contacts))
      try Self.editMember(&again, index: 0, path: ["emailAddress"], to: .string("q@example.com"))
      let racedAgain = try parseSource(.contacts, jsonText(again), name: SeedData.contacts)
      let before = try fileBytes(path)
      #expect(throws: ImportError.raced(stream: "contact-13", attempts: 2)) {
        try log.importRecords(
          racedAgain, metadata: EventMetadata(), skipInvalid: false, chunkSize: 1000,
          progress: nil
        ) { _ in
          _ = try other.handle(
            ContactCommand.updateContact(
              ContactRecord(id: try ContactID("13"), name: "Piggy \(UUID())")),
            with: ContactDecider.self)
        }
      }
      // Only the other writer's events landed: none carries the import's correlation.
      #expect(try fileBytes(path).count > before.count)
      #expect(try readAll(path).filter { $0.metadata.correlation != nil }.count == 18)
    }
  }

  @Test func invalidRecordsFailTheWholeImportUnlessSkipped() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let parsed = try parseSource(
        .contacts, #"[{"id": "1", "name": "Ann"}, {"id": "2", "name": ""}]"#, name: "two.json")
      #expect(throws: ImportError.self) { try importParsed(parsed, into: log) }
      // Refused before the first write: the log was never created.
      #expect(!FileManager.default.fileExists(atPath: path))
      let skipped = try importParsed(parsed, into: log, skipInvalid: true)
      #expect(skipped.appendedCount == 1)
    }
  }

  @Test func theDryRunReaderSeesWhatTheLogSees() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try importParsed(try SeedData.parse(.states, SeedData.statesJSON), into: log)
      _ = try log.handle(
        USStateCommand.addZipCode(state: try StateName("Alaska"), zipCode: try ZipCode("99599")),
        with: USStateDecider.self)
      let streams = ["state-Alaska", "state-Alabama", "state-Nowhere"]
      let locked = try log.events(inStreams: streams)
      let scanned = try LogReader(path: path).events(inStreams: Set(streams))
      #expect(locked["state-Alaska"]?.version == 19)
      #expect(locked["state-Nowhere"] == .empty)
      #expect(scanned["state-Alaska"] == locked["state-Alaska"])
      #expect(scanned["state-Alabama"] == locked["state-Alabama"])
      #expect(scanned["state-Nowhere"] == nil)
      #expect(try LogReader(path: directory + "/missing.jsonl").events(inStreams: ["x"]).isEmpty)
      for stream in streams {
        let single = try log.events(inStream: stream)
        #expect(locked[stream]?.events == single.events)
        #expect(locked[stream]?.version == single.version)
      }
    }
  }

  // MARK: Editing source documents

  /// Sets the member at `path` of element `index` of the document's array (or of its
  /// `container` member's array).
  static func editMember(
    _ document: inout JSONValue, index: Int, path: [String], to value: JSONValue,
    container: String? = nil
  ) throws {
    try edit(&document, at: index, container: container) { element in
      element = setting(element, path: path[...], to: value)
    }
  }

  static func edit(
    _ document: inout JSONValue, at index: Int, container: String? = nil,
    _ change: (inout JSONValue) -> Void
  ) throws {
    if let container {
      guard case .object(var object) = document, var inner = object[container] else {
        throw ImportError.unsupportedURL("no \(container)")
      }
      try edit(&inner, at: index, change)
      object[container] = inner
      document = .object(object)
      return
    }
    guard case .array(var elements) = document else { throw ImportError.unsupportedURL("array") }
    change(&elements[index])
    document = .array(elements)
  }

  private static func setting(
    _ value: JSONValue, path: ArraySlice<String>, to newValue: JSONValue
  ) -> JSONValue {
    guard let key = path.first else { return newValue }
    var object = value.objectValue ?? JSONObject()
    object[key] = setting(object[key] ?? .null, path: path.dropFirst(), to: newValue)
    return .object(object)
  }
}
