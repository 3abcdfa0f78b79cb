import Events
import Foundation
import Testing

@testable import Projections

@Suite struct ContactListTests {
  static func added(
    _ id: String, _ name: String, isFavorite: Bool = false, source: String? = nil
  ) -> DomainEvent {
    .contact(
      .added(
        ContactAdded(
          record: ContactRecord(id: contactID(id), name: name, isFavorite: isFavorite),
          source: source)))
  }

  static func favorited(_ id: String, source: String? = nil) -> DomainEvent {
    .contact(.favorited(ContactFavorited(id: contactID(id), source: source)))
  }

  static func unfavorited(_ id: String) -> DomainEvent {
    .contact(.unfavorited(ContactUnfavorited(id: contactID(id))))
  }

  static func names(_ contacts: ContactList) -> [[String]] {
    contacts.sections.map { $0.contacts.map(\.displayName) }
  }

  @Test func favoriteShortcutFoldsAsTheEvents() {
    let seed = TestRandom.seed(for: "ContactListTests.shortcut", fallback: 0xFA_F0)
    var random = TestRandom(seed: seed)
    var byEvents = ContactList()
    var byShortcut = ContactList()
    let ids = (1...60).map(String.init) + ["é", "e\u{301}", "\u{212A}", "K"]
    for _ in 0..<3_000 {
      let id = ids.randomElement(using: &random) ?? "1"
      switch Int.random(in: 0..<6, using: &random) {
      case 0:
        let event = Self.added(id, "Contact \(id)", isFavorite: Bool.random(using: &random))
        byEvents.apply(event, at: .unpositioned)
        byShortcut.apply(event, at: .unpositioned)
      default:
        let isFavorite = Bool.random(using: &random)
        byEvents.apply(isFavorite ? Self.favorited(id) : Self.unfavorited(id), at: .unpositioned)
        var text = id
        text.withUTF8 { byShortcut.setFavorite(isFavorite, contactID: $0) }
      }
      #expect(byShortcut == byEvents, "seed \(seed)")
    }
    #expect(byShortcut.records.map(\.isFavorite) == byEvents.records.map(\.isFavorite))
  }

