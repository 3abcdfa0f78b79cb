import Events

/// The zoo app's read model: the catalogue of animals, imported from the open-data API or
/// inserted by the user.
///
/// Folds `AnimalImported` (the first import of an id gives it its place; a later import of the
/// same id updates its fields and keeps its place), `AnimalInserted` and `AnimalRemoved`. An
/// animal removed and then imported or inserted again takes the place of that new event.
///
/// **Order.** User-inserted animals first, newest first (by the `seq` of their `AnimalInserted`,
/// descending); then the imported ones in source order (by the `seq` of their first
/// `AnimalImported`, ascending; importers append a source's records in order). Equal places,
/// which only hand-built contexts can give, are ordered by id.
///
/// **Names and pictures.** An imported animal's `name` is its Chinese name (`A_Name_Ch`) and
/// `englishName` its English one (`A_Name_En`); its `displayName` joins both with a space (or is
/// whichever exists). Its picture is the first picture slot with a non-empty URL, as
/// `.remote(url)`. An inserted animal has the user's name and description, and `.local(path)`
/// when the user gave a picture. `.none` otherwise.
///
/// **JSON** (`encode(to:options:)`, options unused; empty `englishName`, `location` and
/// `description` omitted):
/// ```
/// {"animals":[{"id":"user-2","origin":"inserted","name":"Bobo","displayName":"Bobo",
///   "description":"...","picture":{"kind":"local","path":"/photos/bobo.jpg"}},
///  {"id":"zoo-ailuropoda-melanoleuca","origin":"imported","name":"大貓熊","englishName":"Giant Panda",
///   "displayName":"大貓熊 Giant Panda","location":"大貓熊館",
///   "picture":{"kind":"remote","url":"http://..."}},
///  {"id":"zoo-7",...,"picture":{"kind":"none"}}]}
/// ```
///
/// **Entries** (keyed by animal id, `zoo-ailuropoda-melanoleuca`), absent or empty fields left out: `origin`
/// (`imported`/`inserted`), `name`, `englishName`, `location`, `description`, `pictureURL`
/// (remote) or `picturePath` (local).
///
/// **Checkpoint** (version 1): a varint count, then per animal: a `UInt8` origin (0 imported, 1
/// inserted), a varint id number, an `Int64` place, `name`, `englishName`, `location` and
/// `description` strings, a `UInt8` picture kind (0 none, 1 local, 2 remote) and, unless none,
/// the path or URL string.
public struct AnimalCatalog: EntityTableModel {
  public static let name = "animals"
  public static let checkpointVersion = 2

  struct Stored: Sendable, Equatable {
    var animal: Animal
    /// The `seq` that gave the animal its place.
    var place: Int64
  }

  private(set) var table = EntityTable<AnimalID, Stored>()

  public init() {}

  // MARK: Folding

  /// Folds one event; `context.sequence` places new animals.
  public mutating func apply(_ event: DomainEvent, at context: EventContext) {
    switch event {
    case .zoo(.imported(let imported)):
      let record = imported.record
      let updated = table.update(record.id) { stored in
        stored.animal.name = record.nameChinese
        stored.animal.englishName = record.nameEnglish
        stored.animal.location = record.location
        stored.animal.picture = Self.picture(of: record)
      }
      if !updated {
        let animal = Animal(
          id: record.id, name: record.nameChinese, englishName: record.nameEnglish,
          location: record.location, description: "", picture: Self.picture(of: record))
        table.set(record.id, Stored(animal: animal, place: context.sequence))
      }
    case .zoo(.inserted(let inserted)):
      let animal = Animal(
        id: inserted.id, name: inserted.name, englishName: "", location: "",
        description: inserted.description,
        picture: inserted.picturePath.map { $0.isEmpty ? .none : .local($0) } ?? .none)
      table.set(inserted.id, Stored(animal: animal, place: context.sequence))
    case .zoo(.removed(let removed)):
      table.remove(removed.id)
    default:
      return
    }
  }

  /// Folds one zoo event; `context.sequence` places new animals.
  public mutating func apply(_ event: ZooEvent, at context: EventContext) {
    apply(.zoo(event), at: context)
  }

  private static func picture(of record: AnimalRecord) -> AnimalPicture {
    for link in record.pictures where !link.url.isEmpty {
      return .remote(link.url)
    }
    return .none
  }

  // MARK: State and views

  /// The animal with `id`.
  public func animal(_ id: AnimalID) -> Animal? { table[id]?.animal }

  /// Every animal in the order the log gave them their places (inserted and imported mixed,
  /// oldest first): the order an import must see them in to give each the same place.
  public var animalsInLogOrder: [Animal] {
    let stored = Array(table.values)
    return stored.indices.sorted { stored[$0].place < stored[$1].place }.map { stored[$0].animal }
  }

  /// The catalogue: inserted animals newest first, then imported ones in source order.
  /// - Complexity: O(n log n).
  public var animals: [Animal] {
    let stored = Array(table.values)
    let order = stored.indices.sorted { leftIndex, rightIndex in
      let left = stored[leftIndex]
      let right = stored[rightIndex]
      let leftInserted = left.animal.id.isInserted
      if leftInserted != right.animal.id.isInserted { return leftInserted }
      if left.place != right.place {
        return leftInserted ? left.place > right.place : left.place < right.place
      }
      return left.animal.id < right.animal.id
    }
    return order.map { stored[$0].animal }
  }

