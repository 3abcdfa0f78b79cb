import Events
import Foundation
import Testing

@testable import Engine
@testable import Generator

/// A generated log shared by the tests that only read it: 20 000 events, seed "tests".
private enum Sample {
  static let eventCount = 20_000
  static let events: [LogGenerator.Event] = {
    var generator = LogGenerator(seed: "tests")
    return (0..<eventCount).map { _ in generator.next() }
  }()

  /// Events by type.
  static let counts: [String: Int] = events.reduce(into: [:]) {
    $0[$1.event.eventType, default: 0] += 1
  }
}

/// Writes `count` generated events for `seed` to a new log at `path`, unsynced.
@discardableResult
private func generateLog(
  at path: String, seed: String, count: Int, chunkSize: Int = 1000
) throws -> GenerationSummary {
  let clock = GenerationClock()
  let log = try EventLog(
    path: path, configuration: .generating(seed: seed, clock: clock, syncPolicy: .never))
  var generator = LogGenerator(seed: seed) { ((try? log.version(of: $0)) ?? 0) > 0 }
  return try log.appendGenerated(count, from: &generator, chunkSize: chunkSize, clock: clock)
}

@Suite struct LogGeneratorDeterminismTests {
  @Test func theSameSeedGivesTheSameBytes() throws {
    try withTemporaryDirectory { directory in
      try generateLog(at: directory + "/first.jsonl", seed: "42", count: 3000)
      try generateLog(at: directory + "/second.jsonl", seed: "42", count: 3000)
      let first = try fileBytes(directory + "/first.jsonl")
      #expect(first.count > 3000 * 200)
      #expect(first == (try fileBytes(directory + "/second.jsonl")))
    }
  }

  @Test func anotherSeedGivesAnotherLog() throws {
    try withTemporaryDirectory { directory in
      try generateLog(at: directory + "/first.jsonl", seed: "42", count: 3000)
      try generateLog(at: directory + "/second.jsonl", seed: "43", count: 3000)
      let first = try readAll(directory + "/first.jsonl")
      let second = try readAll(directory + "/second.jsonl")
      #expect(first.count == 3000 && second.count == 3000)
      // Ids derive from the seed, and the events themselves differ, not just their ids.
      #expect(zip(first, second).allSatisfy { $0.id != $1.id })
      #expect(first.map(\.data) != second.map(\.data))
    }
  }

  @Test func chunksAreStampedAMinuteApartFromTheFixedStart() throws {
    try withTemporaryDirectory { directory in
      let summary = try generateLog(
        at: directory + "/log.jsonl", seed: "clock", count: 2500, chunkSize: 1000)
      #expect(summary.chunkCount == 3)
      #expect(summary.sequences == 1...2500)
      let events = try readAll(directory + "/log.jsonl")
      #expect(events[0].timestamp.description == "2024-01-01T00:00:00.000Z")
      #expect(events[999].timestamp.description == "2024-01-01T00:00:00.000Z")
      #expect(events[1000].timestamp.description == "2024-01-01T00:01:00.000Z")
      #expect(events[2499].timestamp.description == "2024-01-01T00:02:00.000Z")
      // Each chunk is one atomic write, and ids are those `--id-seed clock` would make.
      #expect(events[1000].batch == 1001...2000)
      #expect(events[5].id == EventID.derived(fromName: "clock/6"))
    }
  }

  @Test func theSummaryCountsWhatWasWritten() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let summary = try generateLog(at: path, seed: "summary", count: 1234, chunkSize: 500)
      #expect(summary.eventCount == 1234)
      #expect(summary.byteCount == Int64(try fileBytes(path).count))
      let statistics = try LogStatistics(reading: LogReader(path: path))
      #expect(summary.eventsByType == statistics.eventsByType)
    }
  }
}

