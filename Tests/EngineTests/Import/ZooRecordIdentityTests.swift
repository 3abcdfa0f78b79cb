import Events
import Testing

@testable import Engine
@testable import Importers

/// An imported animal is its name at its place (docs/FORMAT.md): every record of a page of the
/// current API is imported, each with an id of its own that the next version of the source,
/// with records inserted, removed and renumbered around it, gives it again.
@Suite struct ZooRecordIdentityTests {
  /// A record as the current API writes it (lowercase keys, `a_longitude` / `a_latitude`).
  struct Row {
    var sourceID: Int
    var chinese: String
    var latin: String
    var location: String = ""
    var place: (longitude: String, latitude: String)? = nil
    var update: String = "2022/5/9"
  }

  /// A page of the current API holding `rows`.
  static func page(_ rows: [Row]) -> String {
    let records = rows.map { row in
      var members = [
        #""_id": \#(row.sourceID)"#, #""a_name_ch": "\#(row.chinese)""#,
        #""a_name_latin": "\#(row.latin)""#, #""a_location": "\#(row.location)""#,
        #""a_update": "\#(row.update)""#,
      ]
      if let place = row.place {
        members += [
          #""a_longitude": "\#(place.longitude)""#, #""a_latitude": "\#(place.latitude)""#,
        ]
      }
      return "{" + members.joined(separator: ", ") + "}"
    }
    return #"{"result": {"limit": 1000, "offset": 0, "count": \#(rows.count), "results": ["#
      + records.joined(separator: ",\n") + "]}}"
  }

  /// The shape of the real page: one species in three enclosures, another in two of which one
  /// lists it twice at the same point, and a record without a Latin name.
  static let version1: [Row] = [
    Row(
      sourceID: 1, chinese: "馬來長吻鱷", latin: "Tomistoma schlegelii", location: "兩棲爬蟲動物館",
      place: ("121.5903", "24.9946")),
    Row(
      sourceID: 2, chinese: "藍腹鷴", latin: "Lophura swinhoii", location: "臺灣動物區",
      place: ("121.5841", "24.9989")),
    Row(
      sourceID: 3, chinese: "馬來長吻鱷", latin: "Tomistoma schlegelii", location: "熱帶雨林區",
      place: ("121.5867", "24.9961")),
    Row(
      sourceID: 4, chinese: "臺灣黑熊", latin: "", location: "臺灣動物區",
      place: ("121.5845", "24.9985")),
    Row(
      sourceID: 5, chinese: "藍腹鷴", latin: "Lophura swinhoii", location: "鳥園",
      place: ("121.5850", "24.9940")),
    Row(
      sourceID: 6, chinese: "藍腹鷴", latin: "Lophura swinhoii", location: "鳥園",
      place: ("121.5850", "24.9940")),
    Row(
      sourceID: 7, chinese: "馬來長吻鱷", latin: "Tomistoma schlegelii", location: "兩棲爬蟲動物館",
      place: ("121.5911", "-24.99")),
  ]

  static let version1IDs = [
    "zoo-tomistoma-schlegelii-at-24-9946n-121-5903e",
    "zoo-lophura-swinhoii-at-24-9989n-121-5841e",
    "zoo-tomistoma-schlegelii-at-24-9961n-121-5867e",
    "zoo-u81fa-u7063-u9ed1-u718a-at-24-9985n-121-5845e",
    "zoo-lophura-swinhoii-at-24-994n-121-585e",
    "zoo-lophura-swinhoii-at-24-994n-121-585e-2",
    "zoo-tomistoma-schlegelii-at-24-99s-121-5911e",
  ]

  @Test func everyRecordOfAPageWithRepeatedNamesIsImportedInSourceOrder() throws {
    let parsed = try parseSource(.zoo, Self.page(Self.version1))
    #expect(parsed.problems.isEmpty)
    #expect(parsed.notes.isEmpty)
    #expect(parsed.animalRecords.map(\.sourceID) == Array(1...7))
    #expect(parsed.animalRecords.map(\.id.rawValue) == Self.version1IDs)
  }

