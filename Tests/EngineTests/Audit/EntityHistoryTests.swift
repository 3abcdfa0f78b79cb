import Events
import Foundation
import Testing

@testable import Engine
@testable import Projections

@Suite struct EntityHistoryTests {
  @Test func aContactsHistoryShowsWhoChangedWhatWhenAndWhy() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let history = try LogReader(path: path).history(of: "contact-13")
      #expect(history.stream.name == "contact-13")
      #expect(history.stream.modelName == "contacts")
      #expect(history.stream.entityID == "13")
      #expect(history.events.map(\.sequence) == [120, 138, 147])
      #expect(history.events.map(\.version) == [1, 2, 3])
      #expect(
        history.events.map(\.type) == ["ContactAdded", "ContactFavorited", "ContactUnfavorited"])
      #expect(history.events.map(\.metadata.actor) == ["ana", "ana", "ana"])
      #expect(
        history.events.map(\.metadata.reason) == [
          "initial load of the contacts", "VIP donor", "donation ended",
        ])
      #expect(history.events.map(\.source) == ["contacts-v3.json", nil, nil])
      #expect(
        history.events.map(\.timestamp.description) == [
          "2026-11-01T09:20:00.000Z", "2026-11-02T10:30:00.000Z", "2026-11-08T17:30:00.000Z",
        ])
      let added = history.events[0]
      #expect(added.isCreation && !added.isRemoval && added.before == nil)
      #expect(added.after?["name"] == "Miss Piggy")
      #expect(added.changes.count == 14)
      #expect(added.changes.allSatisfy { $0.before == nil })
      #expect(
        history.events[1].changes == [
          EntryDiff.FieldDifference(
            name: "isFavorite", before: "false", after: "true", kind: .boolean)
        ])
      #expect(
        history.events[2].changes == [
          EntryDiff.FieldDifference(
            name: "isFavorite", before: "true", after: "false", kind: .boolean)
        ])
    }
  }

  @Test(arguments: [
    ("13", "contact-13"), ("California", "state-California"), ("state-New York", "state-New York"),
    ("user-1", "animal-user-1"), ("zoo-panthera-pardus", "animal-zoo-panthera-pardus"),
    ("animal-user-1", "animal-user-1"),
    ("398f8d08492d", "observation-398f8d08492d"),
    ("2abca2a7-d768-4db2-95e2-09002df94362", "location-2abca2a7-d768-4db2-95e2-09002df94362"),
  ])
  func aStreamNameOrAnEntityIDNamesOneStream(input: String, stream: String) throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let history = try LogReader(path: path).history(of: input)
      #expect(history.stream.name == stream)
      #expect(!history.events.isEmpty)
    }
  }

  @Test func aZipCodeModificationChangesTheStatesList() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let history = try LogReader(path: path).history(of: "California")
      #expect(history.events.map(\.sequence) == [12, 13, 14, 140])
      #expect(history.events[0].after?["zipCodes"] == "")
      #expect(
        history.events[3].changes == [
          EntryDiff.FieldDifference(name: "zipCodes", before: "90001, 90002", after: "90011, 90002")
        ])
      #expect(history.events[3].metadata.actor == "sam")
      #expect(history.events[3].source == nil)
    }
  }

  /// Folding one stream alone gives, after each of its events, the entry a replay of the whole
  /// log to that event gives: no model's entry depends on another stream.
  @Test func everyStreamsHistoryMatchesTheFullReplayAfterEachEvent() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let events = try readAll(path)
      var models = ReadModels()
      var expected: [String: [ReadModelEntry?]] = [:]
      for event in events {
        if let decoded = try PersonalData.decode(event, log: OpenLog.named(path)) {
          models.apply(decoded, at: EventContext(event))
        }
        let stream = try #require(EntityStream(event.stream))
        expected[event.stream, default: []].append(
          models.model(named: stream.modelName)?.entry(forID: stream.entityID))
      }
      #expect(expected.count == 68)
      let reader = LogReader(path: path)
      for (stream, entries) in expected {
        let history = try reader.history(of: stream)
        #expect(history.events.map(\.after) == entries, "\(stream)")
        #expect(history.events.first?.before == nil, "\(stream)")
      }
    }
  }

  @Test func anUnknownIDIsAnErrorThatSuggestsACloseStream() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let error = try #require(throws: AuditError.self) {
        try LogReader(path: path).history(of: "Califronia")
      }
      #expect(
        error
          == .noSuchEntity(
            input: "Califronia", path: path,
            tried: [
              "contact-Califronia", "state-Califronia", "observation-Califronia",
              "animal-Califronia", "location-Califronia",
            ],
            suggestion: "state-California"))
      #expect(
        error.description
          == "no entity 'Califronia' in '\(path)': no stream 'contact-Califronia', "
          + "'state-Califronia', 'observation-Califronia', 'animal-Califronia' or "
          + "'location-Califronia' has events; did you mean 'state-California'?")
      let far = try #require(throws: AuditError.self) {
        try LogReader(path: path).history(of: "contact-nobody")
      }
      #expect(far.description == "no stream 'contact-nobody' in '\(path)'")
    }
  }

  @Test func anIDUnderTwoCategoriesIsAmbiguousAndAnExistingStreamNameWins() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let log = try EventLog(path: path, configuration: testConfiguration())
      for id in ["13", "contact-13"] {
        let added = LocationAdded(
          record: LocationRecord(
            id: try LocationID(id), name: "Thirteen",
            coordinate: try Coordinate(latitude: 1, longitude: 2)))
        let (stream, event) = EventVocabulary.proposedEvent(.location(.added(added)))
        try log.append([event], to: stream)
      }
      let error = try #require(throws: AuditError.self) {
        try LogReader(path: path).history(of: "13")
      }
      #expect(error == .ambiguousEntity(input: "13", streams: ["contact-13", "location-13"]))
      #expect(
        error.description
          == "'13' is the id of 2 entities, in streams 'contact-13' and 'location-13'; "
          + "give the stream name instead")
      // `contact-13` is a stream, and also the id of location `contact-13`: the stream wins.
      #expect(try LogReader(path: path).history(of: "contact-13").stream.name == "contact-13")
      #expect(
        try LogReader(path: path).history(of: "location-contact-13").events.map(\.sequence)
          == [149])
    }
  }

  @Test func aMissingLogIsFileNotFound() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/none.jsonl"
      #expect(throws: EngineError.fileNotFound(path: path)) {
        try LogReader(path: path).history(of: "13")
      }
      #expect(throws: EngineError.fileNotFound(path: path)) {
        try Replayer(reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path))
          .diff(model: "contacts", from: .sequence(0), to: .end)
      }
    }
  }

  @Test func streamNamesSplitIntoCategoryAndEntityID() {
    #expect(EntityStream("animal-zoo-3")?.entityID == "zoo-3")
    #expect(EntityStream("animal-zoo-3")?.modelName == "animals")
    #expect(EntityStream("state-New York")?.entityID == "New York")
    #expect(EntityStream("contact-") == nil)
    #expect(EntityStream("person-13") == nil)
    #expect(EntityStream("13") == nil)
  }

  /// The banded distance agrees with a plain Levenshtein table wherever it is within the limit.
  @Test func theBandedEditDistanceMatchesTheFullTable() {
    let seed = TestSeed.make()
    var generator = SeededGenerator(seed: seed)
    let alphabet: [Unicode.Scalar] = ["a", "b", "c", "é"]
    func word() -> [Unicode.Scalar] {
      (0..<Int.random(in: 0...7, using: &generator)).map { _ in
        alphabet.randomElement(using: &generator) ?? "a"
      }
    }
    for _ in 0..<2000 {
      let first = word()
      let second = word()
      let limit = Int.random(in: 1...3, using: &generator)
      let full = referenceDistance(first, second)
      let banded = LogReader.editDistance(first, second, limit: limit)
      #expect(banded == (full <= limit ? full : nil), "\(first) \(second) seed \(seed)")
    }
  }

  private func referenceDistance(_ first: [Unicode.Scalar], _ second: [Unicode.Scalar]) -> Int {
    var table = [[Int]](
      repeating: [Int](repeating: 0, count: second.count + 1), count: first.count + 1)
    for row in 0...first.count { table[row][0] = row }
    for column in 0...second.count { table[0][column] = column }
    for row in stride(from: 1, through: first.count, by: 1) {
      for column in stride(from: 1, through: second.count, by: 1) {
        table[row][column] = min(
          table[row - 1][column] + 1, table[row][column - 1] + 1,
          table[row - 1][column - 1] + (first[row - 1] == second[column - 1] ? 0 : 1))
      }
    }
    return table[first.count][second.count]
  }
}
