import Testing

@testable import Events

@Suite struct ObservationDeciderTests {
  let id: ObservationID
  let hawk: ObservationRecord

  init() throws {
    id = try ObservationID("0123456789ab")
    hawk = ObservationRecord(
      classification: .bird, title: "Red-tailed Hawk",
      description: "Standing in tree in middle of wooded area.",
      date: try ObservationDate.parse("2017-06-14 18:00"))
  }

  func recorded() -> ObservationDecider.State {
    ObservationDecider.fold([.recorded(ObservationRecorded(id: id, record: hawk))])
  }

  // MARK: Record

  @Test(arguments: Classification.allCases)
  func recordingAcceptsEveryClassification(classification: Classification) throws {
    var record = hawk
    record.classification = classification
    let events = try ObservationDecider.decide(.recordObservation(id: id, record), .initial)
    #expect(events == [.recorded(ObservationRecorded(id: id, record: record))])
    #expect(ObservationDecider.fold(events).record == record)
  }

  @Test(arguments: ["", " ", "\t\r\n", "\u{3000}"])
  func recordingRejectsABlankTitle(title: String) {
    var record = hawk
    record.title = title
    #expect(throws: EventsError.self) {
      try ObservationDecider.decide(.recordObservation(id: id, record), .initial)
    }
  }

  @Test func blankTitleMessageNamesCommandAndField() {
    var record = hawk
    record.title = "  "
    #expect(
      domainErrorMessage {
        _ = try ObservationDecider.decide(.recordObservation(id: id, record), .initial)
      }
        == "'recordObservation': 'title': expected a title that is not empty or only white "
        + "space, found '  '")
  }

  @Test func recordingAnExistingIdIsAnError() {
    #expect(throws: EventsError.entityAlreadyExists(kind: .observation, id: "0123456789ab")) {
      try ObservationDecider.decide(.recordObservation(id: id, hawk), recorded())
    }
    #expect(
      EventsError.entityAlreadyExists(kind: .observation, id: "0123456789ab").description
        == "observation '0123456789ab' already exists (stream 'observation-0123456789ab'); "
        + "choose another id")
  }

  // MARK: Revise

  @Test func revisingAppendsOnlyTheChangedFields() throws {
    let command = ObservationCommand.reviseObservation(
      id: id, classification: .bird, title: "Red-tailed Hawk (juvenile)",
      description: hawk.description)
    let events = try ObservationDecider.decide(command, recorded())
    #expect(
      events == [.revised(ObservationRevised(id: id, title: "Red-tailed Hawk (juvenile)"))])
    #expect(ObservationDecider.fold([]) == .initial)
  }

  @Test func revisionThatChangesNothingAppendsNothingAndSaysWhy() throws {
    let decision = try ObservationDecider.decision(
      .reviseObservation(id: id, classification: .bird, title: "Red-tailed Hawk"), recorded())
    #expect(decision.events.isEmpty)
    #expect(decision.noChangeReason == "observation '0123456789ab' already has these values")
  }

  @Test func revisingAnUnknownOrRemovedObservationIsAnError() throws {
    let command = ObservationCommand.reviseObservation(id: id, title: "Hawk")
    #expect(throws: EventsError.unknownEntity(kind: .observation, id: "0123456789ab")) {
      try ObservationDecider.decide(command, .initial)
    }
    let removed = ObservationDecider.evolve(recorded(), .removed(ObservationRemoved(id: id)))
    #expect(throws: EventsError.entityRemoved(kind: .observation, id: "0123456789ab")) {
      try ObservationDecider.decide(command, removed)
    }
  }

  @Test func revisingToABlankTitleIsAnError() {
    #expect(throws: EventsError.self) {
      try ObservationDecider.decide(.reviseObservation(id: id, title: " "), recorded())
    }
  }

  // MARK: Remove

  @Test func removingAnExistingObservationAppendsRemoved() throws {
    let events = try ObservationDecider.decide(.removeObservation(id: id), recorded())
    #expect(events == [.removed(ObservationRemoved(id: id))])
    #expect(ObservationDecider.evolve(recorded(), events[0]).isRemoved)
  }

  @Test func removingAnUnknownOrRemovedObservationIsAnError() throws {
    #expect(throws: EventsError.unknownEntity(kind: .observation, id: "0123456789ab")) {
      try ObservationDecider.decide(.removeObservation(id: id), .initial)
    }
    let removed = try domainRun(
      ObservationDecider.self, [.removeObservation(id: id)], from: recorded())
    #expect(throws: EventsError.entityRemoved(kind: .observation, id: "0123456789ab")) {
      try ObservationDecider.decide(.removeObservation(id: id), removed.state)
    }
  }

  // MARK: Import

  @Test func importingANewRecordRecordsItWithItsSource() throws {
    let command = ObservationCommand.importing(hawk, source: "field-observations.json")
    let expectedID = ObservationID.derived(
      source: "field-observations.json", title: "Red-tailed Hawk", date: hawk.date)
    #expect(command.id == expectedID)
    #expect(command.streamName == "observation-\(expectedID)")
    let events = try ObservationDecider.decide(command, .initial)
    #expect(
      events == [
        .recorded(
          ObservationRecorded(id: expectedID, record: hawk, source: "field-observations.json"))
      ])
    #expect(ObservationDecider.fold(events).lastImported == hawk)
  }

  @Test func reimportingTheSameRecordAppendsNothing() throws {
    let command = ObservationCommand.importObservation(id: id, hawk, source: "a.json")
    let result = try domainRun(ObservationDecider.self, [command, command])
    #expect(result.last.events.isEmpty)
    #expect(
      result.last.noChangeReason == "observation '0123456789ab' is unchanged since its last import")
  }

  @Test func reimportingAChangedRecordRevisesOnlyWhatTheSourceChangedAndKeepsUserChanges() throws {
    var newVersion = hawk
    newVersion.description = "Perched on a dead branch."
    let result = try domainRun(
      ObservationDecider.self,
      [
        .importObservation(id: id, hawk, source: "a.json"),
        .reviseObservation(id: id, classification: .mammal),
        .importObservation(id: id, newVersion, source: "b.json"),
      ])
    #expect(
      result.last.events == [
        .revised(
          ObservationRevised(id: id, description: "Perched on a dead branch.", source: "b.json"))
      ])
    #expect(result.state.record?.classification == .mammal)
    #expect(result.state.record?.description == "Perched on a dead branch.")
    #expect(result.state.lastImported == newVersion)
    let again = try ObservationDecider.decision(
      .importObservation(id: id, newVersion, source: "b.json"), result.state)
    #expect(again.events.isEmpty)
  }

  @Test func importingARemovedObservationAppendsNothingAndSaysWhy() throws {
    let result = try domainRun(
      ObservationDecider.self,
      [.importObservation(id: id, hawk, source: "a.json"), .removeObservation(id: id)])
    var newVersion = hawk
    newVersion.description = "changed"
    let decision = try ObservationDecider.decision(
      .importObservation(id: id, newVersion, source: "a.json"), result.state)
    #expect(decision.events.isEmpty)
    #expect(
      decision.noChangeReason
        == "observation '0123456789ab' was removed; the import leaves it removed")
  }

  @Test func importingABlankTitleIsAnError() {
    var record = hawk
    record.title = ""
    #expect(
      domainErrorMessage {
        _ = try ObservationDecider.decide(.importObservation(id: id, record, source: "a"), .initial)
      }
        == "'importObservation': 'title': expected a title that is not empty or only white "
        + "space, found an empty string")
  }

  @Test func evolveIgnoresARevisionOfAnObservationNeverRecorded() {
    let state = ObservationDecider.evolve(
      .initial, .revised(ObservationRevised(id: id, title: "x")))
    #expect(state == .initial)
  }
}
