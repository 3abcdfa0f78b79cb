import Testing

@testable import Events

@Suite struct EventVocabularyTests {
  @Test func everyTypeHasADistinctStableNameAndVersionOne() {
    #expect(
      EventVocabulary.allEventTypes == [
        "ObservationRecorded", "ObservationRevised", "ObservationRemoved",
        "StateAdded", "ZipCodeAdded", "ZipCodeModified", "ZipCodeRemoved",
        "AnimalImported", "AnimalInserted", "AnimalRemoved",
        "LocationAdded", "LocationRenamed", "LocationMoved", "LocationRemoved",
        "ContactAdded", "ContactUpdated", "ContactFavorited", "ContactUnfavorited",
        "ContactErased",
      ])
    #expect(EventVocabulary.newestSchemaVersions.count == 19)
    // AnimalImported is at 2: its animal is named by its Latin name since then. The contact
    // payloads are at 2 in the log: their personal data sealed.
    #expect(
      EventVocabulary.newestSchemaVersions.allSatisfy { type, version in
        version == (["AnimalImported", "ContactAdded", "ContactUpdated"].contains(type) ? 2 : 1)
      })
    for type in EventVocabulary.allEventTypes {
      #expect(EnvelopeRules.problem(withTypeName: type) == nil)
    }
  }

  @Test(arguments: EventVocabulary.allEventTypes)
  func dispatchOnTheRawNameFindsTheType(type: String) throws {
    var random = DomainRandom(seed: DomainRandom.seed(for: "dispatch of \(type)"))
    let event = try random.event(ofType: type)
    #expect(event.eventType == type)
    let encoded = EventVocabulary.encode(event)
    let decoded = try EventVocabulary.decode(
      type: type, schemaVersion: encoded.schemaVersion, data: encoded.data, strict: true)
    #expect(decoded?.eventType == type)
    #expect(decoded == event)
  }

  @Test func decodingFromACursorInsideALineLeavesTheCursorAfterThePayload() throws {
    let line = Array(#"{"type":"ContactFavorited","data":{"id":"13"},"seq":7}"#.utf8)
    let typeName = Array("ContactFavorited".utf8)
    let result: (DomainEvent?, UInt8?) = try line.withUnsafeBytes { buffer in
      var cursor = JSONCursor(buffer)
      cursor.position = 34
      let event = try typeName.withUnsafeBufferPointer { name in
        try EventVocabulary.decode(type: name, schemaVersion: 1, data: &cursor, strict: false)
      }
      return (event, cursor.currentByte)
    }
    #expect(result.0 == .contact(.favorited(ContactFavorited(id: try ContactID("13")))))
    #expect(result.1 == UInt8(ascii: ","))
  }

  @Test func unknownTypeIsNilOnReplay() throws {
    #expect(try domainDecode("InvoiceSent", #"{"id":1}"#, strict: false) == nil)
    #expect(try domainDecode("ZipCodeModifed", #"{"id":1}"#, strict: false) == nil)
  }

  @Test func unknownTypeIsAnErrorWithASuggestionWhenStrict() {
    #expect(throws: EventsError.unknownEventType("ZipCodeModifed", suggestion: "ZipCodeModified")) {
      _ = try domainDecode("ZipCodeModifed", "{}")
    }
    #expect(
      domainErrorMessage { _ = try domainDecode("ZipCodeModifed", "{}") }
        == "unknown event type 'ZipCodeModifed'; did you mean 'ZipCodeModified'?")
    #expect(
      domainErrorMessage { _ = try domainDecode("contactfavorited", "{}") }
        == "unknown event type 'contactfavorited'; did you mean 'ContactFavorited'?")
  }

  @Test func unknownTypeFarFromEveryNameListsTheKnownOnes() throws {
    let message = try #require(domainErrorMessage { _ = try domainDecode("InvoiceSent", "{}") })
    #expect(message.hasPrefix("unknown event type 'InvoiceSent'; the known types are "))
    #expect(message.hasSuffix("ContactFavorited, ContactUnfavorited, ContactErased"))
  }

  @Test func encodeGivesTypeVersionStreamAndBytes() throws {
    let event = DomainEvent.state(
      .zipCodeModified(
        ZipCodeModified(
          state: try StateName("New York"), from: try ZipCode("10001"), to: try ZipCode("10002"))))
    let encoded = EventVocabulary.encode(event)
    #expect(encoded.type == "ZipCodeModified")
    #expect(encoded.schemaVersion == 1)
    #expect(encoded.stream == "state-New York")
    #expect(
      String(decoding: encoded.data, as: UTF8.self)
        == #"{"state":"New York","from":"10001","to":"10002"}"#)
    let proposed = EventVocabulary.proposedEvent(event, metadata: EventMetadata(actor: "ana"))
    #expect(proposed.stream == "state-New York")
    #expect(proposed.event.type == "ZipCodeModified")
    #expect(proposed.event.data == encoded.data)
    #expect(proposed.event.metadata.actor == "ana")
  }

  @Test func validateAcceptsAPayloadInItsOwnStream() throws {
    let event = try EventVocabulary.validate(
      type: "ContactFavorited", schemaVersion: 1, data: Array(#"{"id":"13"}"#.utf8),
      stream: "contact-13")
    #expect(event == .contact(.favorited(ContactFavorited(id: try ContactID("13")))))
  }

  @Test func validateRefusesAnotherStreamNamingTheExpectedOne() {
    #expect(
      throws: EventsError.streamMismatch(
        type: "ContactFavorited", expected: "contact-13", found: "contact-12")
    ) {
      try EventVocabulary.validate(
        type: "ContactFavorited", schemaVersion: 1, data: Array(#"{"id":"13"}"#.utf8),
        stream: "contact-12")
    }
    let message = domainErrorMessage {
      try EventVocabulary.validate(
        type: "ZipCodeAdded", schemaVersion: 1,
        data: Array(#"{"state":"New York","zipCode":"10001"}"#.utf8), stream: "state-Ohio")
    }
    #expect(
      message
        == "'ZipCodeAdded' belongs in stream 'state-New York', not 'state-Ohio'; append it to "
        + "'state-New York'")
  }

  @Test func validateIsStrict() {
    #expect(
      domainErrorMessage {
        try EventVocabulary.validate(
          type: "ContactFavorited", schemaVersion: 1, data: Array(#"{"id":"13","x":1}"#.utf8),
          stream: "contact-13")
      } == "'ContactFavorited' data: unknown field 'x'; allowed fields are 'id', 'source'")
    #expect(
      domainErrorMessage {
        try EventVocabulary.validate(
          type: "ZipCodeModifed", schemaVersion: 1, data: Array("{}".utf8), stream: "state-x")
      } == "unknown event type 'ZipCodeModifed'; did you mean 'ZipCodeModified'?")
    #expect(
      domainErrorMessage {
        try EventVocabulary.validate(
          type: "ContactFavorited", schemaVersion: 2, data: Array(#"{"id":"13"}"#.utf8),
          stream: "contact-13")
      }
        == "event type 'ContactFavorited' has schema version 2, but this engine knows versions "
        + "up to 1; upgrade replay to read it")
  }

  @Test func validateRejectsInvalidUTF8AndLoneSurrogates() {
    var bytes = Array(#"{"id":"1"#.utf8)
    bytes += [0xFF]
    bytes += Array(#""}"#.utf8)
    #expect(
      domainErrorMessage {
        try EventVocabulary.validate(
          type: "ContactFavorited", schemaVersion: 1, data: bytes, stream: "contact-1")
      } == "'ContactFavorited' data: expected valid UTF-8, found an invalid byte sequence at byte 8"
    )
    #expect(
      domainErrorMessage {
        try EventVocabulary.validate(
          type: "ContactFavorited", schemaVersion: 1, data: Array(#"{"id":"\ud800"}"#.utf8),
          stream: "contact-1")
      }
        == "'ContactFavorited' data: expected a low surrogate after a high one, found a lone high "
        + "surrogate at byte 7")
  }

  @Test func streamsFollowTheDocumentedNaming() throws {
    #expect(
      DomainEvent.observation(.removed(ObservationRemoved(id: try ObservationID("0123456789ab"))))
        .streamName == "observation-0123456789ab")
    #expect(
      DomainEvent.zoo(.removed(AnimalRemoved(id: .imported(sourceID: 1)))).streamName
        == "animal-zoo-1")
    #expect(
      DomainEvent.zoo(.removed(AnimalRemoved(id: .inserted(number: 3)))).streamName
        == "animal-user-3")
    #expect(
      DomainEvent.location(.removed(LocationRemoved(id: try LocationID("a3a2d144")))).streamName
        == "location-a3a2d144")
    #expect(EventVocabulary.entityKind(ofStream: "state-New York") == .state)
    #expect(EventVocabulary.entityKind(ofStream: "animal-user-3") == .animal)
    #expect(EventVocabulary.entityKind(ofStream: "billing-7") == nil)
  }

  @Test func decidersWrapAndUnwrapOnlyTheirOwnDomainsEvents() throws {
    let favorited = ContactEvent.favorited(ContactFavorited(id: try ContactID("13")))
    let wrapped = ContactDecider.domainEvent(favorited)
    #expect(wrapped == .contact(favorited))
    #expect(ContactDecider.event(from: wrapped) == favorited)
    #expect(ObservationDecider.event(from: wrapped) == nil)
    #expect(USStateDecider.event(from: wrapped) == nil)
    #expect(ZooDecider.event(from: wrapped) == nil)
    #expect(LocationDecider.event(from: wrapped) == nil)
    let removed = LocationEvent.removed(LocationRemoved(id: try LocationID("a")))
    #expect(LocationDecider.event(from: LocationDecider.domainEvent(removed)) == removed)
  }

  @Test func commandsNameTheirStreamAndThemselves() throws {
    let command = ContactCommand.favoriteContact(id: try ContactID("13"))
    #expect(command.streamName == "contact-13")
    #expect(command.name == "favoriteContact")
    let modify = USStateCommand.modifyZipCode(
      state: try StateName("New York"), from: try ZipCode("10001"), to: try ZipCode("10002"))
    #expect(modify.streamName == "state-New York")
    #expect(modify.name == "modifyZipCode")
    let insert = ZooCommand.insertAnimal(
      id: .inserted(number: 4), name: "Pip", description: "", picturePath: nil)
    #expect(insert.streamName == "animal-user-4")
  }
}
