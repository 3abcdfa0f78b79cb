import Events
import Testing

@testable import Projections

/// Ids that are equal as text but not as bytes ("é" composed and decomposed) are two entities
/// in every read model, as they are two streams in the log.
@Suite struct ByteIdentityTests {
  static let composed = "\u{E9}"
  static let decomposed = "e\u{301}"

  static func twoContacts() -> ContactList {
    fold(
      ContactList.self,
      [
        ContactListTests.added(composed, "Composed"),
        ContactListTests.added(decomposed, "Decomposed"),
      ])
  }

  @Test func twoContactsStayTwoThroughApplyEntriesAndACheckpoint() throws {
    let contacts = Self.twoContacts()
    #expect(contacts.count == 2)
    #expect(contacts.contact(contactID(Self.composed))?.name == "Composed")
    #expect(contacts.contact(contactID(Self.decomposed))?.name == "Decomposed")
    let entries = contacts.entries
    #expect(entries.count == 2)
    #expect(entries[EntityKey(Self.composed)]?["name"] == "Composed")
    #expect(entries[EntityKey(Self.decomposed)]?["name"] == "Decomposed")
    let decoded = try ContactList(checkpointBytes: contacts.checkpointBytes())
    #expect(decoded == contacts)
    #expect(decoded.entries == entries)
    try ReadModelCodecTests.checkRoundTrip(contacts)
  }

  @Test func aFavoriteOfOneLeavesTheOther() {
    var byEvent = Self.twoContacts()
    byEvent.apply(ContactListTests.favorited(Self.decomposed), at: .unpositioned)
    var byShortcut = Self.twoContacts()
    var text = Self.decomposed
    text.withUTF8 { byShortcut.setFavorite(true, contactID: $0) }
    for contacts in [byEvent, byShortcut] {
      #expect(contacts.contact(contactID(Self.composed))?.isFavorite == false)
      #expect(contacts.contact(contactID(Self.decomposed))?.isFavorite == true)
    }
    #expect(byShortcut == byEvent)
    let diff = EntryDiff(from: Self.twoContacts().entries, to: byEvent.entries)
    #expect(
      diff.changed == [
        EntryDiff.Change(
          id: Self.decomposed,
          fields: [.init(name: "isFavorite", before: "false", after: "true", kind: .boolean)])
      ])
    #expect(
      EntryDiff(from: [:], to: byEvent.entries).added.map(\.id) == [Self.decomposed, Self.composed])
  }

  @Test func twoStatesAndTwoLocationsStayTwo() throws {
    let models = foldAll(
      [
        ZipCodeListTests.stateAdded(Self.composed), ZipCodeListTests.stateAdded(Self.decomposed),
        ZipCodeListTests.added(Self.decomposed, "12345"),
        LocationListTests.added(Self.composed, "Composed", 1, 2),
        LocationListTests.added(Self.decomposed, "Decomposed", 3, 4),
      ])
    models.checkInvariants()
    #expect(models.zipCodes.entries.count == 2)
    #expect(models.zipCodes.entries[EntityKey(Self.composed)] != nil)
    #expect(models.zipCodes.entries[EntityKey(Self.decomposed)]?["zipCodes"] == "12345")
    #expect(models.locations.entries.count == 2)
    #expect(models.locations.entries[EntityKey(Self.decomposed)]?["name"] == "Decomposed")
    try ReadModelCodecTests.checkRoundTrip(models.zipCodes)
    try ReadModelCodecTests.checkRoundTrip(models.locations)
  }
}
