import Events
import Foundation

@testable import Projections

/// Random events of every type over small pools of ids, so that updates, moves, removals and
/// re-additions hit the same entities again and again. Not every sequence is one the deciders
/// would produce (a favourite of an unknown contact, a zip code modified into one the state has,
/// an animal imported after its removal): the read models must fold those too.
struct RandomEvents {
  var random: TestRandom

  init(seed: UInt64) {
    random = TestRandom(seed: seed)
  }

  static let texts = [
    "Zoë", "zoe", "ZOE", "Émile", "emile", "Harry Potter", "大貓熊", "⭐️ Star", "Line\r\nBreak",
    "A \"quoted\" \\ name", "Ångström", "x", "Kermit the Frog", "straße",
  ]

  mutating func anyText() -> String { random.pick(Self.texts) }

  mutating func anyOptionalText() -> String? { random.chance(0.3) ? nil : anyText() }

  mutating func anyChange() -> FieldChange<String>? {
    switch Int.random(in: 0..<4, using: &random) {
    case 0: .cleared
    case 1: .set(anyText())
    default: nil
    }
  }

  mutating func anyCoordinate() -> Coordinate {
    let edges: [(Double, Double)] = [(90, 180), (-90, -180), (0, -0.0), (-0.0, 180)]
    if random.chance(0.1) {
      let (latitude, longitude) = random.pick(edges)
      return coordinate(latitude, longitude)
    }
    return coordinate(
      Double.random(in: -90...90, using: &random), Double.random(in: -180...180, using: &random))
  }

  mutating func anyTimestamp() -> Timestamp {
    Timestamp(
      millisecondsSince1970: Int64.random(
        in: -1_000_000_000_000...4_000_000_000_000, using: &random))
  }

  mutating func anyContactID() -> ContactID {
    contactID("c\(Int.random(in: 0..<25, using: &random))")
  }

  mutating func anyStateName() -> StateName {
    stateName(random.pick(["Alabama", "New York", "Zoë Land", "émile", "Ohio"]))
  }

  mutating func anyZipCode() -> ZipCode {
    let base = 10_000 + Int.random(in: 0..<30, using: &random)
    return zipCode(random.chance(0.2) ? "\(base)-1234" : "\(base)")
  }

  mutating func anyObservationID() -> ObservationID {
    ObservationID.derived(from: "o\(Int.random(in: 0..<20, using: &random))")
  }

  mutating func anyAnimalID() -> AnimalID {
    random.chance(0.6)
      ? .imported(sourceID: Int.random(in: 0..<15, using: &random))
      : .inserted(number: Int.random(in: 0..<10, using: &random))
  }

  mutating func anyLocationID() -> LocationID {
    locationID("l\(Int.random(in: 0..<25, using: &random))")
  }

  mutating func anyContactRecord() -> ContactRecord {
    ContactRecord(
      id: anyContactID(), name: anyText(), companyName: anyOptionalText(),
      isFavorite: random.chance(0.3),
      smallImageURL: anyOptionalText(), largeImageURL: anyOptionalText(),
      emailAddress: anyOptionalText(),
      birthdate: random.chance(0.5)
        ? valid {
          try CalendarDate(
            year: Int.random(in: 0...9999, using: &random),
            month: Int.random(in: 1...12, using: &random),
            day: Int.random(in: 1...28, using: &random))
        } : nil,
      phone: PhoneNumbers(
        work: anyOptionalText(), home: anyOptionalText(), mobile: anyOptionalText()),
      address: PostalAddress(
        street: anyOptionalText(), city: anyOptionalText(), state: anyOptionalText(),
        country: anyOptionalText(), zipCode: anyOptionalText()))
  }

  mutating func anyAnimalRecord(_ id: AnimalID) -> AnimalRecord {
    let pictures = (0..<Int.random(in: 0...4, using: &random)).map { _ in
      MediaLink(
        url: random.chance(0.4) ? "" : "http://zoo.example/\(anyText()).jpg",
        alternativeText: anyText())
    }
    return AnimalRecord(
      sourceID: id.number, nameChinese: random.chance(0.1) ? "" : anyText(),
      nameEnglish: random.chance(0.2) ? "" : anyText(),
      location: random.chance(0.3) ? "" : anyText(),
      pictures: pictures)
  }

