import Engine
import Events

/// A generated imported animal: which real record it copies, under which `_id`, and how many
/// times the source has changed it since.
struct GeneratedAnimal: Sendable {
  var sourceID: Int
  var template: UInt8
  var revision: UInt16

  /// Its Latin name: the template's, numbered, so that each generated animal is its own
  /// (`Ailuropoda melanoleuca 17`); the importers' rule makes its id from it.
  var latinName: String {
    ZooCorpus.records[Int(template)].nameLatin + " " + String(sourceID)
  }

  /// Its id, `zoo-<slug of latinName>`.
  var id: AnimalID {
    AnimalID.imported(latinName: latinName) ?? .imported(sourceID: sourceID)
  }
}

extension LogGenerator {
  /// `AnimalImported`: a new record (two times in three), or a new version of a live one.
  mutating func importAnimal() -> DomainEvent? {
    if !liveImportedAnimals.isEmpty, random.chance(1.0 / 3),
      let index = liveImportedAnimals.randomMember(using: &random)
    {
      // The source changed the record: the `update` date always moves on, so the record
      // differs from the last imported version, as the zoo's import rule requires.
      importedAnimals[index].revision &+= 1
      return importedEvent(importedAnimals[index])
    }
    let template = UInt8(random.below(ZooCorpus.records.count))
    let sourceID = firstFreeNumber(from: nextAnimalSourceID, kind: .animal) {
      GeneratedAnimal(sourceID: $0, template: template, revision: 0).id.rawValue
    }
    nextAnimalSourceID = sourceID + 1
    let animal = GeneratedAnimal(sourceID: sourceID, template: template, revision: 0)
    liveImportedAnimals.insert(importedAnimals.count)
    importedAnimals.append(animal)
    return importedEvent(animal)
  }

  /// `AnimalInserted` by a user, `user-<n>`.
  mutating func insertAnimal() -> DomainEvent? {
    let number = firstFreeNumber(from: nextInsertedAnimalNumber, kind: .animal) {
      AnimalID.inserted(number: $0).rawValue
    }
    nextInsertedAnimalNumber = number + 1
    liveInsertedAnimals.insert(insertedAnimalNumbers.count)
    insertedAnimalNumbers.append(number)
    let animal = random.element(of: GeneratorText.insertedAnimals)
    let picture = random.chance(0.8) ? "pictures/animal-\(number).jpg" : nil
    return .zoo(
      .inserted(
        AnimalInserted(
          id: .inserted(number: number), name: animal.name, description: animal.description,
          picturePath: picture)))
  }

  /// `AnimalRemoved` of a live animal, imported or inserted.
  mutating func removeAnimal() -> DomainEvent? {
    let total = liveImportedAnimals.count + liveInsertedAnimals.count
    guard total > 0 else { return nil }
    if random.below(total) < liveImportedAnimals.count,
      let index = liveImportedAnimals.randomMember(using: &random)
    {
      liveImportedAnimals.remove(index)
      return .zoo(.removed(AnimalRemoved(id: importedAnimals[index].id)))
    }
    guard let index = liveInsertedAnimals.randomMember(using: &random) else { return nil }
    liveInsertedAnimals.remove(index)
    let id = AnimalID.inserted(number: insertedAnimalNumbers[index])
    return .zoo(.removed(AnimalRemoved(id: id)))
  }

  /// The animal's record as imported: its real template under its own `_id`, dated by its
  /// revision, with some long fields left empty as many real records have them, so payloads
  /// range over 1-3 KB.
  private func importedEvent(_ animal: GeneratedAnimal) -> DomainEvent {
    let template = ZooCorpus.records[Int(animal.template)]
    let bits = GeneratorRandom.hash(UInt64(animal.sourceID), UInt64(animal.revision))
    func kept(_ text: String, _ bit: Int) -> String { (bits >> bit) & 3 == 0 ? "" : text }
    let day = Int((bits >> 40) % 700) + 7 * Int(animal.revision)
    let record = AnimalRecord(
      sourceID: animal.sourceID, nameChinese: template.nameChinese,
      nameEnglish: template.nameEnglish, nameLatin: animal.latinName,
      alsoKnownAs: template.alsoKnownAs, location: template.location, geo: template.geo,
      coordinate: template.coordinate, phylum: template.phylum,
      taxonomicClass: template.taxonomicClass, order: template.order, family: template.family,
      conservation: template.conservation, distribution: kept(template.distribution, 0),
      habitat: kept(template.habitat, 2), feature: kept(template.feature, 4),
      behavior: kept(template.behavior, 6), diet: template.diet, crisis: kept(template.crisis, 8),
      interpretation: kept(template.interpretation, 10), themeName: template.themeName,
      themeURL: template.themeURL, adopt: template.adopt, code: template.code,
      pictures: template.pictures, pdfs: template.pdfs, voices: template.voices,
      videoURL: template.videoURL, update: Self.sourceDate(daysAfterStart: day),
      cid: template.cid, summary: template.summary, keywords: template.keywords,
      poiGroup: template.poiGroup)
    return .zoo(.imported(AnimalImported(record: record, source: ZooCorpus.sourceName)))
  }

  /// A date as the open data writes them, `2017/9/29`, counted from 2017-01-01.
  private static func sourceDate(daysAfterStart days: Int) -> String {
    let instant = Timestamp(millisecondsSince1970: 1_483_228_800_000 + Int64(days) * 86_400_000)
    let text = instant.description  // YYYY-MM-DDT...
    let parts = text.prefix(10).split(separator: "-").map { Int($0) ?? 0 }
    return "\(parts[0])/\(parts[1])/\(parts[2])"
  }
}
