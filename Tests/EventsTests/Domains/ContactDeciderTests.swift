import Testing

@testable import Events

@Suite struct ContactDeciderTests {
  let id: ContactID
  let piggy: ContactRecord

  init() throws {
    id = try ContactID("13")
    piggy = ContactRecord(
      id: id, name: "Miss Piggy", companyName: "Muppets, Baby", isFavorite: false,
      smallImageURL: "https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-small.jpg",
      largeImageURL: "https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-large.jpg",
      emailAddress: "Miss.Piggy@muppetsbaby.com", birthdate: try CalendarDate("1987-05-11"),
      phone: PhoneNumbers(work: "602-225-9543", home: "602-225-9188", mobile: ""),
      address: PostalAddress(
        street: "3530 E Washington St", city: "Phoenix", state: "AZ", country: "US",
        zipCode: "85034"))
  }

  func added(favorite: Bool = false) -> ContactDecider.State {
    var record = piggy
    record.isFavorite = favorite
    return ContactDecider.fold([.added(ContactAdded(record: record))])
  }

  // MARK: Add

  @Test func addingANewContactAppendsAdded() throws {
    let events = try ContactDecider.decide(.addContact(piggy), .initial)
    #expect(events == [.added(ContactAdded(record: piggy))])
    #expect(domainStreams(ContactDecider.self, events) == ["contact-13"])
    #expect(piggy.phone.mobile == nil)
  }

