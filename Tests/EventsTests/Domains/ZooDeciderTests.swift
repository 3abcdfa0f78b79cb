import Testing

@testable import Events

@Suite struct ZooDeciderTests {
  let lion = AnimalRecord(
    sourceID: 4, nameChinese: "非洲獅", nameEnglish: "Lion", location: "非洲動物區",
    pictures: [MediaLink(url: "http://www.zoo.gov.tw/lion.jpg", alternativeText: "獅子")])
  let user3 = AnimalID.inserted(number: 3)

  // MARK: Insert

  @Test func insertingAnAnimalAppendsInsertedInItsOwnStream() throws {
    let events = try ZooDecider.decide(
      .insertAnimal(
        id: user3, name: "Pip", description: "A very small owl.", picturePath: "/tmp/pip.jpg"),
      .initial)
    #expect(
      events == [
        .inserted(
          AnimalInserted(
            id: user3, name: "Pip", description: "A very small owl.", picturePath: "/tmp/pip.jpg"))
      ])
    #expect(domainStreams(ZooDecider.self, events) == ["animal-user-3"])
  }

  @Test func anEmptyPicturePathMeansNone() throws {
    let events = try ZooDecider.decide(
      .insertAnimal(id: user3, name: "Pip", description: "", picturePath: ""), .initial)
    #expect(events == [.inserted(AnimalInserted(id: user3, name: "Pip", description: ""))])
  }

  @Test(arguments: ["", "   ", "\n"])
  func insertingWithABlankNameIsAnError(name: String) {
    #expect(throws: EventsError.self) {
      try ZooDecider.decide(
        .insertAnimal(id: user3, name: name, description: "", picturePath: nil), .initial)
    }
  }

  @Test func insertingUnderAnImportedIdIsAnError() {
    #expect(
      domainErrorMessage {
        _ = try ZooDecider.decide(
          .insertAnimal(id: .imported(sourceID: 3), name: "Pip", description: "", picturePath: nil),
          .initial)
      }
        == "'insertAnimal': 'id': expected an inserted animal's id 'user-<n>' (e.g. 'user-1'), found 'zoo-3'"
    )
  }

  /// The same insertion again (an exported catalogue imported back, a retried command)
  /// changes nothing; another animal under the same id is an error.
  @Test func insertingIntoAStreamThatExistsIsAnErrorUnlessItIsTheSameAnimal() throws {
    let command = ZooCommand.insertAnimal(id: user3, name: "Pip", description: "", picturePath: nil)
    let result = try domainRun(ZooDecider.self, [command])
    let again = try ZooDecider.decision(command, result.state)
    #expect(again.events.isEmpty)
    #expect(again.noChangeReason == "animal 'user-3' is already there as inserted")
    let other = ZooCommand.insertAnimal(id: user3, name: "Pop", description: "", picturePath: nil)
    #expect(throws: EventsError.entityAlreadyExists(kind: .animal, id: "user-3")) {
      try ZooDecider.decide(other, result.state)
    }
  }

  // MARK: Remove

  @Test func removingAnImportedOrInsertedAnimalAppendsRemoved() throws {
    let imported = try domainRun(
      ZooDecider.self, [.importAnimal(lion, source: "zoo.json"), .removeAnimal(id: lion.id)])
    #expect(imported.last.events == [.removed(AnimalRemoved(id: .imported(sourceID: 4)))])
    #expect(imported.state.isRemoved)
    let inserted = try domainRun(
      ZooDecider.self,
      [
        .insertAnimal(id: user3, name: "Pip", description: "", picturePath: nil),
        .removeAnimal(id: user3),
      ])
    #expect(inserted.last.events == [.removed(AnimalRemoved(id: user3))])
  }

  @Test func removingAnUnknownOrRemovedAnimalIsAnError() throws {
    #expect(throws: EventsError.unknownEntity(kind: .animal, id: "user-3")) {
      try ZooDecider.decide(.removeAnimal(id: user3), .initial)
    }
    let removed = try domainRun(
      ZooDecider.self, [.importAnimal(lion, source: "zoo.json"), .removeAnimal(id: lion.id)])
    #expect(throws: EventsError.entityRemoved(kind: .animal, id: "zoo-4")) {
      try ZooDecider.decide(.removeAnimal(id: lion.id), removed.state)
    }
  }

  // MARK: Import

  @Test func importingANewRecordAppendsImportedWithItsSource() throws {
    let command = ZooCommand.importAnimal(lion, source: "taipei-zoo-animals.json")
    #expect(command.streamName == "animal-zoo-4")
    let events = try ZooDecider.decide(command, .initial)
    #expect(events == [.imported(AnimalImported(record: lion, source: "taipei-zoo-animals.json"))])
  }

  @Test func reimportingTheSameRecordAppendsNothing() throws {
    let result = try domainRun(
      ZooDecider.self,
      [.importAnimal(lion, source: "a.json"), .importAnimal(lion, source: "b.json")])
    #expect(result.last.events.isEmpty)
    #expect(result.last.noChangeReason == "animal 'zoo-4' is unchanged since its last import")
  }

  @Test func reimportingAChangedRecordAppendsTheNewVersion() throws {
    var newVersion = lion
    newVersion.update = "2017/9/29"
    let result = try domainRun(
      ZooDecider.self,
      [.importAnimal(lion, source: "a.json"), .importAnimal(newVersion, source: "b.json")])
    #expect(result.last.events == [.imported(AnimalImported(record: newVersion, source: "b.json"))])
    #expect(result.state.lastImported == newVersion)
  }

  @Test func importingARemovedAnimalAppendsNothingAndSaysWhy() throws {
    var newVersion = lion
    newVersion.update = "2017/9/29"
    let result = try domainRun(
      ZooDecider.self,
      [
        .importAnimal(lion, source: "a.json"), .removeAnimal(id: lion.id),
        .importAnimal(newVersion, source: "a.json"),
      ])
    #expect(result.last.events.isEmpty)
    #expect(
      result.last.noChangeReason == "animal 'zoo-4' was removed; the import leaves it removed")
  }
}
