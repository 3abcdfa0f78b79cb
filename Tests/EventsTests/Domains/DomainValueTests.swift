import Foundation
import Testing

@testable import Events

@Suite struct ZipCodeTests {
  @Test(arguments: ["12345", "00501", "99950", "12345-6789", "35004-0000"])
  func fiveDigitsAndZipPlusFourAreAccepted(text: String) throws {
    #expect(try ZipCode(text).rawValue == text)
  }

  @Test(arguments: [
    "", "350HH", "1234", "123456", "12345-", "12345-678", "12345-67890", "12345 6789",
    " 12345", "12345 ", "123456789", "1234a", "12345_6789", "１２３４５", "-1234", "12 345",
  ])
  func everythingElseIsRejected(text: String) {
    #expect(throws: EventsError.self) { try ZipCode(text) }
  }

  @Test func rejectionsSayWhy() {
    let expected =
      "expected a zip code of 5 digits or ZIP+4 (12345 or 12345-6789), found "
    #expect(domainErrorMessage { _ = try ZipCode("") } == expected + "an empty string")
    #expect(domainErrorMessage { _ = try ZipCode("350HH") } == expected + "'350HH'")
    #expect(
      domainErrorMessage { _ = try ZipCode("12 345") }
        == expected + "'12 345' (it holds white space; remove it)")
    #expect(
      domainErrorMessage { _ = try ZipCode("501") }
        == expected + "'501' (3 digits; leading zeros may have been lost)")
    #expect(
      domainErrorMessage { _ = try ZipCode("123456789") }
        == expected + "'123456789' (9 digits; write ZIP+4 with a hyphen: 12345-6789)")
  }
}

@Suite struct CoordinateTests {
  @Test(arguments: [
    (90.0, 0.0), (-90.0, 0.0), (0.0, 180.0), (0.0, -180.0), (-90.0, -180.0), (90.0, 180.0),
    (-34.98520411042454, 149.98458041136354), (-0.0, -0.0),
  ])
  func polesAntimeridianAndOrdinaryPointsAreAccepted(latitude: Double, longitude: Double) throws {
    let coordinate = try Coordinate(latitude: latitude, longitude: longitude)
    #expect(coordinate.latitude == latitude)
    #expect(coordinate.longitude == longitude)
  }

  @Test(arguments: [
    (-90.0001, 0.0, "expected a latitude in [-90, 90], found -90.0001"),
    (90.0001, 0.0, "expected a latitude in [-90, 90], found 90.0001"),
    (Double.nan, 0.0, "expected a latitude in [-90, 90], found nan"),
    (Double.infinity, 0.0, "expected a latitude in [-90, 90], found inf"),
    (0.0, 180.0001, "expected a longitude in [-180, 180], found 180.0001"),
    (0.0, -180.0001, "expected a longitude in [-180, 180], found -180.0001"),
    (0.0, -Double.infinity, "expected a longitude in [-180, 180], found -inf"),
    (0.0, Double.nan, "expected a longitude in [-180, 180], found nan"),
  ])
  func outOfRangeOrNonFiniteIsRejectedWithValueAndRange(
    latitude: Double, longitude: Double, message: String
  ) {
    #expect(
      domainErrorMessage { _ = try Coordinate(latitude: latitude, longitude: longitude) } == message
    )
  }
}

@Suite struct CalendarDateTests {
  @Test(arguments: ["1987-05-11", "2000-02-29", "0000-01-01", "9999-12-31", "1920-08-19"])
  func validDatesRoundTripThroughText(text: String) throws {
    #expect(try CalendarDate(text).description == text)
  }

  @Test(arguments: [
    "", "1987-5-11", "1987-05-1", "87-05-11", "1987/05/11", "1987-13-01", "1987-00-10",
    "1987-02-29", "1900-02-29", "1987-04-31", "1987-05-11T00:00", " 1987-05-11", "１９８７-05-11",
  ])
  func malformedOrNonexistentDatesAreRejected(text: String) {
    #expect(throws: EventsError.self) { try CalendarDate(text) }
  }

