import Events
import Testing

@testable import Projections

/// What every model kept in an `EntityTable` does through the one piece of code in
/// `EntityTable+ReadModel.swift`: its entries, the entry of one id, and its checkpoint's list of
/// entities (a count, then each id and its value), whose repeated ids are refused.
@Suite struct EntityTableModelsTests {
  /// One entity of every model.
  static func oneOfEach() throws -> ReadModels {
    let state = try StateName("Ohio")
    return foldAll([
      .observation(
        .recorded(
          ObservationRecorded(
            id: try ObservationID("0123456789ab"),
            record: ObservationRecord(
              classification: .bird, title: "Hawk", description: "In a tree.",
              date: Timestamp(millisecondsSince1970: 1_497_463_200_000))))),
      .state(.stateAdded(StateAdded(state: state))),
      .state(.zipCodeAdded(ZipCodeAdded(state: state, zipCode: try ZipCode("43004")))),
      .zoo(
        .inserted(
          AnimalInserted(id: try AnimalID("user-1"), name: "Koala", description: "Asleep."))),
      .location(
        .added(
          LocationAdded(
            record: LocationRecord(
              id: try LocationID("l1"), name: "Alpha",
              coordinate: try Coordinate(latitude: 1, longitude: 2))))),
      .contact(.added(ContactAdded(record: ContactRecord(id: try ContactID("13"), name: "Ann")))),
    ])
  }

  @Test(arguments: ReadModels.modelNames)
  func everyEntryIsTheEntryOfItsID(name: String) throws {
    let seed = TestRandom.seed(
      for: "EntityTableModelsTests.everyEntryIsTheEntryOfItsID(\(name))", fallback: 0xE7_7A61)
    let model = try #require(ReadModelCodecTests.randomModels(seed: seed).model(named: name))
    try Self.checkEntries(model)
  }

  static func checkEntries<Model: ReadModel>(_ model: Model) throws {
    let entries = model.entries
    #expect(entries.count == model.count)
    #expect(model.count > 0)
    for (id, entry) in entries {
      #expect(model.entry(forID: id.rawValue) == entry, "\(Model.name) '\(id.rawValue)'")
    }
    // Text that is not an id of the model's kind, and an id no entity has.
    #expect(model.entry(forID: "") == nil)
    #expect(model.entry(forID: " padded ") == nil)
    #expect(model.entry(forID: "none-such-0000") == nil)
  }

  /// The expected message of each model for its one entity listed twice.
  static let repeatedIDs: [String: (what: String, expected: String, found: String)] = [
    "observations": ("an observation id", "each id once", "'0123456789ab' again"),
    "zipcodes": ("a state name", "each state once", "'Ohio' again"),
    "animals": ("an animal id", "each id once", "'user-1' again"),
    "locations": ("a location id", "each id once", "'l1' again"),
    "contacts": ("a contact id", "each id once", "'13' again"),
  ]

  @Test(arguments: ReadModels.modelNames)
  func aCheckpointListingAnEntityTwiceIsRefused(name: String) throws {
    let model = try #require(try Self.oneOfEach().model(named: name))
    let message = try #require(Self.repeatedIDs[name])
    try Self.checkRepeated(model, message)
  }

  static func checkRepeated<Model: ReadModel>(
    _ model: Model, _ message: (what: String, expected: String, found: String)
  ) throws {
    let bytes = model.checkpointBytes()
    // A count of 1 is one byte; the entity follows it.
    try #require(model.count == 1 && bytes.first == 1)
    let entity = bytes.dropFirst()
    #expect(try Model(checkpointBytes: bytes) == model)
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: message.what, offset: 1 + entity.count, expected: message.expected,
        found: message.found)
    ) { try Model(checkpointBytes: [2] + entity + entity) }
  }
}
