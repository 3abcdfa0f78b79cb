import Testing

@testable import Events

@Suite struct DomainCodecTests {
  /// The layout of each payload type, to check the encoder's key order against.
  static let layouts: [String: PayloadLayout] = [
    "ObservationRecorded": ObservationRecorded.Key.layout,
    "ObservationRevised": ObservationRevised.Key.layout,
    "ObservationRemoved": ObservationRemoved.layout,
    "StateAdded": StateAdded.Key.layout,
    "ZipCodeAdded": ZipCodeAdded.Key.layout,
    "ZipCodeModified": ZipCodeModified.Key.layout,
    "ZipCodeRemoved": ZipCodeRemoved.Key.layout,
    "AnimalImported": AnimalImported.Key.layout,
    "AnimalInserted": AnimalInserted.Key.layout,
    "AnimalRemoved": AnimalRemoved.layout,
    "LocationAdded": LocationAdded.Key.layout,
    "LocationRenamed": LocationRenamed.Key.layout,
    "LocationMoved": LocationMoved.Key.layout,
    "LocationRemoved": LocationRemoved.layout,
    "ContactAdded": ContactAdded.Key.layout,
    "ContactUpdated": ContactUpdated.Key.layout,
    "ContactFavorited": ContactFavorited.Key.layout,
    "ContactUnfavorited": ContactUnfavorited.Key.layout,
    "ContactErased": ContactErased.layout,
  ]

  /// The layouts of nested objects, by the key that holds them.
  static let nestedLayouts: [String: PayloadLayout] = [
    "coordinate": Coordinate.Key.layout,
    "pictures": MediaLink.Key.layout,
    "pdfs": MediaLink.Key.layout,
    "voices": MediaLink.Key.layout,
  ]