  mutating func event() -> DomainEvent {
    switch Int.random(in: 0..<18, using: &random) {
    case 0: return .contact(.added(ContactAdded(record: anyContactRecord())))
    case 1:
      var update = ContactUpdated(id: anyContactID())
      update.name = random.chance(0.3) ? anyText() : nil
      update.companyName = anyChange()
      update.smallImageURL = anyChange()
      update.largeImageURL = anyChange()
      update.emailAddress = anyChange()
      switch Int.random(in: 0..<3, using: &random) {
      case 0: update.birthdate = .cleared
      case 1: update.birthdate = .set(valid { try CalendarDate("1987-05-11") })
      default: break
      }
      update.workPhone = anyChange()
      update.homePhone = anyChange()
      update.mobilePhone = anyChange()
      update.street = anyChange()
      update.city = anyChange()
      update.state = anyChange()
      update.country = anyChange()
      update.zipCode = anyChange()
      return .contact(.updated(update))
    case 2: return .contact(.favorited(ContactFavorited(id: anyContactID())))
    case 3: return .contact(.unfavorited(ContactUnfavorited(id: anyContactID())))
    case 4: return .state(.stateAdded(StateAdded(state: anyStateName())))
    case 5, 6:
      return .state(.zipCodeAdded(ZipCodeAdded(state: anyStateName(), zipCode: anyZipCode())))
    case 7:
      return .state(
        .zipCodeModified(
          ZipCodeModified(state: anyStateName(), from: anyZipCode(), to: anyZipCode())))
    case 8:
      return .state(.zipCodeRemoved(ZipCodeRemoved(state: anyStateName(), zipCode: anyZipCode())))
    case 9:
      let record = ObservationRecord(
        classification: random.pick(Classification.allCases), title: anyText(),
        description: random.chance(0.2) ? "" : anyText(), date: anyTimestamp())
      return .observation(.recorded(ObservationRecorded(id: anyObservationID(), record: record)))
    case 10:
      return .observation(
        .revised(
          ObservationRevised(
            id: anyObservationID(),
            classification: random.chance(0.5) ? random.pick(Classification.allCases) : nil,
            title: random.chance(0.5) ? anyText() : nil,
            description: random.chance(0.5) ? anyText() : nil,
            date: random.chance(0.5) ? anyTimestamp() : nil)))
    case 11: return .observation(.removed(ObservationRemoved(id: anyObservationID())))
    case 12:
      let id = AnimalID.imported(sourceID: Int.random(in: 0..<15, using: &random))
      return .zoo(.imported(AnimalImported(record: anyAnimalRecord(id))))
    case 13:
      let id = AnimalID.inserted(number: Int.random(in: 0..<10, using: &random))
      let path: String? =
        random.chance(0.3) ? nil : random.chance(0.2) ? "" : "/photos/\(anyText())"
      return .zoo(
        .inserted(
          AnimalInserted(id: id, name: anyText(), description: anyText(), picturePath: path)))
    case 14: return .zoo(.removed(AnimalRemoved(id: anyAnimalID())))
    case 15:
      let record = LocationRecord(id: anyLocationID(), name: anyText(), coordinate: anyCoordinate())
      return .location(.added(LocationAdded(record: record)))
    case 16:
      return random.chance(0.5)
        ? .location(.renamed(LocationRenamed(id: anyLocationID(), name: anyText())))
        : .location(.moved(LocationMoved(id: anyLocationID(), coordinate: anyCoordinate())))
    default: return .location(.removed(LocationRemoved(id: anyLocationID())))
    }
  }

  /// A locations event only.
  mutating func anyLocationEvent() -> DomainEvent {
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<5:
      let record = LocationRecord(id: anyLocationID(), name: anyText(), coordinate: anyCoordinate())
      return .location(.added(LocationAdded(record: record)))
    case 5..<8:
      return .location(.moved(LocationMoved(id: anyLocationID(), coordinate: anyCoordinate())))
    case 8: return .location(.renamed(LocationRenamed(id: anyLocationID(), name: anyText())))
    default: return .location(.removed(LocationRemoved(id: anyLocationID())))
    }
  }

  mutating func events(count: Int) -> [DomainEvent] {
    (0..<count).map { _ in event() }
  }
}
