import Events
import Foundation
import Testing

@testable import Projections

/// The read models of the real seed data (`eventlogs/seed-data`), pinned.
@Suite struct SeedDataTests {
  @Test func contactsShowTheFourFavoritesThenTheOthers() throws {
    let contacts = fold(ContactList.self, try SeedData.contactEvents())
    let sections = contacts.sections
    #expect(sections.map(\.title) == ["Favorite Contacts", "Other Contacts"])
    #expect(
      sections[0].contacts.map(\.displayName) == [
        "⭐️ Harry Potter", "⭐️ Hermione Granger", "⭐️ Homer Simpson", "⭐️ Roger Rabbit",
      ])
    #expect(
      sections[1].contacts.map(\.displayName) == [
        "Bugs Bunny", "Charlie Brown", "Daffy Duck", "Elmer Fudd", "Jack Skellington",
        "JP Sullivan", "Kermit the Frog", "Leia Skywalker", "Lucy Van Pelt", "Miss Piggy", "Nemo",
        "Pink Ranger", "Scooby Doo", "Winnie-the-Pooh",
      ])
    #expect(
      sections[1].contacts.map(\.id.rawValue) == [
        "0", "1", "2", "3", "12", "8", "9", "10", "11", "13", "14", "15", "17", "19",
      ])
  }

  @Test func contactDetailsHoldOnlyTheRowsTheSourceHas() throws {
    let contacts = fold(ContactList.self, try SeedData.contactEvents())
    // companyName "" (Elmer Fudd), null (Harry Potter) and missing (Roger Rabbit): no company.
    for id in ["3", "4", "16"] {
      let row = try #require(contacts.row(for: contactID(id)))
      #expect(row.company == nil)
      #expect(!row.detail.contains { $0.label == "Company" })
    }
    // Miss Piggy's mobile is "": no row for it.
    #expect(
      contacts.row(for: contactID("13"))?.detail.map(\.label) == [
        "Company", "Email", "Birthdate", "Work Phone", "Home Phone", "Address",
      ])
    #expect(
      contacts.row(for: contactID("19"))?.detail == [
        ContactDetailRow(label: "Company", value: "Honey Bear, Inc"),
        ContactDetailRow(label: "Email", value: "Winnie.the.Pooh@honeybearinc.com"),
        ContactDetailRow(label: "Birthdate", value: "1988-07-24"),
        ContactDetailRow(label: "Home Phone", value: "808-949-8253"),
        ContactDetailRow(label: "Address", value: "933 Wiliwili St\nHonolulu, HI 96826\nUS"),
      ])
    #expect(
      contacts.row(for: contactID("13"))?.smallImage
        == .url("https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-small.jpg"))
  }

  @Test func observationsListByDateInMediumStyle() throws {
    let list = fold(ObservationList.self, try SeedData.observationEvents())
    let rows = list.rows(options: ViewOptions(locale: Locale(identifier: "en_US"), timeZone: .gmt))
    #expect(
      rows.map { "\($0.icon.name) | \($0.title) | \($0.dateText)" } == [
        "bird | Red-tailed Hawk | Jun 14, 2017 at 6:00:00 PM",
        "amphibian | American Bullfrog | Jun 15, 2017 at 11:10:00 AM",
        "reptile | Cottonmouth Snake | Jun 15, 2017 at 11:15:00 AM",
        "reptile | Prairie Lizard | Jun 16, 2017 at 3:12:00 PM",
        "insect | Red-spotted Purple Butterfly | Jun 17, 2017 at 4:26:00 PM",
        "insect | Milkweed Bug | Jun 17, 2017 at 4:45:00 PM",
        "fish | Largemouth Bass | Jun 18, 2017 at 5:14:00 PM",
        "plant | Poison Oak | Jun 19, 2017 at 10:05:00 AM",
        "insect | Rosy Maple Moth | Jun 19, 2017 at 10:39:00 AM",
        "mammal | Groundhog | Jun 20, 2017 at 12:32:00 PM",
        "mammal | Black Squirrel | Jun 20, 2017 at 1:17:00 PM",
      ])
    #expect(rows[0].description == "Standing in tree in middle of wooded area.")
    #expect(rows[0].date == timestamp("2017-06-14T18:00:00Z"))
  }

  @Test func zipCodeListsKeepTheSourceOrder() throws {
    let list = fold(
      ZipCodeList.self, try SeedData.assessmentStateEvents() + SeedData.readmeStateEvents())
    let alaska = [
      "99501", "99502", "99503", "99504", "99505", "99506", "99507", "99508", "99513", "99515",
      "99516", "99517", "99518", "99540", "99546", "99547", "99548",
    ]
    #expect(
      list.states.map {
        StateListing(name: $0.name.rawValue, zipCodes: $0.zipCodes.map(\.rawValue))
      }
        == [
          StateListing(
            name: "Alabama",
            zipCodes: [
              "35004", "35005", "35006", "35007", "35010", "35014", "35016", "35019", "35020",
              "35022", "35023", "35031", "35033", "35034", "35035", "35036",
            ]),
          StateListing(name: "Alaska", zipCodes: alaska),
          StateListing(name: "Arizona", zipCodes: alaska),
          StateListing(name: "Arkansas", zipCodes: alaska),
          StateListing(name: "California", zipCodes: ["90001", "90002"]),
          StateListing(name: "New York", zipCodes: ["10001", "10002"]),
        ])
    var modified = list
    modified.apply(
      .state(
        .zipCodeModified(
          ZipCodeModified(state: stateName("Alabama"), from: zipCode("35007"), to: zipCode("35099"))
        )),
      at: context(1_000))
    #expect(
      modified.zipCodes(in: stateName("Alabama"))?.prefix(5).map(\.rawValue) == [
        "35004", "35005", "35006", "35099", "35010",
      ])
    #expect(modified.zipCodes(in: stateName("Alaska")) == list.zipCodes(in: stateName("Alaska")))
  }

  struct StateListing: Equatable {
    var name: String
    var zipCodes: [String]
  }

  @Test func theZooCatalogueKeepsTheSourceOrderWithRemotePictures() throws {
    var events = try SeedData.animalEvents()
    events.append(
      .zoo(
        .inserted(
          AnimalInserted(
            id: .inserted(number: 1), name: "Bobo", description: "Our cat",
            picturePath: "/photos/bobo.jpg"))))
    let catalog = fold(AnimalCatalog.self, events)
    let animals = catalog.animals
    #expect(animals.map(\.id.rawValue) == ["user-1"] + (1...20).map { "zoo-\($0)" })
    #expect(
      animals.map(\.displayName) == [
        "Bobo", "大貓熊 Giant Panda", "國王企鵝 King Penguin", "黑腳企鵝 Jackass penguin", "弓角羚羊 Addax",
        "非洲野驢 African wild ass", "單峰駱駝 Dromedary Camel或One-humped Camel",
        "雙峰駱駝 Bactrian Camel或Two-humped Came", "婆羅洲人猿 Bornean Orangutan", "大長臂猿 Siamang",
        "雙角犀鳥 Great Indian Horbill", "亞洲象 Asian Elephant", "孟加拉虎 Bengal Tiger", "花豹 Leopard",
        "馬來熊 Malayan Sun Bear", "馬來貘 Malayan Tapir", "黑天鵝 Black Swan",
        "黑冠松鼠猴 black-capped squirrel monkey", "棕頭蜘蛛猴 Brown-headed Spider Monkey",
        "笑翠鳥 Laughing Kookaburra", "黑掌蜘蛛猴 Geoffroy's Spider Monkey",
      ])
    #expect(animals[0].picture == .local("/photos/bobo.jpg"))
    #expect(
      animals[1].picture
        == .remote("http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_Pic01.jpg"))
    #expect(animals.dropFirst().allSatisfy { if case .remote = $0.picture { true } else { false } })
    #expect(animals[1].location == "大貓熊館")
  }

  /// The expected 3 nearest of each location, computed from the source file by the
  /// independent Haversine of `LocationListTests` (and checked once with Python's `math`).
  static let expectedNearest: [String: [String]] = [
    "Alpha": ["Charlie 4364.49", "Hotel 4496.21", "Foxtrot 5434.71"],
    "Bravo": ["Golf 2170.30", "Juliett 3534.55", "India 4594.76"],
    "Charlie": ["Kilo 3461.27", "Foxtrot 3755.20", "Alpha 4364.49"],
    "Delta": ["India 1364.84", "Juliett 4336.13", "Bravo 5178.47"],
    "Echo": ["Hotel 2406.15", "Kilo 3639.96", "Juliett 5159.40"],
    "Foxtrot": ["Golf 3318.47", "Charlie 3755.20", "Bravo 5196.31"],
    "Golf": ["Bravo 2170.30", "Foxtrot 3318.47", "India 4647.94"],
    "Hotel": ["Echo 2406.15", "Alpha 4496.21", "Kilo 5879.95"],
    "India": ["Delta 1364.84", "Bravo 4594.76", "Golf 4647.94"],
    "Juliett": ["Bravo 3534.55", "Delta 4336.13", "India 5005.66"],
    "Kilo": ["Charlie 3461.27", "Echo 3639.96", "Juliett 5346.73"],
  ]

  @Test func everyLocationHasItsThreeNearestInMiles() throws {
    let list = fold(LocationList.self, try SeedData.locationEvents())
    let listing = list.neighborhood().listing()
    #expect(
      listing.map(\.location.name) == [
        "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India",
        "Juliett", "Kilo",
      ])
    for entry in listing {
      let shown = entry.nearest.map { "\($0.name) \($0.distanceText)" }
      #expect(shown == Self.expectedNearest[entry.location.name], "around \(entry.location.name)")
      // And against a brute-force scan with the independent formula.
      let scan = LocationListTests.bruteForce(list, entry.location.id, 3)
      #expect(entry.nearest.map(\.id.rawValue) == scan.map(\.0))
      for (nearby, (_, miles)) in zip(entry.nearest, scan) {
        #expect(abs(nearby.distanceInMiles - miles) < 1e-6)
        #expect(nearby.distanceText == String(format: "%.2f", miles))
      }
    }
    #expect(
      list.nearest(to: locationID("2298eb8d-255e-4198-a20c-cc9c2eac0cf7"), count: 1)?.map(\.name)
        == ["Charlie"])
  }

  @Test func allSeedDataSurvivesACheckpoint() throws {
    let events = try SeedData.allEvents()
    let models = foldAll(events)
    #expect(models.contacts.count == 18)
    #expect(models.observations.count == 11)
    #expect(models.zipCodes.count == 6)
    #expect(models.animals.count == 20)
    #expect(models.locations.count == 11)
    let checkpoint = ReadModelCheckpoint(models: models, sequence: Int64(events.count))
    #expect(try ReadModelCheckpoint(decoding: checkpoint.encoded()) == checkpoint)
  }
}
