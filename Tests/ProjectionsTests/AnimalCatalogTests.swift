import Events
import Testing

@testable import Projections

@Suite struct AnimalCatalogTests {
  static func imported(
    _ sourceID: Int, _ chinese: String, _ english: String, location: String = "",
    pictures: [String] = []
  ) -> DomainEvent {
    .zoo(
      .imported(
        AnimalImported(
          record: AnimalRecord(
            sourceID: sourceID, nameChinese: chinese, nameEnglish: english, location: location,
            pictures: pictures.map { MediaLink(url: $0) }),
          source: "taipei-zoo-animals.json")))
  }

  static func inserted(_ number: Int, _ name: String, picturePath: String? = nil) -> DomainEvent {
    .zoo(
      .inserted(
        AnimalInserted(
          id: .inserted(number: number), name: name, description: "Inserted by hand",
          picturePath: picturePath)))
  }

  static func removed(_ id: String) -> DomainEvent {
    .zoo(.removed(AnimalRemoved(id: animalID(id))))
  }

  static func ids(_ catalog: AnimalCatalog) -> [String] { catalog.animals.map(\.id.rawValue) }

  @Test func insertedAnimalsComeFirstNewestFirstThenImportedInSourceOrder() {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(5, "非洲野驢", "African wild ass"), Self.inserted(1, "Bobo"),
        Self.imported(1, "大貓熊", "Giant Panda"), Self.inserted(2, "Coco"),
        Self.imported(3, "黑腳企鵝", "Jackass penguin"), Self.inserted(0, "Ann"),
      ])
    #expect(Self.ids(catalog) == ["user-0", "user-2", "user-1", "zoo-5", "zoo-1", "zoo-3"])
  }

  @Test func aReimportUpdatesTheAnimalInItsPlace() throws {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(1, "大貓熊", "Giant Panda", pictures: ["http://zoo/panda1.jpg"]),
        Self.imported(2, "國王企鵝", "King Penguin"),
        Self.imported(1, "大貓熊", "Giant Panda (Yuan Zai)", location: "大貓熊館"),
      ])
    #expect(Self.ids(catalog) == ["zoo-1", "zoo-2"])
    let panda = try #require(catalog.animal(.imported(sourceID: 1)))
    #expect(panda.englishName == "Giant Panda (Yuan Zai)")
    #expect(panda.location == "大貓熊館")
    #expect(panda.picture == AnimalPicture.none)
  }

  @Test func removedAnimalsDisappearAndComeBackInTheirNewPlace() {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(1, "大貓熊", "Giant Panda"), Self.imported(2, "國王企鵝", "King Penguin"),
        Self.inserted(1, "Bobo"), Self.inserted(2, "Coco"), Self.removed("zoo-1"),
        Self.removed("user-2"), Self.removed("zoo-99"), Self.imported(1, "大貓熊", "Giant Panda"),
      ])
    #expect(Self.ids(catalog) == ["user-1", "zoo-2", "zoo-1"])
  }

  @Test func importedAnimalsShowTheirFirstNonEmptyPictureURL() throws {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(19, "笑翠鳥", "Laughing Kookaburra", pictures: ["", "http://zoo/lk02.jpg", ""]),
        Self.imported(7, "雙峰駱駝", "Bactrian Camel", pictures: ["", ""]),
        Self.imported(8, "婆羅洲人猿", "Bornean Orangutan"),
      ])
    #expect(catalog.animal(.imported(sourceID: 19))?.picture == .remote("http://zoo/lk02.jpg"))
    #expect(catalog.animal(.imported(sourceID: 7))?.picture == AnimalPicture.none)
    #expect(catalog.animal(.imported(sourceID: 8))?.picture == AnimalPicture.none)
  }

  @Test func insertedAnimalsShowTheirLocalPicture() {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.inserted(1, "Bobo", picturePath: "/var/mobile/bobo.jpg"), Self.inserted(2, "Coco"),
        Self.inserted(3, "Dede", picturePath: ""),
      ])
    #expect(catalog.animal(.inserted(number: 1))?.picture == .local("/var/mobile/bobo.jpg"))
    #expect(catalog.animal(.inserted(number: 2))?.picture == AnimalPicture.none)
    #expect(catalog.animal(.inserted(number: 3))?.picture == AnimalPicture.none)
  }

  @Test func namesJoinChineseAndEnglishForImportedAnimals() throws {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(1, "大貓熊", "Giant Panda"), Self.imported(2, "", "King Penguin"),
        Self.imported(3, "黑腳企鵝", ""), Self.inserted(1, "Bobo"),
      ])
    #expect(
      catalog.animals.map(\.displayName) == ["Bobo", "大貓熊 Giant Panda", "King Penguin", "黑腳企鵝"])
    let panda = try #require(catalog.animal(.imported(sourceID: 1)))
    #expect(panda.name == "大貓熊")
    #expect(panda.englishName == "Giant Panda")
    #expect(!panda.isInserted)
    let bobo = try #require(catalog.animal(.inserted(number: 1)))
    #expect(bobo.isInserted)
    #expect(bobo.description == "Inserted by hand")
    #expect(bobo.englishName == "")
  }

  @Test func jsonHasTheDocumentedShape() {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(1, "大貓熊", "Giant Panda", location: "大貓熊館", pictures: ["http://zoo/p.jpg"]),
        Self.imported(7, "雙峰駱駝", ""), Self.inserted(2, "Bobo", picturePath: "/photos/bobo.jpg"),
      ])
    #expect(
      catalog.jsonText()
        == #"{"animals":[{"id":"user-2","origin":"inserted","name":"Bobo","displayName":"Bobo","#
        + #""description":"Inserted by hand","picture":{"kind":"local","path":"/photos/bobo.jpg"}},"#
        + #"{"id":"zoo-1","origin":"imported","name":"大貓熊","englishName":"Giant Panda","#
        + #""displayName":"大貓熊 Giant Panda","location":"大貓熊館","picture":{"kind":"remote","url":"http://zoo/p.jpg"}},"#
        + #"{"id":"zoo-7","origin":"imported","name":"雙峰駱駝","displayName":"雙峰駱駝","picture":{"kind":"none"}}]}"#
    )
  }

  @Test func entriesNameThePicturesKind() {
    let catalog = fold(
      AnimalCatalog.self,
      [
        Self.imported(1, "大貓熊", "Giant Panda", pictures: ["http://zoo/p.jpg"]),
        Self.inserted(2, "Bobo", picturePath: "/photos/bobo.jpg"), Self.inserted(3, "Coco"),
      ])
    #expect(
      catalog.entries == [
        "zoo-1": ReadModelEntry(fields: [
          .init(name: "origin", value: "imported"), .init(name: "name", value: "大貓熊"),
          .init(name: "englishName", value: "Giant Panda"),
          .init(name: "pictureURL", value: "http://zoo/p.jpg"),
        ]),
        "user-2": ReadModelEntry(fields: [
          .init(name: "origin", value: "inserted"), .init(name: "name", value: "Bobo"),
          .init(name: "description", value: "Inserted by hand"),
          .init(name: "picturePath", value: "/photos/bobo.jpg"),
        ]),
        "user-3": ReadModelEntry(fields: [
          .init(name: "origin", value: "inserted"), .init(name: "name", value: "Coco"),
          .init(name: "description", value: "Inserted by hand"),
        ]),
      ])
    #expect(catalog.entry(forID: "user-3") == catalog.entries["user-3"])
    #expect(catalog.entry(forID: "zoo-2") == nil)
    #expect(catalog.entry(forID: "panda") == nil)
  }
}
