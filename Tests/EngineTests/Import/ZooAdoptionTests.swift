import Events
import Testing

@testable import Engine
@testable import Importers

/// A log whose animals an earlier rule named by their Latin name alone keeps them when the
/// page is imported again under the name-at-its-place rule: each is taken up by the record at
/// its place, not added a second time.
@Suite struct ZooAdoptionTests {
  typealias Row = ZooRecordIdentityTests.Row

  /// What issue 10's rule wrote for `row`: `zoo-<Latin name>`, the record as the source had it.
  func earlierEvent(_ row: Row) throws -> (stream: String, event: ProposedEvent) {
    let coordinate = try row.place.map {
      try Coordinate(
        latitude: try #require(Double($0.latitude)), longitude: try #require(Double($0.longitude)))
    }
    let id = try #require(AnimalID.imported(latinName: row.latin))
    let record = AnimalRecord(
      id: id, sourceID: row.sourceID, nameChinese: row.chinese, nameLatin: row.latin,
      location: row.location, coordinate: coordinate, update: row.update)
    return EventVocabulary.proposedEvent(
      .zoo(.imported(AnimalImported(record: record, source: "test.json"))),
      id: EventID(high: 9, low: UInt64(row.sourceID)))
  }

  @Test func theAnimalALatinNameNamedIsTakenUpByTheRecordAtItsPlace() throws {
    try withTemporaryDirectory { directory in
      let log = try EventLog(path: directory + "/zoo.jsonl", configuration: testConfiguration())
      let rows = ZooRecordIdentityTests.version1
      // Issue 10 kept the last record of each Latin name: the crocodile of row 7, the
      // pheasant of row 6 (which repeats row 5).
      for row in [rows[6], rows[5]] {
        let (stream, event) = try earlierEvent(row)
        try log.append([event], to: stream)
      }
      let parsed = try parseSource(.zoo, ZooRecordIdentityTests.page(rows))
      let result = try importParsed(parsed, into: log)
      // Row 7 is the crocodile the log has, unchanged. Row 5, the first at the pheasant's
      // place, takes that animal up, with its own `_id`; row 6 is its repeat, new.
      #expect(result.plan.unchanged.map(\.stream) == ["animal-zoo-tomistoma-schlegelii"])
      #expect(
        result.plan.events.map(\.stream) == [
          "animal-zoo-tomistoma-schlegelii-at-24-9946n-121-5903e",
          "animal-zoo-lophura-swinhoii-at-24-9989n-121-5841e",
          "animal-zoo-tomistoma-schlegelii-at-24-9961n-121-5867e",
          "animal-zoo-u81fa-u7063-u9ed1-u718a-at-24-9985n-121-5845e",
          "animal-zoo-lophura-swinhoii",
          "animal-zoo-lophura-swinhoii-at-24-994n-121-585e-2",
        ])
      #expect(result.plan.events.map(\.version) == [1, 1, 1, 1, 2, 1])
      let again = try importParsed(parsed, into: log)
      #expect(again.appendedCount == 0)
    }
  }

  @Test func anAnimalOfTheOldKeyStyleIsTakenUpByTheFirstRecordOfItsName() throws {
    try withTemporaryDirectory { directory in
      let log = try EventLog(path: directory + "/zoo.jsonl", configuration: testConfiguration())
      try importParsed(try SeedData.parse(.zoo, SeedData.zoo), into: log)
      let current = try parseSource(
        .zoo, try ZooSourceParserTests.lowercaseVariant(), name: SeedData.zoo)
      let result = try importParsed(current, into: log)
      // Each of the 20 animals gets its coordinate as a new version; none is added again.
      #expect(result.appendedCount == 20)
      #expect(result.plan.events.allSatisfy { $0.version == 2 })
      #expect(result.plan.events.first?.stream == "animal-zoo-ailuropoda-melanoleuca")
      #expect(try importParsed(current, into: log).appendedCount == 0)
    }
  }
}