  @Test func addingAnExistingIdOrABlankNameIsAnError() {
    #expect(throws: EventsError.entityAlreadyExists(kind: .contact, id: "13")) {
      try ContactDecider.decide(.addContact(piggy), added())
    }
    var blank = piggy
    blank.name = ""
    #expect(throws: EventsError.self) { try ContactDecider.decide(.addContact(blank), .initial) }
  }

  // MARK: Favourites

  @Test func favoritingAppendsFavorited() throws {
    let events = try ContactDecider.decide(.favoriteContact(id: id), added())
    #expect(events == [.favorited(ContactFavorited(id: id))])
    #expect(ContactDecider.evolve(added(), events[0]).record?.isFavorite == true)
  }

  @Test func favoritingAFavoriteAppendsNothingAndSaysWhy() throws {
    let decision = try ContactDecider.decision(.favoriteContact(id: id), added(favorite: true))
    #expect(decision.events.isEmpty)
    #expect(decision.noChangeReason == "contact '13' is already a favorite")
  }

  @Test func favoritingAnUnknownContactIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .contact, id: "13")) {
      try ContactDecider.decide(.favoriteContact(id: id), .initial)
    }
    #expect(
      domainErrorMessage { _ = try ContactDecider.decide(.favoriteContact(id: id), .initial) }
        == "no contact '13' exists (stream 'contact-13' has no events); add or import it first")
  }

  @Test func unfavoritingAppendsUnfavorited() throws {
    let events = try ContactDecider.decide(.unfavoriteContact(id: id), added(favorite: true))
    #expect(events == [.unfavorited(ContactUnfavorited(id: id))])
    #expect(ContactDecider.evolve(added(favorite: true), events[0]).record?.isFavorite == false)
  }

  @Test func unfavoritingANonFavoriteAppendsNothingAndSaysWhy() throws {
    let decision = try ContactDecider.decision(.unfavoriteContact(id: id), added())
    #expect(decision.events.isEmpty)
    #expect(decision.noChangeReason == "contact '13' is not a favorite")
  }

  @Test func unfavoritingAnUnknownContactIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .contact, id: "13")) {
      try ContactDecider.decide(.unfavoriteContact(id: id), .initial)
    }
  }

  // MARK: Update

  @Test func updatingAppendsOnlyTheChangedFields() throws {
    var changed = piggy
    changed.emailAddress = "piggy@example.com"
    changed.phone.home = nil
    changed.isFavorite = true
    let events = try ContactDecider.decide(.updateContact(changed), added())
    var update = ContactUpdated(id: id)
    update.emailAddress = .set("piggy@example.com")
    update.homePhone = .cleared
    #expect(events == [.updated(update), .favorited(ContactFavorited(id: id))])
    #expect(ContactDecider.fold([.added(ContactAdded(record: piggy))] + events).record == changed)
  }

  @Test func updatingToTheSameValuesAppendsNothingAndSaysWhy() throws {
    let decision = try ContactDecider.decision(.updateContact(piggy), added())
    #expect(decision.events.isEmpty)
    #expect(decision.noChangeReason == "contact '13' already has these values")
  }

  @Test func updatingAnUnknownContactIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .contact, id: "13")) {
      try ContactDecider.decide(.updateContact(piggy), .initial)
    }
  }

  // MARK: Import

  @Test func importingANewContactAddsItWithItsSource() throws {
    let events = try ContactDecider.decide(
      .importContact(piggy, source: "contacts-v3.json"), .initial)
    #expect(events == [.added(ContactAdded(record: piggy, source: "contacts-v3.json"))])
    #expect(ContactDecider.fold(events).lastImported == piggy)
  }

  @Test func reimportingTheSameRecordAppendsNothing() throws {
    let command = ContactCommand.importContact(piggy, source: "contacts-v3.json")
    let result = try domainRun(ContactDecider.self, [command, command])
    #expect(result.last.events.isEmpty)
    #expect(result.last.noChangeReason == "contact '13' is unchanged since its last import")
  }

  @Test func reimportingKeepsTheUsersFavoriteAndOtherChanges() throws {
    let command = ContactCommand.importContact(piggy, source: "contacts-v3.json")
    var userVersion = piggy
    userVersion.phone.mobile = "602-555-0100"
    userVersion.isFavorite = true
    let result = try domainRun(
      ContactDecider.self,
      [command, .favoriteContact(id: id), .updateContact(userVersion), command])
    #expect(result.last.events.isEmpty)
    #expect(result.state.record?.isFavorite == true)
    #expect(result.state.record?.phone.mobile == "602-555-0100")
  }

  @Test func reimportingAChangedRecordUpdatesOnlyWhatTheSourceChanged() throws {
    var newVersion = piggy
    newVersion.emailAddress = "piggy@muppets.example"
    newVersion.companyName = nil
    newVersion.isFavorite = true
    var userVersion = piggy
    userVersion.address.city = "Tempe"
    let result = try domainRun(
      ContactDecider.self,
      [
        .importContact(piggy, source: "v3.json"),
        .updateContact(userVersion),
        .importContact(newVersion, source: "v4.json"),
      ])
    var update = ContactUpdated(id: id, source: "v4.json")
    update.companyName = .cleared
    update.emailAddress = .set("piggy@muppets.example")
    #expect(
      result.last.events == [
        .updated(update), .favorited(ContactFavorited(id: id, source: "v4.json")),
      ])
    #expect(result.state.record?.address.city == "Tempe")
    #expect(result.state.record?.emailAddress == "piggy@muppets.example")
    #expect(result.state.record?.isFavorite == true)
    #expect(result.state.lastImported == newVersion)
    let again = try ContactDecider.decision(
      .importContact(newVersion, source: "v4.json"), result.state)
    #expect(again.events.isEmpty)
  }

  @Test func sourceUnfavoritingIsAppliedAndAUserReFavoriteSurvivesTheNextImport() throws {
    var favorite = piggy
    favorite.isFavorite = true
    let result = try domainRun(
      ContactDecider.self,
      [
        .importContact(favorite, source: "a"), .importContact(piggy, source: "b"),
        .favoriteContact(id: id), .importContact(piggy, source: "b"),
      ])
    #expect(result.last.events.isEmpty)
    #expect(result.state.record?.isFavorite == true)
  }
}
