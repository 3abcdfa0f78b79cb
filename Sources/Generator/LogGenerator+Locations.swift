import Engine
import Events

/// A generated location: its id (a UUID, as in the real GeoJSON), name and coordinate.
struct GeneratedLocation: Sendable {
  var id: LocationID
  /// An index into the names `LogGenerator.locationName(_:)` makes.
  var name: Int
  var coordinate: Coordinate
}

extension LogGenerator {
  /// How many distinct location names there are.
  static let locationNameCount = GeneratorText.placeNames.count * 20

  /// `LocationAdded` somewhere on Earth.
  mutating func addLocation() -> DomainEvent {
    let number = firstFreeNumber(from: nextLocationNumber, kind: .location) {
      locationID($0).rawValue
    }
    nextLocationNumber = number + 1
    let id = locationID(number)
    let location = GeneratedLocation(
      id: id, name: random.below(Self.locationNameCount), coordinate: randomCoordinate())
    liveLocations.insert(locations.count)
    locations.append(location)
    let record = LocationRecord(
      id: id, name: Self.locationName(location.name), coordinate: location.coordinate)
    return .location(.added(LocationAdded(record: record)))
  }

  /// `LocationMoved` of a live location: mostly a short way (a GPS correction), sometimes
  /// anywhere.
  mutating func moveLocation() -> DomainEvent? {
    guard let index = liveLocations.randomMember(using: &random) else { return nil }
    let old = locations[index].coordinate
    var new = random.chance(0.7) ? nearbyCoordinate(old) : randomCoordinate()
    if new == old {
      // Moving to where it is decides nothing: nudge it.
      new = Self.coordinate(
        latitude: old.latitude > 0 ? old.latitude - 0.0001 : old.latitude + 0.0001,
        longitude: old.longitude)
    }
    locations[index].coordinate = new
    return .location(.moved(LocationMoved(id: locations[index].id, coordinate: new)))
  }

  /// `LocationRenamed` of a live location, to another name.
  mutating func renameLocation() -> DomainEvent? {
    guard let index = liveLocations.randomMember(using: &random) else { return nil }
    locations[index].name = random.other(than: locations[index].name, below: Self.locationNameCount)
    return .location(
      .renamed(
        LocationRenamed(id: locations[index].id, name: Self.locationName(locations[index].name))))
  }

  /// `LocationRemoved` of a live location.
  mutating func removeLocation() -> DomainEvent? {
    guard let index = liveLocations.randomMember(using: &random) else { return nil }
    liveLocations.remove(index)
    return .location(.removed(LocationRemoved(id: locations[index].id)))
  }

  /// A UUID-shaped id derived from the seed and the location's number.
  private func locationID(_ number: Int) -> LocationID {
    let text = EventID.derived(fromName: "location/\(seed)/\(number)").description
    return Self.valid(try? LocationID(text), "location id '\(text)'")
  }

  /// `Alpha`, `Bravo`, ..., then `Alpha 2`, ...
  static func locationName(_ index: Int) -> String {
    let names = GeneratorText.placeNames
    let round = index / names.count
    return names[index % names.count] + (round == 0 ? "" : " \(round + 1)")
  }

  /// A coordinate anywhere: mostly uniform in latitude and longitude, with a share within a
  /// degree of a pole or of the antimeridian, and a few exactly on them, where spatial indexes have their
  /// edge cases. Six decimals (about 10 cm), as GPS readings are written.
  private mutating func randomCoordinate() -> Coordinate {
    let sign: Double = random.chance(0.5) ? 1 : -1
    let latitude: Double
    let longitude: Double
    switch random.below(100) {
    case 0..<4:
      latitude = sign * (89 + random.unit())
      longitude = random.unit() * 360 - 180
    case 4..<8:
      latitude = random.unit() * 180 - 90
      longitude = sign * (179 + random.unit())
    case 8:
      latitude = sign * 90
      longitude = random.unit() * 360 - 180
    case 9:
      latitude = random.unit() * 180 - 90
      longitude = sign * 180
    default:
      latitude = random.unit() * 180 - 90
      longitude = random.unit() * 360 - 180
    }
    return Self.coordinate(latitude: latitude, longitude: longitude)
  }

  /// A coordinate up to about 5 km from `coordinate`, across the antimeridian if need be.
  private mutating func nearbyCoordinate(_ coordinate: Coordinate) -> Coordinate {
    var latitude = coordinate.latitude + (random.unit() - 0.5) * 0.1
    var longitude = coordinate.longitude + (random.unit() - 0.5) * 0.1
    latitude = min(90, max(-90, latitude))
    if longitude > 180 { longitude -= 360 }
    if longitude < -180 { longitude += 360 }
    return Self.coordinate(latitude: latitude, longitude: longitude)
  }

  /// A valid coordinate rounded to six decimals.
  static func coordinate(latitude: Double, longitude: Double) -> Coordinate {
    func rounded(_ value: Double, limit: Double) -> Double {
      min(limit, max(-limit, (value * 1_000_000).rounded() / 1_000_000))
    }
    return valid(
      try? Coordinate(
        latitude: rounded(latitude, limit: 90), longitude: rounded(longitude, limit: 180)),
      "coordinate \(latitude), \(longitude)")
  }
}
