import Testing

@testable import Events

@Suite struct LocationDeciderTests {
  let alpha: LocationRecord
  let elsewhere: Coordinate

  init() throws {
    alpha = LocationRecord(
      id: try LocationID("2298eb8d-255e-4198-a20c-cc9c2eac0cf7"), name: "Alpha",
      coordinate: try Coordinate(latitude: -34.98520411042454, longitude: 149.98458041136354))
    elsewhere = try Coordinate(latitude: 45.042099781891125, longitude: -67.09898354941409)
  }

  var id: LocationID { alpha.id }

  func added() -> LocationDecider.State {
    LocationDecider.fold([.added(LocationAdded(record: alpha))])
  }

  // MARK: Add

  @Test func addingANewLocationAppendsAdded() throws {
    let events = try LocationDecider.decide(.addLocation(alpha), .initial)
    #expect(events == [.added(LocationAdded(record: alpha))])
    #expect(
      domainStreams(LocationDecider.self, events) == [
        "location-2298eb8d-255e-4198-a20c-cc9c2eac0cf7"
      ])
  }

  @Test func addingAnExistingOrRemovedIdIsAnError() throws {
    let error = EventsError.entityAlreadyExists(kind: .location, id: id.rawValue)
    #expect(throws: error) { try LocationDecider.decide(.addLocation(alpha), added()) }
    let removed = LocationDecider.evolve(added(), .removed(LocationRemoved(id: id)))
    #expect(throws: error) { try LocationDecider.decide(.addLocation(alpha), removed) }
  }

  @Test func addingWithABlankNameIsAnError() {
    var record = alpha
    record.name = " "
    #expect(
      domainErrorMessage { _ = try LocationDecider.decide(.addLocation(record), .initial) }
        == "'addLocation': 'name': expected a name that is not empty or only white space, found ' '"
    )
  }

  // MARK: Rename

  @Test func renamingAppendsRenamed() throws {
    let events = try LocationDecider.decide(.renameLocation(id: id, name: "Alpha Base"), added())
    #expect(events == [.renamed(LocationRenamed(id: id, name: "Alpha Base"))])
    #expect(LocationDecider.evolve(added(), events[0]).record?.name == "Alpha Base")
  }

  @Test func renamingToTheSameNameAppendsNothingAndSaysWhy() throws {
    let decision = try LocationDecider.decision(.renameLocation(id: id, name: "Alpha"), added())
    #expect(decision.events.isEmpty)
    #expect(decision.noChangeReason == "location '\(id)' is already named 'Alpha'")
  }

  @Test func renamingAnUnknownOrRemovedLocationIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .location, id: id.rawValue)) {
      try LocationDecider.decide(.renameLocation(id: id, name: "B"), .initial)
    }
    let removed = LocationDecider.evolve(added(), .removed(LocationRemoved(id: id)))
    #expect(throws: EventsError.entityRemoved(kind: .location, id: id.rawValue)) {
      try LocationDecider.decide(.renameLocation(id: id, name: "B"), removed)
    }
    #expect(throws: EventsError.self) {
      try LocationDecider.decide(.renameLocation(id: id, name: ""), added())
    }
  }

  // MARK: Move

  @Test func movingAppendsMoved() throws {
    let events = try LocationDecider.decide(.moveLocation(id: id, to: elsewhere), added())
    #expect(events == [.moved(LocationMoved(id: id, coordinate: elsewhere))])
    #expect(LocationDecider.evolve(added(), events[0]).record?.coordinate == elsewhere)
  }

  @Test func movingToTheSamePlaceAppendsNothingAndSaysWhy() throws {
    let decision = try LocationDecider.decision(
      .moveLocation(id: id, to: alpha.coordinate), added())
    #expect(decision.events.isEmpty)
    #expect(
      decision.noChangeReason
        == "location '\(id)' is already at -34.98520411042454, 149.98458041136354")
  }

  @Test func movingAnUnknownOrRemovedLocationIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .location, id: id.rawValue)) {
      try LocationDecider.decide(.moveLocation(id: id, to: elsewhere), .initial)
    }
    let removed = LocationDecider.evolve(added(), .removed(LocationRemoved(id: id)))
    #expect(throws: EventsError.entityRemoved(kind: .location, id: id.rawValue)) {
      try LocationDecider.decide(.moveLocation(id: id, to: elsewhere), removed)
    }
  }

  // MARK: Remove

  @Test func removingAppendsRemoved() throws {
    let events = try LocationDecider.decide(.removeLocation(id: id), added())
    #expect(events == [.removed(LocationRemoved(id: id))])
  }

  @Test func removingAnUnknownOrRemovedLocationIsAnError() {
    #expect(throws: EventsError.unknownEntity(kind: .location, id: id.rawValue)) {
      try LocationDecider.decide(.removeLocation(id: id), .initial)
    }
    let removed = LocationDecider.evolve(added(), .removed(LocationRemoved(id: id)))
    #expect(
      domainErrorMessage { _ = try LocationDecider.decide(.removeLocation(id: id), removed) }
        == "location '\(id)' was removed; a removed location cannot be changed")
  }

  // MARK: Import

  @Test func importingANewFeatureAddsItWithItsSource() throws {
    let events = try LocationDecider.decide(
      .importLocation(alpha, source: "locations.json"), .initial)
    #expect(events == [.added(LocationAdded(record: alpha, source: "locations.json"))])
  }

  @Test func reimportingTheSameFeatureAppendsNothing() throws {
    let command = LocationCommand.importLocation(alpha, source: "locations.json")
    let result = try domainRun(LocationDecider.self, [command, command])
    #expect(result.last.events.isEmpty)
    #expect(result.last.noChangeReason == "location '\(id)' is unchanged since its last import")
  }

  @Test func reimportingAfterAUserRenameAppendsNothingAndKeepsTheRename() throws {
    let command = LocationCommand.importLocation(alpha, source: "locations.json")
    let result = try domainRun(
      LocationDecider.self, [command, .renameLocation(id: id, name: "Home"), command])
    #expect(result.last.events.isEmpty)
    #expect(result.state.record?.name == "Home")
  }

  @Test func sourceMoveIsAppliedWhileTheUsersRenameStays() throws {
    var moved = alpha
    moved.coordinate = elsewhere
    let result = try domainRun(
      LocationDecider.self,
      [
        .importLocation(alpha, source: "a.json"), .renameLocation(id: id, name: "Home"),
        .importLocation(moved, source: "b.json"),
      ])
    #expect(
      result.last.events == [.moved(LocationMoved(id: id, coordinate: elsewhere, source: "b.json"))]
    )
    #expect(result.state.record == LocationRecord(id: id, name: "Home", coordinate: elsewhere))
    #expect(result.state.lastImported == moved)
    let again = try LocationDecider.decision(.importLocation(moved, source: "b.json"), result.state)
    #expect(again.events.isEmpty)
  }

  @Test func sourceRenameAndMoveAppendBoth() throws {
    let changed = LocationRecord(id: id, name: "Alpha Prime", coordinate: elsewhere)
    let result = try domainRun(
      LocationDecider.self,
      [.importLocation(alpha, source: "a.json"), .importLocation(changed, source: "a.json")])
    #expect(
      result.last.events == [
        .renamed(LocationRenamed(id: id, name: "Alpha Prime", source: "a.json")),
        .moved(LocationMoved(id: id, coordinate: elsewhere, source: "a.json")),
      ])
    #expect(result.state.record == changed)
  }

  @Test func importingARemovedLocationAppendsNothingAndSaysWhy() throws {
    let result = try domainRun(
      LocationDecider.self,
      [
        .importLocation(alpha, source: "a.json"), .removeLocation(id: id),
        .importLocation(alpha, source: "a.json"),
      ])
    #expect(result.last.events.isEmpty)
    #expect(
      result.last.noChangeReason == "location '\(id)' was removed; the import leaves it removed")
  }
}
