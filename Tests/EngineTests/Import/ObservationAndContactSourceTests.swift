import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

@Suite struct ObservationSourceParserTests {
  @Test func fieldObservationsHoldElevenRecordsReadInUTC() throws {
    let parsed = try SeedData.parse(.observations, SeedData.observations)
    #expect(parsed.recordCount == 11)
    #expect(parsed.problems.isEmpty)
    let records = parsed.observationRecords
    #expect(records.count == 11)
    #expect(records[0].classification == .bird)
    #expect(records[0].title == "Red-tailed Hawk")
    #expect(records[0].description == "Standing in tree in middle of wooded area.")
    #expect(records[0].date.description == "2017-06-14T18:00:00.000Z")
    #expect(records[10].title == "Black Squirrel")
    #expect(Set(records.map(\.classification)).count == 7)
    #expect(parsed.records[0].label == "title 'Red-tailed Hawk'")
  }

  @Test func datesWithoutAZoneAreReadInTheGivenTimeZone() throws {
    let chicago = try #require(TimeZone(identifier: "America/Chicago"))
    let parsed = try SeedData.parse(
      .observations, SeedData.observations, options: SourceParser.Options(timeZone: chicago))
    // June: Central Daylight Time, UTC-5.
    #expect(parsed.observationRecords[0].date.description == "2017-06-14T23:00:00.000Z")
  }

  @Test func iso8601DatesGiveTheSameRecordsAsTheirUTCWallClock() throws {
    let original = try SeedData.parse(.observations, SeedData.observations)
    var text = String(decoding: try SeedData.bytes(SeedData.observations), as: UTF8.self)
    for record in original.observationRecords {
      let wallClock = String(record.date.description.prefix(16)).replacingOccurrences(
        of: "T", with: " ")
      let iso = String(record.date.description.prefix(19)) + "Z"
      text = text.replacingOccurrences(of: "\"\(wallClock)\"", with: "\"\(iso)\"")
    }
    #expect(text.contains("\"2017-06-14T18:00:00Z\""))
    let variant = try parseSource(.observations, text, name: SeedData.observations)
    #expect(variant.problems.isEmpty)
    #expect(variant.observationRecords == original.observationRecords)
    #expect(variant.records.map(\.command) == original.records.map(\.command))
  }

  @Test func everyBadFieldIsReportedWithItsValueAndReason() throws {
    let parsed = try parseSource(
      .observations,
      """
      {"status": "ok", "observations": [
        {"classification": "Bird", "title": "Hawk", "description": "x", "date": "2017-06-14 18:00"},
        {"classification": "dragon", "title": " ", "date": "2017-13-14 18:00"},
        "not an object"
      ]}
      """)
    #expect(parsed.recordCount == 3)
    #expect(parsed.records.count == 1)
    #expect(parsed.observationRecords.first?.classification == .bird)
    #expect(parsed.observationRecords.first?.description == "x")
    #expect(
      parsed.problems.map(\.description) == [
        "observation record 2 (title ' '): field 'title': \" \" — expected a title that is not empty or only white space",
        "observation record 2 (title ' '): field 'classification': \"dragon\" — expected one of 'amphibian', 'bird', 'fish', 'insect', 'mammal', 'plant', 'reptile'",
        "observation record 2 (title ' '): field 'date': \"2017-13-14 18:00\" — expected a date as 'YYYY-MM-DD HH:MM' or ISO 8601 with a zone (e.g. '2017-06-14T18:00:03Z')",
        "observation record 3: the record is \"not an object\" — expected an observation object {\"classification\", \"title\", \"description\", \"date\"}",
      ])
    #expect(parsed.invalidRecordCount == 2)
  }

  @Test func aSourceWithoutObservationsIsALayoutError() throws {
    #expect {
      try parseSource(.observations, #"{"status": "error", "message": "down"}"#)
    } throws: { error in
      (error as? ImportError)?.description
        == "'test.json' is not laid out as observations are: expected an object {\"status\", "
        + "\"observations\": [...]} or an array of observations, found an object with keys "
        + "'status', 'message'"
    }
  }
}