  @Test func favoritesComeFirstThenTheOthersEachAlphabetical() {
    let contacts = fold(
      ContactList.self,
      [
        Self.added("1", "Miss Piggy"), Self.added("2", "Harry Potter", isFavorite: true),
        Self.added("3", "bugs Bunny"), Self.added("4", "Roger Rabbit", isFavorite: true),
        Self.added("5", "Charlie Brown"), Self.favorited("1"),
      ])
    #expect(contacts.sections.map(\.title) == ["Favorite Contacts", "Other Contacts"])
    #expect(
      Self.names(contacts) == [
        ["⭐️ Harry Potter", "⭐️ Miss Piggy", "⭐️ Roger Rabbit"], ["bugs Bunny", "Charlie Brown"],
      ])
  }

  @Test func bothSectionsArePresentEvenWhenEmpty() {
    #expect(Self.names(ContactList()) == [[], []])
    #expect(
      ContactList().jsonText()
        == #"{"sections":[{"title":"Favorite Contacts","contacts":[]},{"title":"Other Contacts","contacts":[]}]}"#
    )
  }

  @Test func orderIgnoresCaseAndDiacriticsAndBreaksTiesByID() {
    let contacts = fold(
      ContactList.self,
      [
        Self.added("b", "Émile"), Self.added("a", "emile"), Self.added("c", "Emil"),
        Self.added("2", "Zoë"), Self.added("10", "zoe"), Self.added("d", "Zoey"),
        Self.added("e", "Eve"), Self.added("f", "ÉMILE"),
      ])
    // "Émile", "emile" and "ÉMILE" fold to "emile": ordered by id a, b, f. "Zoë" (2) and
    // "zoe" (10) fold to "zoe": "10" < "2" as strings.
    #expect(
      Self.names(contacts)[1] == ["Emil", "emile", "Émile", "ÉMILE", "Eve", "zoe", "Zoë", "Zoey"])
  }

  @Test func aFavoriteDisplayNameStartsWithAStarEmojiAndASpace() throws {
    let contacts = fold(ContactList.self, [Self.added("4", "Harry Potter", isFavorite: true)])
    let row = try #require(contacts.row(for: contactID("4")))
    #expect(row.displayName == "⭐️ Harry Potter")
    #expect(row.displayName.unicodeScalars.prefix(3).map(\.value) == [0x2B50, 0xFE0F, 0x20])
    #expect(row.name == "Harry Potter")
    #expect(row.isFavorite)
  }

  @Test func favoritingTwiceThroughAnImportAndAUserShowsTheContactOnce() {
    let contacts = fold(
      ContactList.self,
      [
        Self.added("4", "Harry Potter", isFavorite: true, source: "contacts-v3.json"),
        Self.favorited("4"), Self.favorited("4", source: "contacts-v4.json"),
      ])
    #expect(Self.names(contacts) == [["⭐️ Harry Potter"], []])
    #expect(contacts.count == 1)
    let unfavorited = fold(
      ContactList.self,
      [
        Self.added("4", "Harry Potter", isFavorite: true), Self.favorited("4"),
        Self.unfavorited("4"),
      ])
    #expect(Self.names(unfavorited) == [[], ["Harry Potter"]])
  }

  @Test func eventsForAnUnknownContactChangeNothing() {
    var update = ContactUpdated(id: contactID("9"))
    update.name = "Ghost"
    let contacts = fold(
      ContactList.self,
      [Self.favorited("9"), Self.unfavorited("9"), .contact(.updated(update))])
    #expect(contacts == ContactList())
    #expect(contacts.count == 0)
  }

  @Test func anAddedContactAddedAgainIsReplacedInPlace() {
    let contacts = fold(
      ContactList.self,
      [Self.added("1", "Old", isFavorite: true), Self.added("2", "Other"), Self.added("1", "New")])
    #expect(Self.names(contacts) == [[], ["New", "Other"]])
  }

  @Test func anUpdateChangesOnlyTheFieldsItCarries() throws {
    let record = ContactRecord(
      id: contactID("13"), name: "Miss Piggy", companyName: "Muppets, Baby", isFavorite: true,
      smallImageURL: "https://example.com/s.jpg", emailAddress: "piggy@example.com",
      birthdate: try CalendarDate("1987-05-11"),
      phone: PhoneNumbers(work: "602-225-9543", home: "602-225-9188"),
      address: PostalAddress(street: "3530 E Washington St", city: "Phoenix"))
    var update = ContactUpdated(id: contactID("13"))
    update.emailAddress = .set("miss.piggy@example.com")
    update.workPhone = .cleared
    update.mobilePhone = .set("602-000-0000")
    update.birthdate = .cleared
    update.city = .set("Tempe")
    let contacts = fold(
      ContactList.self,
      [.contact(.added(ContactAdded(record: record))), .contact(.updated(update))])
    let expected = ContactRecord(
      id: contactID("13"), name: "Miss Piggy", companyName: "Muppets, Baby", isFavorite: true,
      smallImageURL: "https://example.com/s.jpg", emailAddress: "miss.piggy@example.com",
      phone: PhoneNumbers(home: "602-225-9188", mobile: "602-000-0000"),
      address: PostalAddress(street: "3530 E Washington St", city: "Tempe"))
    #expect(contacts.contact(contactID("13")) == expected)
    #expect(contacts.contact(contactID("13")) == update.applied(to: record))
  }

  @Test func aContactWithoutImagesShowsTheNamedPlaceholders() throws {
    let contacts = fold(
      ContactList.self,
      [
        Self.added("1", "Nobody"),
        .contact(
          .added(
            ContactAdded(
              record: ContactRecord(
                id: contactID("2"), name: "Half", smallImageURL: "https://example.com/s.png")))),
      ])
    let nobody = try #require(contacts.row(for: contactID("1")))
    #expect(nobody.smallImage == .placeholder("placeholder-small"))
    #expect(nobody.largeImage == .placeholder("placeholder-large"))
    let half = try #require(contacts.row(for: contactID("2")))
    #expect(half.smallImage == .url("https://example.com/s.png"))
    #expect(half.largeImage == .placeholder("placeholder-large"))
  }

  @Test func theDetailListsOnlyTheRowsTheContactHas() throws {
    let sparse = ContactRecord(
      id: contactID("19"), name: "Winnie-the-Pooh",
      phone: PhoneNumbers(work: "", home: "808-949-8253"),
      address: PostalAddress(city: "Honolulu"))
    #expect(
      ContactRow(sparse).detail == [
        ContactDetailRow(label: "Home Phone", value: "808-949-8253"),
        ContactDetailRow(label: "Address", value: "Honolulu"),
      ])
    let full = ContactRecord(
      id: contactID("13"), name: "Miss Piggy", companyName: "Muppets, Baby",
      emailAddress: "Miss.Piggy@muppetsbaby.com", birthdate: try CalendarDate("1987-05-11"),
      phone: PhoneNumbers(work: "602-225-9543", home: "602-225-9188", mobile: "602-225-0000"),
      address: PostalAddress(
        street: "3530 E Washington St", city: "Phoenix", state: "AZ", country: "US",
        zipCode: "85034"))
    #expect(
      ContactRow(full).detail == [
        ContactDetailRow(label: "Company", value: "Muppets, Baby"),
        ContactDetailRow(label: "Email", value: "Miss.Piggy@muppetsbaby.com"),
        ContactDetailRow(label: "Birthdate", value: "1987-05-11"),
        ContactDetailRow(label: "Work Phone", value: "602-225-9543"),
        ContactDetailRow(label: "Home Phone", value: "602-225-9188"),
        ContactDetailRow(label: "Mobile Phone", value: "602-225-0000"),
        ContactDetailRow(label: "Address", value: "3530 E Washington St\nPhoenix, AZ 85034\nUS"),
      ])
    #expect(ContactRow(ContactRecord(id: contactID("0"), name: "Empty")).detail == [])
  }

  @Test(
    arguments: [
      (PostalAddress(street: "1 Main St"), "1 Main St"),
      (PostalAddress(state: "AZ", zipCode: "85034"), "AZ 85034"),
      (PostalAddress(city: "Phoenix", zipCode: "85034"), "Phoenix, 85034"),
      (PostalAddress(city: "Phoenix", state: "AZ"), "Phoenix, AZ"),
      (PostalAddress(street: "1 Main St", country: "US"), "1 Main St\nUS"),
    ])
  func theAddressRowJoinsThePartsThatExist(address: PostalAddress, expected: String) {
    let row = ContactRow(ContactRecord(id: contactID("1"), name: "A", address: address))
    #expect(row.detail == [ContactDetailRow(label: "Address", value: expected)])
  }

  @Test func jsonHasTheDocumentedShape() throws {
    let record = ContactRecord(
      id: contactID("4"), name: "Harry \"The Boy\" Potter", companyName: "Hogwarts",
      isFavorite: true, smallImageURL: "https://example.com/h.jpg", emailAddress: "h@example.com")
    let contacts = fold(
      ContactList.self, [.contact(.added(ContactAdded(record: record))), Self.added("1", "Zed")])
    #expect(
      contacts.jsonText()
        == #"{"sections":[{"title":"Favorite Contacts","contacts":[{"id":"4","name":"Harry \"The Boy\" Potter","#
        + #""displayName":"⭐️ Harry \"The Boy\" Potter","isFavorite":true,"company":"Hogwarts","#
        + #""smallImage":{"url":"https://example.com/h.jpg"},"largeImage":{"placeholder":"placeholder-large"},"#
        + #""detail":[{"label":"Company","value":"Hogwarts"},{"label":"Email","value":"h@example.com"}]}]},"#
        + #"{"title":"Other Contacts","contacts":[{"id":"1","name":"Zed","displayName":"Zed","isFavorite":false,"#
        + #""smallImage":{"placeholder":"placeholder-small"},"largeImage":{"placeholder":"placeholder-large"},"#
        + #""detail":[]}]}]}"#)
  }

  @Test func entriesNameEveryFieldTheContactHasInAFixedOrder() throws {
    let record = ContactRecord(
      id: contactID("6"), name: "Homer Simpson", isFavorite: true, emailAddress: "h@s.com",
      birthdate: try CalendarDate("1972-10-11"), phone: PhoneNumbers(mobile: "602-953-5503"),
      address: PostalAddress(city: "Salem", zipCode: "97302"))
    let contacts = fold(
      ContactList.self, [.contact(.added(ContactAdded(record: record))), Self.added("1", "Bart")])
    let entry = try #require(contacts.entry(forID: "6"))
    #expect(
      entry.fields.map(\.name) == [
        "name", "isFavorite", "emailAddress", "birthdate", "phone.mobile", "address.city",
        "address.zipCode",
      ])
    #expect(
      entry.fields.map(\.value) == [
        "Homer Simpson", "true", "h@s.com", "1972-10-11", "602-953-5503", "Salem", "97302",
      ])
    #expect(contacts.entries.keys.sorted() == ["1", "6"])
    #expect(contacts.entries["6"] == entry)
    #expect(
      contacts.entries["1"]?.fields == [
        ReadModelEntry.Field(name: "name", value: "Bart"),
        ReadModelEntry.Field(name: "isFavorite", value: "false", kind: .boolean),
      ])
    #expect(contacts.entry(forID: "7") == nil)
    #expect(contacts.entry(forID: "") == nil)
  }

  @Test func aFavoriteToggleShowsInTheEntryDiff() {
    let before = fold(ContactList.self, [Self.added("1", "Ann"), Self.added("2", "Bob")])
    var after = before
    after.apply(Self.favorited("2"), at: context(3))
    after.apply(Self.added("3", "Cy"), at: context(4))
    let diff = EntryDiff(from: before.entries, to: after.entries)
    #expect(diff.added.map(\.id) == ["3"])
    #expect(diff.removed.isEmpty)
    #expect(
      diff.changed == [
        EntryDiff.Change(
          id: "2",
          fields: [
            EntryDiff.FieldDifference(
              name: "isFavorite", before: "false", after: "true", kind: .boolean)
          ])
      ])
  }
}

@Suite struct NameOrderingTests {
  @Test(
    arguments: [
      ("Harry Potter", "harry potter"), ("JP Sullivan", "jp sullivan"), ("zoe", "zoe"),
      ("Zoë", "zoe"), ("ÉMILE", "emile"), ("Ångström", "angstrom"), ("[Z]_@`", "[z]_@`"),
      ("大貓熊", "大貓熊"), ("", ""),
    ])
  func keysFoldCaseAndDiacritics(name: String, key: String) {
    #expect(NameOrdering.key(name) == key)
  }

  @Test func asciiKeysMatchFoundationsFolding() {
    let ascii = (0x20..<0x7F).map { String(UnicodeScalar(UInt8($0))) }
    for text in ascii + ["Harry Potter", "JP Sullivan", "McDONALD's #1"] {
      #expect(
        NameOrdering.key(text)
          == text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
    }
  }
}