@Suite struct LogGeneratorValidityTests {
  @Test func theLogVerifiesAndEveryPayloadDecodesStrictly() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try generateLog(at: path, seed: "tests", count: Sample.eventCount, chunkSize: 10_000)
      let report = try LogVerifier(path: path).verify()
      #expect(report.isValid, "\(report.problems.prefix(3))")
      #expect(report.eventCount == Sample.eventCount)
      var decoded: [DomainEvent] = []
      try LogReader(path: path).forEachEvent { line in
        let event = line.recordedEvent()
        // The check raw appends get: known type, strictly valid payload, the payload's stream;
        // then the contacts' personal data opened with the log's keys.
        let valid = try EventVocabulary.validate(
          type: event.type, schemaVersion: event.schemaVersion, data: event.data,
          stream: event.stream)
        decoded.append(
          try PersonalData.open(
            valid, id: event.id, stream: event.stream, sequence: event.sequence,
            log: OpenLog.named(path)
          ).withoutSeal)
        return true
      }
      #expect(decoded == Sample.events.map(\.event))
    }
  }

  @Test func everyEventIsWhatItsDeciderDecides() {
    var oracle = DeciderOracle()
    for generated in Sample.events { oracle.check(generated.event) }
    #expect(oracle.checkedCount == Sample.eventCount)
    #expect(
      oracle.problems.isEmpty, "\(oracle.problems.count) problems: \(oracle.problems.prefix(5))")
  }

  @Test func theOracleCatchesImpossibleTransitions() throws {
    let id = try ContactID("7")
    let added = ContactAdded(record: ContactRecord(id: id, name: "Ana"))
    let zip = try ZipCode("12345")
    let state = try StateName("Ohio")
    var oracle = DeciderOracle()
    oracle.check(.contact(.added(added)))
    oracle.check(.contact(.favorited(ContactFavorited(id: id))))
    oracle.check(.contact(.favorited(ContactFavorited(id: id))))
    oracle.check(.contact(.unfavorited(ContactUnfavorited(id: try ContactID("8")))))
    oracle.check(.state(.zipCodeAdded(ZipCodeAdded(state: state, zipCode: zip))))
    #expect(oracle.problems.count == 3, "\(oracle.problems)")
    #expect(oracle.problems.first?.hasPrefix("event 3 (ContactFavorited on contact-7)") == true)
  }

  @Test func favouritesAlternatePerContact() {
    var isFavorite: [String: Bool] = [:]
    var toggles = 0
    for generated in Sample.events {
      guard case .contact(let event) = generated.event else { continue }
      switch event {
      case .added(let added):
        #expect(isFavorite[added.record.id.rawValue] == nil)
        isFavorite[added.record.id.rawValue] = added.record.isFavorite
      case .favorited(let favorited):
        #expect(isFavorite[favorited.id.rawValue] == false, "contact \(favorited.id)")
        isFavorite[favorited.id.rawValue] = true
        toggles += 1
      case .unfavorited(let unfavorited):
        #expect(isFavorite[unfavorited.id.rawValue] == true, "contact \(unfavorited.id)")
        isFavorite[unfavorited.id.rawValue] = false
        toggles += 1
      case .updated(let updated):
        #expect(isFavorite[updated.id.rawValue] != nil)
      case .erased:
        Issue.record("the generator does not erase contacts")
      }
    }
    #expect(toggles > Sample.eventCount / 3)
  }

  @Test func appendingToALogAvoidsItsEntitiesAndStaysValid() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try generateLog(at: path, seed: "again", count: 3000)
      // The same seed again: a fresh generator would re-add contact 1, state Alabama, ...
      try generateLog(at: path, seed: "again", count: 3000)
      #expect(try LogVerifier(path: path).verify().isValid)
      var oracle = DeciderOracle()
      try LogReader(path: path).forEachEvent { line in
        if let event = try PersonalData.decode(line.recordedEvent(), log: OpenLog.named(path)) {
          oracle.check(event.withoutSeal)
        }
        return true
      }
      #expect(oracle.checkedCount == 6000)
      #expect(oracle.problems.isEmpty, "\(oracle.problems.prefix(5))")
    }
  }
}

