import Events
import Foundation

/// The locations app's read model: named points, and for each the nearest other ones.
///
/// Folds `LocationAdded` (sets the whole location; adding an id again replaces it),
/// `LocationRenamed`, `LocationMoved` (each changes its field; unknown ids change nothing) and
/// `LocationRemoved`.
///
/// **Views.** ``neighborhood()`` builds a ``LocationNeighborhood`` — the spatial index
/// (`NearestNeighborIndex`) over every location, built once for as many queries as the caller
/// makes — whose `listing()` gives every location sorted by name (ignoring case and
/// diacritics, see `NameOrdering`), then id, each with its 3 nearest others, and whose
/// `nearest(to:count:)` answers one location. Distances are Haversine distances in miles
/// (`Haversine.earthRadiusMiles`); neighbours come ascending by distance, equal distances by
/// id. ``nearest(to:count:)`` on the model itself builds a neighbourhood for one query.
///
/// **JSON** (`encode(to:options:)`, options unused; `distanceInMiles` is the distance rounded to
/// two decimals, written with exactly two):
/// ```
/// {"locations":[{"id":"2298eb8d-...","name":"Alpha","latitude":-34.98520411042454,
///   "longitude":149.98458041136354,"nearest":[{"id":"...","name":"Hotel",
///   "distanceInMiles":5432.10},...]},...]}
/// ```
///
/// **Entries** (keyed by location id): `name`, `latitude`, `longitude` (Swift's shortest
/// round-trip form, `45.042099781891125`).
///
/// **Checkpoint** (version 1): a varint count, then per location: id and name strings, latitude
/// and longitude as `Double` bit patterns.
public struct LocationList: EntityTableModel {
  public static let name = "locations"
  public static let checkpointVersion = 1

  /// How many neighbours the listing shows for each location.
  public static let neighborCount = 3

  private(set) var table = EntityTable<LocationID, LocationRecord>()

  public init() {}

  // MARK: Folding

  public mutating func apply(_ event: DomainEvent, at context: EventContext) {
    switch event {
    case .location(.added(let added)):
      table.set(added.record.id, added.record)
    case .location(.renamed(let renamed)):
      table.update(renamed.id) { $0.name = renamed.name }
    case .location(.moved(let moved)):
      table.update(moved.id) { $0.coordinate = moved.coordinate }
    case .location(.removed(let removed)):
      table.remove(removed.id)
    default:
      return
    }
  }

  /// Folds one locations event.
  public mutating func apply(_ event: LocationEvent) {
    apply(.location(event), at: .unpositioned)
  }

  // MARK: State and views

  /// The location with `id`.
  public func location(_ id: LocationID) -> LocationRecord? { table[id] }

  /// Every location, in no particular order (the neighbourhood's `listing()` sorts them).
  public var records: [LocationRecord] { Array(table.values) }

  /// Builds the spatial index over every location, for any number of nearest-neighbour
  /// queries.
  /// - Complexity: O(n log n).
  public func neighborhood() -> LocationNeighborhood {
    LocationNeighborhood(records: Array(table.values))
  }

  /// The `count` locations nearest to location `id`, or `nil` when there is no such location.
  ///
  /// Builds an index for this one query: for several, build a ``neighborhood()`` once.
  /// - Complexity: O(n log n) to build the index, then about O(log n + k log k).
  public func nearest(to id: LocationID, count: Int = neighborCount) -> [NearbyLocation]? {
    guard table.contains(id) else { return nil }
    return neighborhood().nearest(to: id, count: count)
  }

  public func encode(to writer: inout JSONWriter, options: ViewOptions) {
    writer.beginObject()
    writer.member("locations", objects: neighborhood().listing()) { writer, entry in
      writer.field("id", entry.location.id.rawValue)
      writer.field("name", entry.location.name)
      writer.field("latitude", entry.location.coordinate.latitude)
      writer.field("longitude", entry.location.coordinate.longitude)
      writer.member("nearest", objects: entry.nearest) { writer, neighbor in
        writer.field("id", neighbor.id.rawValue)
        writer.field("name", neighbor.name)
        writer.key("distanceInMiles")
        writer.numberLiteral(neighbor.distanceText)
      }
    }
    writer.endObject()
  }

  // MARK: Entries

  static func entry(_ record: LocationRecord) -> ReadModelEntry {
    var entry = ReadModelEntry()
    entry.append("name", record.name)
    entry.append("latitude", number: record.coordinate.latitude)
    entry.append("longitude", number: record.coordinate.longitude)
    return entry
  }

  // MARK: Checkpoint

  public func write(to writer: inout BinaryWriter) {
    table.write(to: &writer) { record, writer in
      writer.writeString(record.name)
      writer.writeDouble(record.coordinate.latitude)
      writer.writeDouble(record.coordinate.longitude)
    }
  }

