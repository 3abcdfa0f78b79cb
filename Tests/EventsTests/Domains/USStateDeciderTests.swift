import Testing

@testable import Events

@Suite struct USStateDeciderTests {
  let newYork: StateName
  let zip10001: ZipCode
  let zip10002: ZipCode
  let zip10003: ZipCode

  init() throws {
    newYork = try StateName("New York")
    zip10001 = try ZipCode("10001")
    zip10002 = try ZipCode("10002")
    zip10003 = try ZipCode("10003")
  }

  /// New York with 10001 and 10002, added by a user.
  func newYorkWithTwoZipCodes() throws -> USStateDecider.State {
    try domainRun(
      USStateDecider.self,
      [
        .addState(newYork), .addZipCode(state: newYork, zipCode: zip10001),
        .addZipCode(state: newYork, zipCode: zip10002),
      ]
    ).state
  }

  // MARK: States

  @Test func addingANewStateAppendsStateAdded() throws {
    let events = try USStateDecider.decide(.addState(newYork), .initial)
    #expect(events == [.stateAdded(StateAdded(state: newYork))])
    #expect(domainStreams(USStateDecider.self, events) == ["state-New York"])
  }

  @Test func addingAnExistingStateIsAnError() throws {
    #expect(throws: EventsError.entityAlreadyExists(kind: .state, id: "New York")) {
      try USStateDecider.decide(.addState(newYork), try newYorkWithTwoZipCodes())
    }
    #expect(
      EventsError.entityAlreadyExists(kind: .state, id: "New York").description
        == "state 'New York' already exists (stream 'state-New York'); add its zip codes instead")
  }

  // MARK: Adding zip codes

  @Test func addingAZipCodeAppendsItToTheList() throws {
    let state = try newYorkWithTwoZipCodes()
    let events = try USStateDecider.decide(.addZipCode(state: newYork, zipCode: zip10003), state)
    #expect(events == [.zipCodeAdded(ZipCodeAdded(state: newYork, zipCode: zip10003))])
    #expect(USStateDecider.evolve(state, events[0]).zipCodes == [zip10001, zip10002, zip10003])
  }

  @Test func addingAZipCodeTheStateHasIsAnError() throws {
    let error = EventsError.zipCodeAlreadyInState(
      state: "New York", zipCode: "10001", replacing: nil)
    #expect(throws: error) {
      try USStateDecider.decide(
        .addZipCode(state: newYork, zipCode: zip10001), try newYorkWithTwoZipCodes())
    }
    #expect(
      error.description
        == "state 'New York' already has zip code '10001'; a zip code appears once per state")
  }

  @Test func addingAZipCodeToAStateThatDoesNotExistIsAnError() {
    let error = EventsError.unknownEntity(kind: .state, id: "New York")
    #expect(throws: error) {
      try USStateDecider.decide(.addZipCode(state: newYork, zipCode: zip10001), .initial)
    }
    #expect(
      error.description
        == "no state 'New York' exists (stream 'state-New York' has no events); add the state first"
    )
  }

  @Test(arguments: ["", "350HH", "1234", " 10001", "10001 ", "100 01", "10001-12"])
  func emptyOrMalformedInputNeverBecomesAZipCode(text: String) {
    #expect(throws: EventsError.self) { try ZipCode(text) }
  }

  @Test func theSameZipCodeMayBelongToTwoStates() throws {
    let alaska = try StateName("Alaska")
    let arizona = try StateName("Arizona")
    let zip = try ZipCode("99501")
    let inAlaska = try domainRun(
      USStateDecider.self, [.addState(alaska), .addZipCode(state: alaska, zipCode: zip)])
    let inArizona = try domainRun(
      USStateDecider.self, [.addState(arizona), .addZipCode(state: arizona, zipCode: zip)])
    #expect(inAlaska.state.zipCodes == [zip])
    #expect(inArizona.state.zipCodes == [zip])
  }

  // MARK: Modifying zip codes

  @Test func modifyingAZipCodeKeepsItsPlace() throws {
    let state = try newYorkWithTwoZipCodes()
    let events = try USStateDecider.decide(
      .modifyZipCode(state: newYork, from: zip10001, to: zip10003), state)
    #expect(
      events == [.zipCodeModified(ZipCodeModified(state: newYork, from: zip10001, to: zip10003))])
    let after = USStateDecider.evolve(state, events[0])
    #expect(after.zipCodes == [zip10003, zip10002])
    #expect(after.contains(zip10003))
    #expect(!after.contains(zip10001))
  }

  @Test func modifyingAZipCodeTheStateDoesNotHaveIsAnErrorNamingBoth() throws {
    let error = EventsError.zipCodeNotInState(
      state: "New York", zipCode: "10003", replacement: "10001")
    #expect(throws: error) {
      try USStateDecider.decide(
        .modifyZipCode(state: newYork, from: zip10003, to: zip10001), try newYorkWithTwoZipCodes())
    }
    #expect(
      error.description
        == "cannot change zip code '10003' to '10001' in state 'New York': the state has no '10003'"
    )
  }

  @Test func modifyingIntoAZipCodeTheStateHasIsAnErrorNamingBoth() throws {
    let error = EventsError.zipCodeAlreadyInState(
      state: "New York", zipCode: "10002", replacing: "10001")
    #expect(throws: error) {
      try USStateDecider.decide(
        .modifyZipCode(state: newYork, from: zip10001, to: zip10002), try newYorkWithTwoZipCodes())
    }
    #expect(
      error.description
        == "cannot change zip code '10001' to '10002' in state 'New York': the state already has "
        + "'10002'")
    #expect(throws: EventsError.self) {
      try USStateDecider.decide(
        .modifyZipCode(state: newYork, from: zip10001, to: zip10001), try newYorkWithTwoZipCodes())
    }
  }

  @Test func modifyingInAStateThatDoesNotExistIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .state, id: "New York")) {
      try USStateDecider.decide(
        .modifyZipCode(state: newYork, from: zip10001, to: zip10002), .initial)
    }
  }

  // MARK: Removing zip codes

  @Test func removingAZipCodeTakesItOutOfTheList() throws {
    let state = try newYorkWithTwoZipCodes()
    let events = try USStateDecider.decide(.removeZipCode(state: newYork, zipCode: zip10001), state)
    #expect(events == [.zipCodeRemoved(ZipCodeRemoved(state: newYork, zipCode: zip10001))])
    #expect(USStateDecider.evolve(state, events[0]).zipCodes == [zip10002])
  }

  @Test func removingAZipCodeTheStateDoesNotHaveIsAnError() throws {
    let error = EventsError.zipCodeNotInState(state: "New York", zipCode: "10003", replacement: nil)
    #expect(throws: error) {
      try USStateDecider.decide(
        .removeZipCode(state: newYork, zipCode: zip10003), try newYorkWithTwoZipCodes())
    }
    #expect(error.description == "state 'New York' has no zip code '10003'")
  }

  // MARK: Import

  @Test func importingAMissingStateAddsItAndItsZipCodesOnceEachInSourceOrder() throws {
    let events = try USStateDecider.decide(
      .importState(newYork, zipCodes: [zip10002, zip10001, zip10002], source: "states.plist"),
      .initial)
    #expect(
      events == [
        .stateAdded(StateAdded(state: newYork, source: "states.plist")),
        .zipCodeAdded(ZipCodeAdded(state: newYork, zipCode: zip10002, source: "states.plist")),
        .zipCodeAdded(ZipCodeAdded(state: newYork, zipCode: zip10001, source: "states.plist")),
      ])
    let state = USStateDecider.fold(events)
    #expect(state.zipCodes == [zip10002, zip10001])
    #expect(state.lastImportedZipCodes == [zip10001, zip10002])
  }

  @Test func reimportingTheSameZipCodesAppendsNothing() throws {
    let command = USStateCommand.importState(newYork, zipCodes: [zip10001, zip10002], source: "a")
    let result = try domainRun(USStateDecider.self, [command, command])
    #expect(result.last.events.isEmpty)
    #expect(
      result.last.noChangeReason == "state 'New York' has no zip codes new since its last import")
  }

  @Test func reimportingAddsOnlyZipCodesNewInTheSourceAndKeepsUserChanges() throws {
    let zip10004 = try ZipCode("10004")
    let result = try domainRun(
      USStateDecider.self,
      [
        .importState(newYork, zipCodes: [zip10001, zip10002], source: "a"),
        .removeZipCode(state: newYork, zipCode: zip10001),
        .modifyZipCode(state: newYork, from: zip10002, to: zip10003),
        // The source drops 10002 and adds 10004.
        .importState(newYork, zipCodes: [zip10001, zip10004], source: "b"),
      ])
    #expect(
      result.last.events == [
        .zipCodeAdded(ZipCodeAdded(state: newYork, zipCode: zip10004, source: "b"))
      ])
    #expect(result.state.zipCodes == [zip10003, zip10004])
  }

  @Test func zipCodeNewInTheSourceThatAUserAlreadyAddedAppendsNothing() throws {
    let result = try domainRun(
      USStateDecider.self,
      [
        .importState(newYork, zipCodes: [zip10001], source: "a"),
        .addZipCode(state: newYork, zipCode: zip10002),
        .importState(newYork, zipCodes: [zip10001, zip10002], source: "b"),
      ])
    #expect(result.last.events.isEmpty)
    #expect(
      result.last.noChangeReason == "state 'New York' already has every zip code new in the source")
  }

  @Test func importingIntoAStateAUserAddedAddsTheSourcesZipCodes() throws {
    let result = try domainRun(
      USStateDecider.self,
      [
        .addState(newYork), .addZipCode(state: newYork, zipCode: zip10001),
        .importState(newYork, zipCodes: [zip10001, zip10002], source: "a"),
      ])
    #expect(
      result.last.events == [
        .zipCodeAdded(ZipCodeAdded(state: newYork, zipCode: zip10002, source: "a"))
      ])
  }

  @Test func foldingTensOfThousandsOfZipCodesStaysLinear() throws {
    var events: [USStateEvent] = [.stateAdded(StateAdded(state: newYork))]
    for number in 0..<30_000 {
      let text = String(number)
      let zip = try ZipCode(String(repeating: "0", count: 5 - text.count) + text)
      events.append(.zipCodeAdded(ZipCodeAdded(state: newYork, zipCode: zip, source: "big.plist")))
    }
    let state = USStateDecider.fold(events)
    #expect(state.zipCodes.count == 30_000)
    #expect(state.contains(try ZipCode("29999")))
    let reimport = try USStateDecider.decision(
      .importState(newYork, zipCodes: state.zipCodes, source: "big.plist"), state)
    #expect(reimport.events.isEmpty)
  }
}