  @Test func rejectionsNameTheText() {
    #expect(
      domainErrorMessage { _ = try CalendarDate("1987-5-11") }
        == "expected a date as YYYY-MM-DD (e.g. 1987-05-11), found '1987-5-11'")
    #expect(
      domainErrorMessage { _ = try CalendarDate("1987-02-29") }
        == "expected a date as YYYY-MM-DD (e.g. 1987-05-11) that exists in the calendar, found "
        + "'1987-02-29'")
  }

  @Test func datesCompareChronologically() throws {
    #expect(try CalendarDate("1987-05-11") < CalendarDate("1987-12-01"))
    #expect(try CalendarDate("1986-12-31") < CalendarDate("1987-01-01"))
  }
}

@Suite struct ObservationIDTests {
  @Test func derivedIdsAreStableTwelveHexDigits() throws {
    // Pinned: FNV-1a 64 must never change, or re-imports would duplicate observations.
    #expect(ObservationID.fnv1a64("".utf8) == 0xCBF2_9CE4_8422_2325)
    #expect(ObservationID.fnv1a64("a".utf8) == 0xAF63_DC4C_8601_EC8C)
    #expect(ObservationID.derived(from: "a").rawValue == "af63dc4c8601")
    let date = try ObservationDate.parse("2017-06-14 18:00")
    let id = ObservationID.derived(
      source: "field-observations.json", title: "Red-tailed Hawk", date: date)
    #expect(
      id
        == ObservationID.derived(
          from: "field-observations.json\nRed-tailed Hawk\n2017-06-14T18:00:00.000Z"))
    #expect(try ObservationID(id.rawValue) == id)
  }

  @Test(arguments: [
    "", "0123456789a", "0123456789abc", "0123456789AB", "0123456789ag", "g123456789ab",
  ])
  func anythingButTwelveLowercaseHexDigitsIsRejected(text: String) {
    #expect(throws: EventsError.self) { try ObservationID(text) }
  }
}

@Suite struct ObservationDateTests {
  @Test func sourceFormIsReadInUTCByDefault() throws {
    #expect(try ObservationDate.parse("2017-06-14 18:00").description == "2017-06-14T18:00:00.000Z")
  }

  @Test func sourceFormIsReadInTheGivenZone() throws {
    let newYork = try #require(TimeZone(identifier: "America/New_York"))
    #expect(
      try ObservationDate.parse("2017-06-14 18:00", timeZone: newYork).description
        == "2017-06-14T22:00:00.000Z")
    #expect(
      try ObservationDate.parse("2017-01-14 18:00", timeZone: newYork).description
        == "2017-01-14T23:00:00.000Z")
    let taipei = try #require(TimeZone(identifier: "Asia/Taipei"))
    #expect(
      try ObservationDate.parse("2017-06-14 18:00", timeZone: taipei).description
        == "2017-06-14T10:00:00.000Z")
  }

  @Test func iso8601WithAZoneIgnoresTheGivenZone() throws {
    let newYork = try #require(TimeZone(identifier: "America/New_York"))
    #expect(
      try ObservationDate.parse("2017-06-14T18:00:03Z", timeZone: newYork).description
        == "2017-06-14T18:00:03.000Z")
    #expect(
      try ObservationDate.parse("2017-06-14T20:00:03+02:00").description
        == "2017-06-14T18:00:03.000Z")
  }

  @Test(arguments: [
    "", "2017-06-14 18", "14/06/2017 18:00", "2017-06-31 18:00", "2017-06-14 25:00", "yesterday",
  ])
  func otherTextIsRejected(text: String) {
    #expect(
      domainErrorMessage { _ = try ObservationDate.parse(text) }
        == "expected a date as 'YYYY-MM-DD HH:MM' or ISO 8601 with a zone (e.g. "
        + "'2017-06-14T18:00:03Z'), found \(DomainText.quoted(text))")
  }
}