  public init(from reader: inout BinaryReader) throws(ProjectionsError) {
    let count = try reader.readCount("the number of locations", minimumSize: 18)
    table = EntityTable(minimumCapacity: count)
    for _ in 0..<count {
      let start = reader.offset
      let id = try reader.readIdentifier(LocationID.init, "a location id")
      let name = try reader.readString("a location's name")
      let coordinateOffset = reader.offset
      let latitude = try reader.readDouble("a latitude")
      let longitude = try reader.readDouble("a longitude")
      let coordinate: Coordinate
      do throws(EventsError) {
        coordinate = try Coordinate(latitude: latitude, longitude: longitude)
      } catch {
        throw reader.invalid(
          "location '\(id)' coordinate", expected: "a valid coordinate", found: "\(error)",
          at: coordinateOffset)
      }
      let record = LocationRecord(id: id, name: name, coordinate: coordinate)
      guard table.appendDecoded(id, record) else {
        throw reader.repeated("a location id", id, at: start)
      }
    }
  }
}

/// Every location with a spatial index over them, for nearest-neighbour queries: build it once
/// per view with `LocationList.neighborhood()`.
public struct LocationNeighborhood: Sendable {
  /// The locations, by point index in `index`.
  private let records: [LocationRecord]
  private let positions: [LocationID: Int]
  private let index: NearestNeighborIndex

  init(records: [LocationRecord]) {
    self.records = records
    var positions: [LocationID: Int] = [:]
    positions.reserveCapacity(records.count)
    for (position, record) in records.enumerated() { positions[record.id] = position }
    self.positions = positions
    index = NearestNeighborIndex(
      points: records.map {
        GeoPoint(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude)
      },
      ids: records.map(\.id.rawValue))
  }

  /// The number of locations.
  public var count: Int { records.count }

  /// The `count` locations nearest to location `id` (not counting itself), ascending by
  /// distance, equal distances by id; `nil` when there is no such location.
  /// - Complexity: about O(log n + k log k).
  public func nearest(
    to id: LocationID, count: Int = LocationList.neighborCount
  ) -> [NearbyLocation]? {
    guard let position = positions[id] else { return nil }
    return index.nearest(toPointAt: position, count: count).map(nearby)
  }

  /// The `count` locations nearest to `coordinate`, ascending by distance, equal distances by id.
  public func nearest(
    to coordinate: Coordinate, count: Int = LocationList.neighborCount
  ) -> [NearbyLocation] {
    let point = GeoPoint(latitude: coordinate.latitude, longitude: coordinate.longitude)
    return index.nearest(to: point, count: count).map(nearby)
  }

  private func nearby(_ neighbor: Neighbor) -> NearbyLocation {
    let record = records[neighbor.index]
    return NearbyLocation(
      id: record.id, name: record.name, distanceInMiles: neighbor.distanceInMiles)
  }

  /// Every location, sorted by name (ignoring case and diacritics), then id, each with its
  /// `neighborCount` nearest others.
  /// - Complexity: about O(n (log n + k log k)): one index query per location, in tree order.
  public func listing(neighborCount: Int = LocationList.neighborCount) -> [LocationListing] {
    var nearest = [[NearbyLocation]](repeating: [], count: records.count)
    index.forEachPoint(withNearest: neighborCount) { pointIndex, neighbors in
      var list: [NearbyLocation] = []
      list.reserveCapacity(neighbors.count)
      for position in 0..<neighbors.count {
        let record = records[neighbors.pointIndex(at: position)]
        list.append(
          NearbyLocation(
            id: record.id, name: record.name,
            distanceInMiles: neighbors.distanceInMiles(at: position)))
      }
      nearest[pointIndex] = list
    }
    let order = NameOrdering.sortedPositions(names: records.map(\.name), ids: records.map(\.id))
    return order.map { LocationListing(location: records[$0], nearest: nearest[$0]) }
  }
}

/// A location and its nearest others, as the list shows it.
public struct LocationListing: Sendable, Equatable {
  /// The location.
  public var location: LocationRecord
  /// Ascending by distance, equal distances by id.
  public var nearest: [NearbyLocation]
}

/// Another location and how far it is.
public struct NearbyLocation: Sendable, Equatable, Hashable {
  /// The other location's id.
  public var id: LocationID
  /// Its name.
  public var name: String
  /// The Haversine distance in miles, unrounded.
  public var distanceInMiles: Double

  /// The distance in miles to two decimal places (`1234.57`), correctly rounded from the
  /// exact binary value (C's `%.2f`; no locale).
  public var distanceText: String { String(format: "%.2f", distanceInMiles) }
}