  @Test(arguments: EventVocabulary.allEventTypes)
  func decodingAnEncodedEventGivesItBack(type: String) throws {
    var random = DomainRandom(seed: DomainRandom.seed(for: "round trip of \(type)"))
    for _ in 0..<300 {
      let event = try random.event(ofType: type)
      let encoded = EventVocabulary.encode(event)
      #expect(encoded.type == type)
      // A contact payload made in code encodes its plaintext form; the log seals it (schema 2).
      let sealedInTheLog = ["ContactAdded", "ContactUpdated"].contains(type)
      #expect(
        encoded.schemaVersion
          == (sealedInTheLog ? 1 : EventVocabulary.newestSchemaVersions[type]))
      #expect(encoded.stream == event.streamName)
      for strict in [true, false] {
        let decoded = try EventVocabulary.decode(
          type: type, schemaVersion: encoded.schemaVersion, data: encoded.data, strict: strict)
        #expect(decoded == event, "\(domainJSON(event))")
      }
      // Encoding is deterministic: the decoded event writes the same bytes.
      #expect(EventVocabulary.encode(event).data == encoded.data)
    }
  }

  @Test(arguments: EventVocabulary.allEventTypes)
  func encoderWritesKeysInTheLayoutsOrder(type: String) throws {
    var random = DomainRandom(seed: DomainRandom.seed(for: "key order of \(type)"))
    let layout = try #require(Self.layouts[type])
    for _ in 0..<100 {
      let event = try random.event(ofType: type)
      let value = try JSONValue.parse(EventVocabulary.encode(event).data)
      let object = try #require(value.objectValue)
      try expectKeys(object.keys, followOrderOf: layout.names, in: type)
      for member in object.members {
        guard let nested = Self.nestedLayouts[member.key] else { continue }
        let objects = member.value.arrayValue ?? [member.value]
        for element in objects {
          try expectKeys(
            try #require(element.objectValue).keys, followOrderOf: nested.names, in: member.key)
        }
      }
    }
  }

  private func expectKeys(
    _ keys: [String], followOrderOf names: [String], in context: String
  ) throws {
    var indices: [Int] = []
    for key in keys {
      indices.append(try #require(names.firstIndex(of: key), "'\(key)' in \(context)"))
    }
    #expect(indices == indices.sorted() && Set(indices).count == indices.count, "\(keys)")
  }

  // MARK: Exact shapes

  @Test func contactFavoritedEncodesAsDocumented() throws {
    let event = DomainEvent.contact(.favorited(ContactFavorited(id: try ContactID("13"))))
    #expect(domainJSON(event) == #"{"id":"13"}"#)
    let imported = DomainEvent.contact(
      .favorited(ContactFavorited(id: try ContactID("13"), source: "contacts-v3.json")))
    #expect(domainJSON(imported) == #"{"id":"13","source":"contacts-v3.json"}"#)
  }

  @Test func observationRecordedStoresTheDateInTheLogsForm() throws {
    let date = try ObservationDate.parse("2017-06-14 18:00")
    let event = DomainEvent.observation(
      .recorded(
        ObservationRecorded(
          id: try ObservationID("0123456789ab"),
          record: ObservationRecord(
            classification: .bird, title: "Red-tailed Hawk", description: "In a tree.",
            date: date))))
    #expect(
      domainJSON(event)
        == #"{"id":"0123456789ab","classification":"bird","title":"Red-tailed Hawk","#
        + #""description":"In a tree.","date":"2017-06-14T18:00:00.000Z"}"#)
  }

  @Test func contactUpdatedWritesNullForAClearedFieldAndOmitsUnchangedOnes() throws {
    var update = ContactUpdated(id: try ContactID("13"))
    update.companyName = .cleared
    update.mobilePhone = .set("555-0100")
    update.city = .cleared
    let json = domainJSON(.contact(.updated(update)))
    #expect(
      json
        == #"{"id":"13","companyName":null,"phone":{"mobile":"555-0100"},"address":{"city":null}}"#)
    #expect(try domainDecode("ContactUpdated", json) == .contact(.updated(update)))
  }

  @Test func locationAddedWritesANamedCoordinate() throws {
    let record = LocationRecord(
      id: try LocationID("2298eb8d-255e-4198-a20c-cc9c2eac0cf7"), name: "Alpha",
      coordinate: try Coordinate(latitude: -34.98520411042454, longitude: 149.98458041136354))
    #expect(
      domainJSON(.location(.added(LocationAdded(record: record))))
        == #"{"id":"2298eb8d-255e-4198-a20c-cc9c2eac0cf7","name":"Alpha","#
        + #""coordinate":{"latitude":-34.98520411042454,"longitude":149.98458041136354}}"#)
  }

  // MARK: Strict decoding errors

  @Test func strictDecodingRejectsAnUnknownKeyNamingTheAllowedOnes() {
    let message = domainErrorMessage {
      _ = try domainDecode("ContactFavorited", #"{"id":"13","favorite":true}"#)
    }
    #expect(
      message
        == "'ContactFavorited' data: unknown field 'favorite'; allowed fields are 'id', 'source'")
  }

  @Test func strictDecodingSuggestsTheClosestKey() {
    let message = domainErrorMessage {
      _ = try domainDecode("ContactFavorited", #"{"id":"13","sorce":"x"}"#)
    }
    #expect(
      message
        == "'ContactFavorited' data: unknown field 'sorce'; allowed fields are 'id', 'source'; "
        + "did you mean 'source'?")
  }

  @Test func strictDecodingRejectsAnUnknownNestedKeyWithItsPath() {
    let message = domainErrorMessage {
      _ = try domainDecode(
        "ContactAdded", #"{"id":"1","name":"A","isFavorite":false,"phone":{"fax":"1"}}"#)
    }
    #expect(
      message
        == "'ContactAdded' data: unknown field 'phone.fax'; allowed fields are 'work', 'home', "
        + "'mobile'")
  }

  @Test func strictDecodingRejectsARepeatedKey() {
    let message = domainErrorMessage {
      _ = try domainDecode("ContactFavorited", #"{"id":"13","id":"14"}"#)
    }
    #expect(message == "'ContactFavorited' data: field 'id' appears more than once; keep one")
  }

  @Test func lenientDecodingSkipsUnknownKeysAtAnyDepthAndKeepsTheLastRepeatedKey() throws {
    let json =
      #"{"future":{"a":[1,{"b":null}]},"id":"1","name":"A","isFavorite":true,"#
      + #""phone":{"fax":"1","home":"2"},"id":"2","rating":5}"#
    let event = try domainDecode("ContactAdded", json, strict: false)
    let expected = ContactRecord(
      id: try ContactID("2"), name: "A", isFavorite: true, phone: PhoneNumbers(home: "2"))
    #expect(event == .contact(.added(ContactAdded(record: expected))))
  }

  @Test func missingRequiredFieldIsNamedWithWhatItMustHold() {
    let message = domainErrorMessage {
      _ = try domainDecode("ZipCodeAdded", #"{"state":"New York"}"#)
    }
    #expect(
      message
        == "'ZipCodeAdded' data: field 'zipCode' is missing; expected a zip code of 5 digits or "
        + "ZIP+4 (12345 or 12345-6789)")
  }

  @Test func missingNestedFieldIsNamedWithItsPath() {
    let message = domainErrorMessage {
      _ = try domainDecode("LocationMoved", #"{"id":"a","coordinate":{"latitude":1}}"#)
    }
    #expect(
      message
        == "'LocationMoved' data: field 'coordinate.longitude' is missing; expected a longitude "
        + "in [-180, 180]")
  }

  @Test func invalidZipCodeNamesTypeFieldExpectationAndValue() {
    let message = domainErrorMessage {
      _ = try domainDecode("ZipCodeModified", #"{"state":"Alabama","from":"35004","to":"350HH"}"#)
    }
    #expect(
      message
        == "'ZipCodeModified' data: field 'to': expected a zip code of 5 digits or ZIP+4 (12345 "
        + "or 12345-6789), found '350HH'")
  }

  @Test func wrongKindsAreNamedWithWhatWasFound() {
    #expect(
      domainErrorMessage {
        _ = try domainDecode("ContactAdded", #"{"id":"1","name":"A","isFavorite":"yes"}"#)
      } == "'ContactAdded' data: field 'isFavorite': expected true or false, found 'yes'")
    #expect(
      domainErrorMessage {
        _ = try domainDecode("ZipCodeRemoved", #"{"state":"Ohio","zipCode":43004}"#)
      }
        == "'ZipCodeRemoved' data: field 'zipCode': expected a zip code of 5 digits or ZIP+4 "
        + "(12345 or 12345-6789), found the number 43004")
    #expect(
      domainErrorMessage { _ = try domainDecode("StateAdded", "[1]") }
        == "'StateAdded' data: expected an object, found an array")
    #expect(
      domainErrorMessage {
        _ = try domainDecode("LocationAdded", #"{"id":"a","name":"A","coordinate":[1,2]}"#)
      }
        == "'LocationAdded' data: field 'coordinate': expected an object, found an array")
    #expect(
      domainErrorMessage { _ = try domainDecode("AnimalImported", #"{"sourceID":1.5}"#) }
        == "'AnimalImported' data: field 'sourceID': expected the source's _id, a whole number "
        + "from 0, found the number 1.5")
    #expect(
      domainErrorMessage {
        _ = try domainDecode("AnimalImported", #"{"sourceID":1,"pictures":[{"url":1}]}"#)
      } == "'AnimalImported' data: field 'pictures[0].url': expected a string, found the number 1")
  }

  @Test func invalidValuesAreNamed() {
    #expect(
      domainErrorMessage {
        _ = try domainDecode(
          "ObservationRemoved", #"{"id":"0123456789AB"}"#)
      }
        == "'ObservationRemoved' data: field 'id': expected an observation id of 12 lowercase hex "
        + "digits (e.g. '3f2a9c0d41b7'), found '0123456789AB'")
    #expect(
      domainErrorMessage {
        _ = try domainDecode(
          "ObservationRevised", #"{"id":"0123456789ab","classification":"dinosaur"}"#)
      }
        == "'ObservationRevised' data: field 'classification': expected one of 'amphibian', "
        + "'bird', 'fish', 'insect', 'mammal', 'plant', 'reptile', found 'dinosaur'")
    #expect(
      domainErrorMessage {
        _ = try domainDecode(
          "ObservationRevised", #"{"id":"0123456789ab","date":"2017-06-14 18:00"}"#)
      }
        == "'ObservationRevised' data: field 'date': expected an instant as "
        + "'YYYY-MM-DDTHH:MM:SS.sssZ', found '2017-06-14 18:00'")
    #expect(
      domainErrorMessage {
        _ = try domainDecode(
          "ContactAdded", #"{"id":"1","name":"A","isFavorite":true,"birthdate":"1987-02-30"}"#)
      }
        == "'ContactAdded' data: field 'birthdate': expected a date as YYYY-MM-DD (e.g. "
        + "1987-05-11) that exists in the calendar, found '1987-02-30'")
    #expect(
      domainErrorMessage {
        _ = try domainDecode(
          "LocationMoved", #"{"id":"a","coordinate":{"latitude":91,"longitude":0}}"#)
      }
        == "'LocationMoved' data: field 'coordinate.latitude': expected a latitude in [-90, 90], "
        + "found 91.0")
    #expect(
      domainErrorMessage {
        _ = try domainDecode("AnimalInserted", #"{"id":"zoo-1","name":"Lion","description":""}"#)
      }
        == "'AnimalInserted' data: field 'id': expected an inserted animal's id 'user-<n>' (e.g. "
        + "'user-1'), found 'zoo-1'")
    #expect(
      domainErrorMessage { _ = try domainDecode("LocationRenamed", #"{"id":"a","name":"  "}"#) }
        == "'LocationRenamed' data: field 'name': expected a name that is not empty or only white "
        + "space, found '  '")
  }

  @Test func blankNamesAreKeptOnReplay() throws {
    let event = try domainDecode("LocationRenamed", #"{"id":"a","name":" "}"#, strict: false)
    #expect(event == .location(.renamed(LocationRenamed(id: try LocationID("a"), name: " "))))
  }

  @Test func malformedJSONIsReportedWithItsOffset() {
    #expect(
      domainErrorMessage { _ = try domainDecode("StateAdded", #"{"state":"Ohio",}"#) }
        == "'StateAdded' data: expected a string, found '}' at byte 16")
    #expect(
      domainErrorMessage { _ = try domainDecode("StateAdded", #"{"state":"Ohio"} x"#) }
        == "'StateAdded' data: expected end of input, found 'x' at byte 17")
  }

  @Test func contactNormalizesEmptyAndNullOptionalFieldsToAbsent() throws {
    let json =
      #"{"id":"3","name":"Elmer Fudd","companyName":"","isFavorite":false,"emailAddress":null,"#
      + #""birthdate":"","phone":{"home":"732-442-5218","mobile":"","work":null}}"#
    let event = try domainDecode("ContactAdded", json)
    let record = ContactRecord(
      id: try ContactID("3"), name: "Elmer Fudd", phone: PhoneNumbers(home: "732-442-5218"))
    #expect(event == .contact(.added(ContactAdded(record: record))))
    #expect(
      domainJSON(.contact(.added(ContactAdded(record: record))))
        == #"{"id":"3","name":"Elmer Fudd","isFavorite":false,"phone":{"home":"732-442-5218"}}"#)
  }

  // MARK: Schema versions

  @Test(arguments: EventVocabulary.allEventTypes)
  func newerSchemaVersionIsRefusedNamingTheNewestKnown(type: String) {
    let newest = EventVocabulary.newestSchemaVersions[type] ?? 1
    let message = domainErrorMessage {
      _ = try domainDecode(type, "{}", schemaVersion: newest + 1)
    }
    #expect(
      message
        == "event type '\(type)' has schema version \(newest + 1), but this engine knows versions "
        + "up to \(newest); upgrade replay to read it")
    let zero = domainErrorMessage {
      _ = try domainDecode(type, "{}", schemaVersion: 0, strict: false)
    }
    #expect(
      zero
        == "event type '\(type)' has schema version 0, but versions start at 1; use a version "
        + "from 1 to \(newest)")
  }

  @Test func newerSchemaVersionIsACaseCarryingTheNumbers() {
    #expect(throws: EventsError.unsupportedSchemaVersion(type: "ZipCodeAdded", found: 3, newest: 1))
    {
      _ = try domainDecode("ZipCodeAdded", #"{"state":"Ohio","zipCode":"43004"}"#, schemaVersion: 3)
    }
  }
}