@Suite struct IdentifierTests {
  @Test func animalIdsAreZooOrUserNumbers() throws {
    #expect(try AnimalID("zoo-1") == .imported(sourceID: 1))
    #expect(try AnimalID("user-12") == .inserted(number: 12))
    #expect(try AnimalID("user-0").isInserted)
    #expect(try !AnimalID("zoo-273").isInserted)
    #expect(try AnimalID("zoo-273").number == 273)
    #expect(try AnimalID("zoo-ailuropoda-melanoleuca").rawValue == "zoo-ailuropoda-melanoleuca")
    #expect(try !AnimalID("zoo-1a").isInserted)
  }

  /// An imported animal is its Latin name: spaces, case and diacritics do not make another.
  @Test func anImportedAnimalsIdIsItsNormalisedLatinName() throws {
    #expect(
      AnimalID.imported(latinName: "Ailuropoda melanoleuca")?.rawValue
        == "zoo-ailuropoda-melanoleuca")
    #expect(
      AnimalID.imported(latinName: "  Ailuropoda\tMELANOLEUCA \n")?.rawValue
        == "zoo-ailuropoda-melanoleuca")
    #expect(
      AnimalID.imported(latinName: "Panthera tigris tigris")?.rawValue
        == "zoo-panthera-tigris-tigris")
    #expect(
      AnimalID.imported(latinName: "Equus africanus (somaliensis)")?.rawValue
        == "zoo-equus-africanus-somaliensis")
    #expect(
      AnimalID.imported(latinName: "Ateles geoffroyi × fusciceps")?.rawValue
        == "zoo-ateles-geoffroyi-fusciceps")
    #expect(AnimalID.imported(latinName: "Pongo pygmæus")?.rawValue != nil)
    #expect(AnimalID.imported(latinName: "Bubo bubo éè")?.rawValue == "zoo-bubo-bubo-ee")
    // Nothing that is a letter: no identity (a name of digits would read as an `_id`).
    for name in ["", "   ", "123", "大貓熊", "--"] {
      #expect(AnimalID.imported(latinName: name) == nil, "\(name)")
    }
    #expect(AnimalID.imported(latinName: String(repeating: "a", count: 201)) == nil)
    #expect(AnimalID.imported(latinName: String(repeating: "a", count: 200)) != nil)
  }

  @Test(arguments: [
    "", "zoo-", "zoo-01", "zoo--1", "zoo-1A", "zoo-a--b", "zoo-a-", "zoo--a", "zoo-a b",
    "zoo-ä", "user-", "user-a", "User-1", "animal-1", "1", "zoo-1 ",
    "zoo-" + String(repeating: "a", count: 201),
  ])
  func otherAnimalIdsAreRejected(text: String) {
    #expect(throws: EventsError.self) { try AnimalID(text) }
  }

  @Test(arguments: ["", " 13", "13 ", "1\n3", String(repeating: "x", count: 201)])
  func idsThatCannotNameAStreamAreRejected(text: String) {
    #expect(throws: EventsError.self) { try ContactID(text) }
    #expect(throws: EventsError.self) { try LocationID(text) }
    #expect(throws: EventsError.self) { try StateName(text) }
  }

  @Test func idRejectionsSayWhy() {
    #expect(
      domainErrorMessage { _ = try StateName(" Ohio") }
        == "expected a state name of 1 to 200 bytes with no control characters and no leading or "
        + "trailing white space, found ' Ohio' (it starts or ends with white space; trim it)")
    #expect(
      domainErrorMessage { _ = try ContactID("") }
        == "expected a contact id of 1 to 200 bytes with no control characters and no leading or "
        + "trailing white space, found an empty string")
  }

  @Test func everyIdMakesAValidStreamName() throws {
    let longest = String(repeating: "界", count: 66)
    for stream in [
      try StateName(longest).streamName, try ContactID(longest).streamName,
      try LocationID(longest).streamName,
    ] {
      #expect(EnvelopeRules.problem(withStreamName: stream) == nil)
    }
  }
}