@Suite struct ContactSourceParserTests {
  @Test func contactsV3HoldsEighteenContactsOfWhichFourAreFavorites() throws {
    let parsed = try SeedData.parse(.contacts, SeedData.contacts)
    #expect(parsed.problems.isEmpty)
    let contacts = parsed.contactRecords
    #expect(contacts.count == 18)
    #expect(contacts.filter(\.isFavorite).map(\.id.rawValue) == ["4", "6", "16", "5"])
    #expect(Set(contacts.map(\.id)).count == 18)
    let byID = Dictionary(uniqueKeysWithValues: contacts.map { ($0.id.rawValue, $0) })
    // companyName "", null and missing all mean none.
    #expect(byID["3"]?.companyName == nil)
    #expect(byID["4"]?.companyName == nil)
    #expect(byID["16"]?.companyName == nil)
    #expect(byID["13"]?.companyName == "Muppets, Baby")
    // Phone keys come and go; an empty one is none.
    #expect(byID["13"]?.phone == PhoneNumbers(work: "602-225-9543", home: "602-225-9188"))
    #expect(byID["19"]?.phone == PhoneNumbers(home: "808-949-8253"))
    #expect(byID["17"]?.phone == PhoneNumbers(mobile: "202-783-8287"))
    #expect(byID["13"]?.birthdate?.description == "1987-05-11")
    #expect(byID["13"]?.address.city == "Phoenix")
    #expect(parsed.records[0].label == "id '13', name 'Miss Piggy'")
  }

  @Test func badContactsAreListedAndTheOthersKept() throws {
    let parsed = try parseSource(
      .contacts,
      """
      [{"id": "1", "name": "Ann", "isFavorite": true},
       {"id": 2, "name": "Bob", "birthdate": "1988-02-30", "phone": {"work": 42}},
       {"name": "Cy", "isFavorite": "yes"},
       {"id": "4", "name": "Di", "phone": null, "address": {"city": null}, "companyName": null}]
      """)
    #expect(parsed.contactRecords.map(\.id.rawValue) == ["1", "4"])
    #expect(parsed.contactRecords[0].isFavorite)
    #expect(
      parsed.problems.map(\.description) == [
        "contact record 2 (id '2', name 'Bob'): field 'birthdate': \"1988-02-30\" — expected a date as YYYY-MM-DD (e.g. 1987-05-11) that exists in the calendar",
        "contact record 2 (id '2', name 'Bob'): field 'phone.work': 42 — expected a string or null",
        "contact record 3 (name 'Cy'): field 'id': missing — expected a contact id (a string)",
        "contact record 3 (name 'Cy'): field 'isFavorite': \"yes\" — expected true or false",
      ])
  }
}

@Suite struct RecordLabelTests {
  /// Text shown as it is, and text escaped or cut: the quick way for short plain text gives what
  /// the scalar-at-a-time way gives.
  @Test(arguments: [
    ("Miss Piggy", "name 'Miss Piggy'"),
    ("", "name ''"),
    ("Zoë, 動物園", "name 'Zoë, 動物園'"),
    ("a\nb\tc\r", #"name 'a\nb\tc\r'"#),
    ("\u{7F}x\u{1}", #"name '\u{7F}x\u{1}'"#),
    ("\u{FEFF}bom", #"name '\u{FEFF}bom'"#),
    ("\u{F8FF}", "name '\u{F8FF}'"),
    (String(repeating: "a", count: 40), "name '\(String(repeating: "a", count: 40))'"),
    (String(repeating: "a", count: 41), "name '\(String(repeating: "a", count: 40))...'"),
    (String(repeating: "é", count: 30), "name '\(String(repeating: "é", count: 30))'"),
    (String(repeating: "é", count: 41), "name '\(String(repeating: "é", count: 40))...'"),
  ])
  func labelsQuoteTheirText(text: String, label: String) {
    #expect(RecordLabel.quoted("name", text) == label)
  }
}