@Suite struct LogGeneratorMixTests {
  /// The event types each action makes.
  static func eventTypes(of action: LogGenerator.Action) -> [String] {
    switch action {
    case .addContact: ["ContactAdded"]
    case .toggleFavorite: ["ContactFavorited", "ContactUnfavorited"]
    case .updateContact: ["ContactUpdated"]
    case .addZipCode: ["ZipCodeAdded", "StateAdded"]
    case .modifyZipCode: ["ZipCodeModified"]
    case .removeZipCode: ["ZipCodeRemoved"]
    case .importAnimal: ["AnimalImported"]
    case .insertAnimal: ["AnimalInserted"]
    case .removeAnimal: ["AnimalRemoved"]
    case .addLocation: ["LocationAdded"]
    case .moveLocation: ["LocationMoved"]
    case .renameLocation: ["LocationRenamed"]
    case .removeLocation: ["LocationRemoved"]
    case .recordObservation: ["ObservationRecorded"]
    case .reviseObservation: ["ObservationRevised"]
    case .removeObservation: ["ObservationRemoved"]
    }
  }

  @Test func theMixAddsUpToAThousand() {
    #expect(LogGenerator.mix.reduce(0) { $0 + $1.perMille } == 1000)
    #expect(
      Set(LogGenerator.mix.map { "\($0.action)" }).count == LogGenerator.Action.allCases.count)
  }

  @Test(arguments: LogGenerator.mix.map(\.action))
  func eachActionsShareIsRoughlyItsWeight(action: LogGenerator.Action) throws {
    let perMille = try #require(LogGenerator.mix.first { $0.action == action }).perMille
    let count = Self.eventTypes(of: action).reduce(0) { $0 + (Sample.counts[$1] ?? 0) }
    let share = Double(count) * 1000 / Double(Sample.eventCount)
    // Actions on existing entities fall back to creating one when there is none, which moves
    // a little weight from the former to the latter; sampling adds the rest.
    let tolerance = max(Double(perMille) * 0.25, 2.5)
    #expect(
      abs(share - Double(perMille)) <= tolerance,
      "\(action): \(share)‰ of events, specified \(perMille)‰")
  }

  @Test func everyEventTypeAndClassificationOccurs() {
    // Erasures destroy keys, which a generator writing events does not do: it erases no one.
    #expect(
      Set(Sample.counts.keys) == Set(EventVocabulary.allEventTypes).subtracting(["ContactErased"]))
    var classifications: Set<Classification> = []
    for generated in Sample.events {
      if case .observation(.recorded(let recorded)) = generated.event {
        classifications.insert(recorded.record.classification)
      }
    }
    #expect(classifications == Set(Classification.allCases))
  }

  @Test func entityCountsStayModerate() {
    let contacts = Sample.counts["ContactAdded"] ?? 0
    let locations = Sample.counts["LocationAdded"] ?? 0
    #expect((300...500).contains(contacts), "\(contacts) contacts")
    #expect((140...260).contains(locations), "\(locations) locations")
    #expect(Sample.counts["StateAdded"] == GeneratorText.states.count)
  }

  @Test func locationsReachThePolesAndTheAntimeridian() {
    var nearPole = 0
    var nearAntimeridian = 0
    for generated in Sample.events {
      let coordinate: Coordinate
      switch generated.event {
      case .location(.added(let added)): coordinate = added.record.coordinate
      case .location(.moved(let moved)): coordinate = moved.coordinate
      default: continue
      }
      if abs(coordinate.latitude) >= 89 { nearPole += 1 }
      if abs(coordinate.longitude) >= 179 { nearAntimeridian += 1 }
    }
    #expect(nearPole >= 20 && nearAntimeridian >= 20, "\(nearPole), \(nearAntimeridian)")
  }
}

