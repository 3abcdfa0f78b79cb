import Events
import Foundation

@testable import Projections

/// The real seed data (the repository's copy in `eventlogs/seed-data`, or `REPLAY_SEED_DATA`), turned
/// into domain events the simple way: these tests pin the read models, not an importer.
enum SeedData {
  static let directory = URL(fileURLWithPath: RepositoryFiles.seedDataDirectory)

  static func json(_ name: String) throws -> JSONValue {
    let data = try Data(contentsOf: directory.appendingPathComponent(name))
    return try JSONValue.parse(Array(data))
  }

  static func string(_ value: JSONValue?) -> String? { value?.stringValue }

  // MARK: Contacts

  /// `contacts-v3.json` as `ContactAdded` events, in file order.
  static func contactEvents() throws -> [DomainEvent] {
    let source = "contacts-v3.json"
    guard let contacts = try json(source).arrayValue else { throw ProjectionsTestError(source) }
    return try contacts.map { contact in
      let phone = contact["phone"]
      let address = contact["address"]
      let record = ContactRecord(
        id: try ContactID(string(contact["id"]) ?? ""), name: string(contact["name"]) ?? "",
        companyName: string(contact["companyName"]),
        isFavorite: contact["isFavorite"]?.boolValue ?? false,
        smallImageURL: string(contact["smallImageURL"]),
        largeImageURL: string(contact["largeImageURL"]),
        emailAddress: string(contact["emailAddress"]),
        birthdate: try string(contact["birthdate"]).map { try CalendarDate($0) },
        phone: PhoneNumbers(
          work: string(phone?["work"]), home: string(phone?["home"]),
          mobile: string(phone?["mobile"])),
        address: PostalAddress(
          street: string(address?["street"]), city: string(address?["city"]),
          state: string(address?["state"]), country: string(address?["country"]),
          zipCode: string(address?["zipCode"])))
      return .contact(.added(ContactAdded(record: record, source: source)))
    }
  }

  // MARK: Observations

  /// `field-observations.json` as `ObservationRecorded` events, dates read in UTC.
  static func observationEvents() throws -> [DomainEvent] {
    let source = "field-observations.json"
    guard let observations = try json(source)["observations"]?.arrayValue else {
      throw ProjectionsTestError(source)
    }
    return try observations.map { observation in
      let title = string(observation["title"]) ?? ""
      let date = try ObservationDate.parse(string(observation["date"]) ?? "")
      guard
        let classification = string(observation["classification"]).flatMap(
          Classification.init(rawValue:))
      else { throw ProjectionsTestError("classification of \(title)") }
      let record = ObservationRecord(
        classification: classification, title: title,
        description: string(observation["description"]) ?? "", date: date)
      let id = ObservationID.derived(source: source, title: title, date: date)
      return .observation(.recorded(ObservationRecorded(id: id, record: record, source: source)))
    }
  }

  // MARK: States

  /// A state and its zip codes as `StateAdded` then `ZipCodeAdded` events (repeats skipped).
  static func stateEvents(_ name: String, _ zipCodes: [String], source: String) throws
    -> [DomainEvent]
  {
    let state = try StateName(name)
    var seen: Set<String> = []
    var events: [DomainEvent] = [.state(.stateAdded(StateAdded(state: state, source: source)))]
    for zip in zipCodes where seen.insert(zip).inserted {
      events.append(
        .state(.zipCodeAdded(ZipCodeAdded(state: state, zipCode: try ZipCode(zip), source: source)))
      )
    }
    return events
  }

  /// `states-zipcodes.assessment-states.json` (state name → zips), in file order.
  static func assessmentStateEvents() throws -> [DomainEvent] {
    let source = "states-zipcodes.assessment-states.json"
    guard let states = try json(source).objectValue else { throw ProjectionsTestError(source) }
    return try states.members.flatMap { member in
      try stateEvents(
        member.key, member.value.arrayValue?.compactMap(\.stringValue) ?? [], source: source)
    }
  }

  /// `states-zipcodes.readme-example.plist` (`{"States":[{"Name","ZipCodes"}]}`).
  static func readmeStateEvents() throws -> [DomainEvent] {
    let source = "states-zipcodes.readme-example.plist"
    let data = try Data(contentsOf: directory.appendingPathComponent(source))
    let plist = try PropertyListSerialization.propertyList(from: data, format: nil)
    guard let states = (plist as? [String: Any])?["States"] as? [[String: Any]] else {
      throw ProjectionsTestError(source)
    }
    return try states.flatMap { state in
      try stateEvents(
        state["Name"] as? String ?? "", state["ZipCodes"] as? [String] ?? [], source: source)
    }
  }

  // MARK: Zoo

  /// `taipei-zoo-animals.json` as `AnimalImported` events, in source order. Only what the
  /// catalogue shows is kept: names, location, picture slots.
  static func animalEvents() throws -> [DomainEvent] {
    let source = "taipei-zoo-animals.json"
    guard let results = try json(source)["result"]?["results"]?.arrayValue else {
      throw ProjectionsTestError(source)
    }
    return try results.map { result in
      guard let sourceID = result["_id"]?.int64Value else { throw ProjectionsTestError("_id") }
      let pictures = (1...4).map { slot in
        MediaLink(
          url: string(result["A_Pic0\(slot)_URL"]) ?? "",
          alternativeText: string(result["A_Pic0\(slot)_ALT"]) ?? "")
      }
      let record = AnimalRecord(
        sourceID: Int(sourceID),
        nameChinese: string(result["\u{FEFF}A_Name_Ch"] ?? result["A_Name_Ch"]) ?? "",
        nameEnglish: string(result["A_Name_En"]) ?? "",
        location: string(result["A_Location"]) ?? "", pictures: pictures)
      return .zoo(.imported(AnimalImported(record: record, source: source)))
    }
  }

  // MARK: Locations

  /// `acmeaom-locations.json` as `LocationAdded` events, in file order.
  static func locationEvents() throws -> [DomainEvent] {
    let source = "acmeaom-locations.json"
    guard let features = try json(source)["features"]?.arrayValue else {
      throw ProjectionsTestError(source)
    }
    return try features.map { feature in
      guard let point = feature["geometry"]?["coordinates"]?.arrayValue, point.count == 2,
        let longitude = point[0].doubleValue, let latitude = point[1].doubleValue
      else { throw ProjectionsTestError("coordinates") }
      let record = LocationRecord(
        id: try LocationID(string(feature["id"]) ?? ""),
        name: string(feature["properties"]?["name"]) ?? "",
        coordinate: try Coordinate(latitude: latitude, longitude: longitude))
      return .location(.added(LocationAdded(record: record, source: source)))
    }
  }

  /// Every seed file's events, domain after domain.
  static func allEvents() throws -> [DomainEvent] {
    try contactEvents() + observationEvents() + assessmentStateEvents() + readmeStateEvents()
      + animalEvents() + locationEvents()
  }
}