  public func encode(to writer: inout JSONWriter, options: ViewOptions) {
    writer.beginObject()
    writer.member("animals", objects: animals) { writer, animal in
      writer.field("id", animal.id.rawValue)
      writer.field("origin", animal.id.isInserted ? "inserted" : "imported")
      writer.field("name", animal.name)
      writer.field("englishName", unlessEmpty: animal.englishName)
      writer.field("displayName", animal.displayName)
      writer.field("location", unlessEmpty: animal.location)
      writer.field("description", unlessEmpty: animal.description)
      writer.key("picture")
      writer.beginObject()
      switch animal.picture {
      case .none:
        writer.field("kind", "none")
      case .local(let path):
        writer.field("kind", "local")
        writer.field("path", path)
      case .remote(let url):
        writer.field("kind", "remote")
        writer.field("url", url)
      }
      writer.endObject()
    }
    writer.endObject()
  }

  // MARK: Entries

  static func entry(_ stored: Stored) -> ReadModelEntry {
    let animal = stored.animal
    var entry = ReadModelEntry()
    entry.append("origin", animal.id.isInserted ? "inserted" : "imported")
    entry.append("name", unlessEmpty: animal.name)
    entry.append("englishName", unlessEmpty: animal.englishName)
    entry.append("location", unlessEmpty: animal.location)
    entry.append("description", unlessEmpty: animal.description)
    switch animal.picture {
    case .none: break
    case .local(let path): entry.append("picturePath", path)
    case .remote(let url): entry.append("pictureURL", url)
    }
    return entry
  }

  // MARK: Checkpoint

  public func write(to writer: inout BinaryWriter) {
    table.write(to: &writer) { stored, writer in
      writer.writeInteger(stored.place)
      let animal = stored.animal
      writer.writeString(animal.name)
      writer.writeString(animal.englishName)
      writer.writeString(animal.location)
      writer.writeString(animal.description)
      switch animal.picture {
      case .none:
        writer.writeInteger(UInt8(0))
      case .local(let path):
        writer.writeInteger(UInt8(1))
        writer.writeString(path)
      case .remote(let url):
        writer.writeInteger(UInt8(2))
        writer.writeString(url)
      }
    }
  }

  /// Loads the animals with each one left in the checkpoint's bytes until it is used (see
  /// `EntityTable`): every byte is checked here, but only the ids become `String`s.
  public init(from reader: inout BinaryReader) throws(ProjectionsError) {
    let count = try reader.readCount("the number of animals", minimumSize: 15)
    table = EntityTable(minimumCapacity: count)
    try table.loadStored(count: count, from: &reader, what: "an animal id") {
      (reader) throws(ProjectionsError) in
      let start = reader.offset
      let rawID = try reader.readString("an animal's id")
      do throws(EventsError) {
        return try AnimalID(rawID)
      } catch {
        throw reader.invalid(
          "an animal's id", expected: AnimalID.expectation, found: "'\(rawID)'", at: start)
      }
    } readValue: { id, reader, building throws(ProjectionsError) in
      try Self.readAnimal(id: id, from: &reader, building: building)
    }
  }

  /// Reads one animal after its id (see `EntityTable.loadStored`).
  private static func readAnimal(
    id: AnimalID, from reader: inout BinaryReader, building: Bool
  ) throws(ProjectionsError) -> Stored {
    func text(_ what: StaticString) throws(ProjectionsError) -> String {
      guard building else {
        _ = try reader.skipString(what)
        return ""
      }
      return try reader.readString(what)
    }
    let place = try reader.readInteger(Int64.self, "an animal's place")
    let name = try text("an animal's name")
    let englishName = try text("an animal's English name")
    let location = try text("an animal's location")
    let description = try text("an animal's description")
    let pictureOffset = reader.offset
    let picture: AnimalPicture
    switch try reader.readInteger(UInt8.self, "an animal's picture kind") {
    case 0: picture = .none
    case 1: picture = .local(try text("an animal's picture path"))
    case 2: picture = .remote(try text("an animal's picture URL"))
    case let kind:
      throw reader.invalid(
        "animal '\(id)' picture kind", expected: "0 (none), 1 (local) or 2 (remote)",
        found: "\(kind)", at: pictureOffset)
    }
    let animal = Animal(
      id: id, name: name, englishName: englishName, location: location,
      description: description, picture: picture)
    return Stored(animal: animal, place: place)
  }
}

/// An animal as the catalogue shows it.
public struct Animal: Sendable, Equatable, Hashable {
  /// `zoo-<n>` (imported) or `user-<n>` (inserted); stable and never reused.
  public var id: AnimalID
  /// Imported: the Chinese name (`大貓熊`); inserted: the user's name.
  public var name: String
  /// Imported: the English name (`Giant Panda`); inserted: empty.
  public var englishName: String
  /// Imported: the enclosure (`大貓熊館`); inserted: empty.
  public var location: String
  /// Inserted: the user's description; imported: empty.
  public var description: String
  /// Where the picture is.
  public var picture: AnimalPicture

  /// An animal from its parts.
  public init(
    id: AnimalID, name: String, englishName: String, location: String, description: String,
    picture: AnimalPicture
  ) {
    self.id = id
    self.name = name
    self.englishName = englishName
    self.location = location
    self.description = description
    self.picture = picture
  }

  /// Whether the user inserted it (rather than an import).
  public var isInserted: Bool { id.isInserted }

  /// `name` and `englishName` joined by a space (`大貓熊 Giant Panda`), or whichever is not
  /// empty.
  public var displayName: String {
    if englishName.isEmpty { return name }
    if name.isEmpty { return englishName }
    return name + " " + englishName
  }
}

/// Where an animal's picture is.
public enum AnimalPicture: Sendable, Equatable, Hashable {
  /// A file on the device (an inserted animal's picture path).
  case local(String)
  /// An address on the web (an imported animal's first picture URL).
  case remote(String)
  /// No picture.
  case none
}