  @Test func theIDsOfUnchangedRecordsSurviveInsertionsRemovalsAndRenumbering() throws {
    // The next version: the table renumbered (every `_id` moved), a third enclosure of the
    // crocodile inserted first, the Taiwan enclosure's pheasant removed, one record changed
    // in a field that is not its name or place.
    var rows = Self.version1
    rows.remove(at: 1)
    rows.insert(
      Row(
        sourceID: 0, chinese: "馬來長吻鱷", latin: "Tomistoma schlegelii", location: "新館",
        place: ("121.6", "25")), at: 0)
    rows[4].update = "2023/1/1"
    for index in rows.indices { rows[index].sourceID = 100 - index }
    let parsed = try parseSource(.zoo, Self.page(rows))
    #expect(parsed.problems.isEmpty)
    #expect(
      parsed.animalRecords.map(\.id.rawValue) == [
        "zoo-tomistoma-schlegelii-at-25n-121-6e",
        "zoo-tomistoma-schlegelii-at-24-9946n-121-5903e",
        "zoo-tomistoma-schlegelii-at-24-9961n-121-5867e",
        "zoo-u81fa-u7063-u9ed1-u718a-at-24-9985n-121-5845e",
        "zoo-lophura-swinhoii-at-24-994n-121-585e",
        "zoo-lophura-swinhoii-at-24-994n-121-585e-2",
        "zoo-tomistoma-schlegelii-at-24-99s-121-5911e",
      ])
  }

  @Test func aRepeatCounterSkipsAnIDAnotherNameAlreadyGave() throws {
    let parsed = try parseSource(
      .zoo,
      Self.page([
        Row(sourceID: 1, chinese: "甲", latin: "Alpha 2"),
        Row(sourceID: 2, chinese: "甲", latin: "Alpha"),
        Row(sourceID: 3, chinese: "甲", latin: "Alpha"),
        Row(sourceID: 4, chinese: "甲", latin: "Alpha"),
        Row(sourceID: 5, chinese: "甲", latin: "alpha  2"),
      ]))
    #expect(parsed.problems.isEmpty)
    #expect(
      parsed.animalRecords.map(\.id.rawValue) == [
        "zoo-alpha-2", "zoo-alpha", "zoo-alpha-3", "zoo-alpha-4", "zoo-alpha-2-2",
      ])
  }

  @Test func aRecordWithoutACoordinateIsItsNameAsBefore() throws {
    // The old key style has no `a_longitude` / `a_latitude`: the ids of logs written since
    // issue 10 (the shipped sample's) stay the same.
    let parsed = try SeedData.parse(.zoo, SeedData.zoo)
    let ids = parsed.animalRecords.map(\.id)
    #expect(ids.count == 20)
    #expect(ids == parsed.animalRecords.map { AnimalID.imported(latinName: $0.nameLatin) })
    #expect(ids[0].rawValue == "zoo-ailuropoda-melanoleuca")
  }

  @Test func aReimportOfTheSamePageAppendsNothingAndTheNextVersionOnlyWhatChanged() throws {
    try withTemporaryDirectory { directory in
      let log = try EventLog(path: directory + "/zoo.jsonl", configuration: testConfiguration())
      let first = try importParsed(try parseSource(.zoo, Self.page(Self.version1)), into: log)
      #expect(first.appendedCount == 7)
      let again = try importParsed(try parseSource(.zoo, Self.page(Self.version1)), into: log)
      #expect(again.appendedCount == 0)
      #expect(again.plan.unchanged.count == 7)
      // One record changed, one new at the end, one removed: only the two append.
      var rows = Self.version1
      rows[2].update = "2023/1/1"
      rows.remove(at: 5)
      rows.append(Row(sourceID: 8, chinese: "乙", latin: "Beta gamma"))
      let next = try importParsed(try parseSource(.zoo, Self.page(rows)), into: log)
      #expect(
        next.plan.events.map(\.stream) == [
          "animal-zoo-tomistoma-schlegelii-at-24-9961n-121-5867e", "animal-zoo-beta-gamma",
        ])
      #expect(next.plan.events.map(\.version) == [2, 1])
      // Renumbered from 0 (the source's `_id` is a row number): every animal stays itself,
      // and records the `_id` it has now.
      for index in rows.indices { rows[index].sourceID = index }
      let renumbered = try importParsed(try parseSource(.zoo, Self.page(rows)), into: log)
      #expect(renumbered.plan.events.count == 7)
      #expect(renumbered.plan.events.allSatisfy { $0.version > 1 })
    }
  }

  /// Random versions of a page: records of a few names at a few places (exact repeats, and
  /// places an id cannot tell apart, included) inserted and removed at random. Oracle: within
  /// a page no two records share an id, and a record keeps its id while the records of its
  /// name and place before it stay the same.
  @Test func randomVersionsNeverCollideAndKeepTheIDsOfUnchangedRecords() throws {
    var random = SplitMix64(seed: TestSeed.make(fallback: 0x200_3434))
    let names = ["Alpha beta", "Alpha  Beta", "", "Gamma"]
    let chinese = ["甲", "乙", "丙"]
    let places: [(longitude: String, latitude: String)?] = [
      nil, ("121.5", "24.9"), ("121.50000001", "24.9"), ("-1", "0"),
    ]
    func randomRow(_ serial: Int) -> Row {
      Row(
        sourceID: serial, chinese: random.pick(chinese), latin: random.pick(names),
        place: random.pick(places))
    }
    for _ in 0..<200 {
      var serial = 0
      var older: [Row] = []
      for _ in 0..<Int.random(in: 0...12, using: &random) {
        serial += 1
        older.append(randomRow(serial))
      }
      var newer = older.filter { _ in !random.chance(0.3) }
      for _ in 0..<Int.random(in: 0...4, using: &random) {
        serial += 1
        newer.insert(randomRow(serial), at: Int.random(in: 0...newer.count, using: &random))
      }
      let olderIDs = try Self.ids(older)
      let newerIDs = try Self.ids(newer)
      #expect(Set(olderIDs.values).count == older.count)
      #expect(Set(newerIDs.values).count == newer.count)
      for row in newer where olderIDs[row.sourceID] != nil {
        let key = try Self.key(row)
        let before = try older.prefix { $0.sourceID != row.sourceID }.filter {
          try Self.key($0) == key
        }
        let after = try newer.prefix { $0.sourceID != row.sourceID }.filter {
          try Self.key($0) == key
        }
        if before.map(\.sourceID) == after.map(\.sourceID) {
          #expect(olderIDs[row.sourceID] == newerIDs[row.sourceID], "\(older) → \(newer)")
        }
      }
    }
  }

  /// What identifies a row before the repeat counter: its name at its place.
  static func key(_ row: Row) throws -> AnimalID {
    let coordinate = try row.place.map {
      try Coordinate(
        latitude: try #require(Double($0.latitude)), longitude: try #require(Double($0.longitude)))
    }
    return try #require(
      AnimalID.imported(latinName: row.latin, chineseName: row.chinese, coordinate: coordinate))
  }

  /// The id each row's `sourceID` gets in a page of `rows`.
  static func ids(_ rows: [Row]) throws -> [Int: AnimalID] {
    let parsed = try parseSource(.zoo, page(rows))
    #expect(parsed.problems.isEmpty)
    return Dictionary(
      parsed.animalRecords.map { ($0.sourceID, $0.id) }, uniquingKeysWith: { first, _ in first })
  }
}