@Suite struct LogGeneratorSizeTests {
  /// The documented band for the average line: about 300 bytes.
  static let averageLineBand = 270.0...320.0

  @Test func theAverageLineIsInTheDocumentedBand() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let summary = try generateLog(at: path, seed: "tests", count: Sample.eventCount)
      let average = Double(summary.byteCount) / Double(summary.eventCount)
      #expect(Self.averageLineBand.contains(average), "\(average) bytes a line")
    }
  }

  @Test func importedAnimalsAreOneToThreeKilobytesOfRealText() throws {
    var lengths: [Int] = []
    for generated in Sample.events {
      guard case .zoo(.imported(let imported)) = generated.event else { continue }
      let payload = EventVocabulary.encode(generated.event).data
      lengths.append(payload.count)
      #expect(ZooCorpus.records.contains { $0.nameChinese == imported.record.nameChinese })
    }
    lengths.sort()
    let median = lengths[lengths.count / 2]
    #expect(lengths.count > 100)
    #expect(
      lengths.first ?? 0 >= 800 && lengths.last ?? 0 <= 3800,
      "\(lengths.first ?? 0)...\(lengths.last ?? 0)")
    #expect((1500...2500).contains(median), "median \(median)")
  }

  @Test func contactsAreAddedWithEveryField() {
    for generated in Sample.events {
      guard case .contact(.added(let added)) = generated.event else { continue }
      let record = added.record
      #expect(
        record.companyName != nil && record.smallImageURL != nil && record.largeImageURL != nil
          && record.emailAddress != nil && record.birthdate != nil && record.phone.work != nil
          && record.phone.home != nil && record.phone.mobile != nil && record.address.street != nil
          && record.address.city != nil && record.address.state != nil
          && record.address.country != nil && record.address.zipCode != nil, "\(record)")
    }
  }

  @Test func theZooCorpusIsTheSeedFileByteForByte() throws {
    let seed = try RepositoryFiles.seedData("taipei-zoo-animals.json")
    #expect(ZooCorpus.json == seed)
    #expect(ZooCorpus.records.count == 20)
    #expect(ZooCorpus.records.first?.nameChinese == "大貓熊")
  }
}

@Suite struct GeneratorPartsTests {
  @Test func theEntityPoolMatchesASetUnderRandomOperations() {
    let seed: UInt64 = 20_240_101
    var random = GeneratorRandom(seed: seed)
    var pool = EntityPool()
    var reference: Set<Int> = []
    var next = 0
    for step in 0..<5000 {
      if reference.isEmpty || random.chance(0.55) {
        pool.insert(next)
        reference.insert(next)
        next += 1
      } else if let member = pool.randomMember(using: &random) {
        #expect(reference.contains(member), "seed \(seed), step \(step)")
        pool.remove(member)
        reference.remove(member)
      }
      #expect(pool.count == reference.count, "seed \(seed), step \(step)")
    }
    #expect((0..<next).allSatisfy { pool.contains($0) == reference.contains($0) })
  }

  @Test func randomNumbersStayInTheirBounds() {
    var random = GeneratorRandom(seed: "bounds")
    for bound in [1, 2, 3, 7, 1000, 1 << 40] {
      for _ in 0..<200 {
        #expect((0..<bound).contains(random.below(bound)))
      }
    }
    for current in 0..<5 {
      for _ in 0..<50 {
        let other = random.other(than: current, below: 5)
        #expect(other != current && (0..<5).contains(other))
      }
    }
    #expect((0..<1000).allSatisfy { _ in (0..<1).contains(random.unit()) })
  }

  @Test func theSequenceIsPinned() {
    // Pinned so that a change to the generator's arithmetic, which would change every
    // generated log, is noticed.
    var random = GeneratorRandom(seed: 1)
    #expect(random.next() == 0x910A_2DEC_8902_5CC1)
    #expect(random.below(1000) == 745)
  }
}
