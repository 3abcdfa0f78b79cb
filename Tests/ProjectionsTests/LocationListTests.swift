import Events
import Foundation
import Testing

@testable import Projections

@Suite struct LocationListTests {
  static func added(_ id: String, _ name: String, _ latitude: Double, _ longitude: Double)
    -> DomainEvent
  {
    .location(
      .added(
        LocationAdded(
          record: LocationRecord(
            id: locationID(id), name: name, coordinate: coordinate(latitude, longitude)))))
  }

  static func moved(_ id: String, _ latitude: Double, _ longitude: Double) -> DomainEvent {
    .location(
      .moved(LocationMoved(id: locationID(id), coordinate: coordinate(latitude, longitude))))
  }

  static func renamed(_ id: String, _ name: String) -> DomainEvent {
    .location(.renamed(LocationRenamed(id: locationID(id), name: name)))
  }

  static func removed(_ id: String) -> DomainEvent {
    .location(.removed(LocationRemoved(id: locationID(id))))
  }

  /// A square around the origin, one degree a side, and a point far away.
  static let square = [
    added("d", "Delta", 1, 1), added("a", "alpha", 0, 0), added("b", "Bravo", 0, 1),
    added("c", "Charlie", 1, 0), added("z", "Zulu", 45, 90),
  ]

  /// An independent great-circle distance (the spherical law of cosines' well-conditioned
  /// cousin, the Haversine, written from its textbook form with the same radius).
  static func miles(_ from: Coordinate, _ to: Coordinate) -> Double {
    let radians = Double.pi / 180
    let deltaLatitude = (to.latitude - from.latitude) * radians
    let deltaLongitude = (to.longitude - from.longitude) * radians
    let a =
      pow(sin(deltaLatitude / 2), 2) + cos(from.latitude * radians) * cos(to.latitude * radians)
      * pow(sin(deltaLongitude / 2), 2)
    return 2 * 3958.8 * atan2(sqrt(a), sqrt(1 - a))
  }

  /// The `k` nearest others of `id` by scanning every location, ranked by `distance`.
  static func bruteForce(
    _ list: LocationList, _ id: LocationID, _ k: Int,
    distance: (Coordinate, Coordinate) -> Double = miles
  ) -> [(String, Double)] {
    guard let origin = list.location(id) else { return [] }
    let others = list.records.filter { $0.id != id }
    let distances: [(String, Double)] = others.map { other in
      (other.id.rawValue, distance(origin.coordinate, other.coordinate))
    }
    let sorted = distances.sorted { left, right in
      left.1 != right.1 ? left.1 < right.1 : left.0 < right.0
    }
    return Array(sorted.prefix(k))
  }

  @Test func theListingIsByNameThenIDEachWithItsThreeNearest() {
    let list = fold(LocationList.self, Self.square + [Self.added("e", "Alpha", -1, 0)])
    let listing = list.neighborhood().listing()
    #expect(
      listing.map(\.location.name) == ["alpha", "Alpha", "Bravo", "Charlie", "Delta", "Zulu"])
    #expect(listing.map(\.location.id.rawValue) == ["a", "e", "b", "c", "d", "z"])
    #expect(listing.allSatisfy { $0.nearest.count == 3 })
    // From the origin, Bravo (0, 1) and Charlie (1, 0) are equally far: ties go by id.
    #expect(listing[0].nearest.map(\.name) == ["Bravo", "Charlie", "Alpha"])
    #expect(listing[0].nearest.map(\.distanceText) == ["69.09", "69.09", "69.09"])
  }

  @Test func nearestAgreesWithABruteForceScan() throws {
    let seed = TestRandom.seed(for: "LocationListTests.bruteForce", fallback: 0x10CA_7105)
    var events = RandomEvents(seed: seed)
    var list = LocationList()
    for step in 0..<600 {
      list.apply(events.anyLocationEvent(), at: context(Int64(step + 1)))
    }
    let neighborhood = list.neighborhood()
    // The ranking is compared with a scan by the project's own Haversine (random points have
    // exact ties, e.g. at the poles, that two formulas may break differently); the distances
    // with the independent formula.
    func haversine(_ from: Coordinate, _ to: Coordinate) -> Double {
      Haversine.distanceInMiles(
        from: GeoPoint(latitude: from.latitude, longitude: from.longitude),
        to: GeoPoint(latitude: to.latitude, longitude: to.longitude))
    }
    for record in list.records {
      let ranked = Self.bruteForce(list, record.id, 4, distance: haversine)
      let found = try #require(neighborhood.nearest(to: record.id, count: 4))
      #expect(found.map(\.id.rawValue) == ranked.map(\.0), "around \(record.id)")
      for nearby in found {
        let origin = record.coordinate
        let other = try #require(list.location(nearby.id)).coordinate
        #expect(abs(nearby.distanceInMiles - Self.miles(origin, other)) < 1e-6)
      }
    }
    let listing = neighborhood.listing()
    #expect(listing.count == list.count)
    for entry in listing {
      #expect(entry.nearest == neighborhood.nearest(to: entry.location.id, count: 3))
    }
  }

  @Test func movesAndRenamesChangeTheNeighbors() throws {
    var list = fold(LocationList.self, Self.square)
    #expect(list.nearest(to: locationID("z"), count: 1)?.map(\.name) == ["Delta"])
    list.apply(Self.moved("a", 44, 89), at: context(6))
    list.apply(Self.renamed("a", "Aleph"), at: context(7))
    let nearest = try #require(list.nearest(to: locationID("z"), count: 2))
    #expect(nearest.map(\.name) == ["Aleph", "Delta"])
    #expect(nearest[0].distanceText == "84.87")
    #expect(list.location(locationID("a"))?.coordinate == coordinate(44, 89))
  }

  @Test func removedLocationsDisappearFromTheListingAndTheNeighbors() {
    let list = fold(
      LocationList.self,
      Self.square + [Self.removed("b"), Self.removed("nowhere"), Self.moved("b", 0, 0)])
    #expect(list.count == 4)
    #expect(list.nearest(to: locationID("b")) == nil)
    #expect(list.nearest(to: locationID("a"))?.map(\.name) == ["Charlie", "Delta", "Zulu"])
  }

  @Test func fewerLocationsGiveFewerNeighbors() {
    #expect(LocationList().neighborhood().listing() == [])
    #expect(LocationList().nearest(to: locationID("a")) == nil)
    let one = fold(LocationList.self, [Self.added("a", "Alone", 10, 10)])
    #expect(one.nearest(to: locationID("a")) == [])
    let two = fold(LocationList.self, [Self.added("a", "A", 10, 10), Self.added("b", "B", 10, 10)])
    #expect(
      two.nearest(to: locationID("a"), count: 5)
        == [NearbyLocation(id: locationID("b"), name: "B", distanceInMiles: 0)])
  }

  @Test func nearestToAPointIncludesEveryLocation() {
    let neighborhood = fold(LocationList.self, Self.square).neighborhood()
    #expect(
      neighborhood.nearest(to: coordinate(0.1, 0.1), count: 2).map(\.name) == ["alpha", "Charlie"])
    #expect(neighborhood.count == 5)
  }

  @Test(
    arguments: [
      (0.0, "0.00"), (69.094_77, "69.09"), (1234.565_000_1, "1234.57"), (0.125, "0.12"),
      (9_999.999, "10000.00"),
    ])
  func distancesShowTwoDecimals(miles: Double, expected: String) {
    #expect(
      NearbyLocation(id: locationID("x"), name: "X", distanceInMiles: miles).distanceText
        == expected)
  }

  @Test func jsonHasTheDocumentedShape() {
    let list = fold(
      LocationList.self,
      [
        Self.added("a", "Alpha", 0, 0), Self.added("b", "Bravo", 0, 1),
        Self.added("c", "Charlie", 0.5, -0.25),
      ])
    #expect(
      list.jsonText()
        == #"{"locations":[{"id":"a","name":"Alpha","latitude":0.0,"longitude":0.0,"nearest":["#
        + #"{"id":"c","name":"Charlie","distanceInMiles":38.62},{"id":"b","name":"Bravo","distanceInMiles":69.09}]},"#
        + #"{"id":"b","name":"Bravo","latitude":0.0,"longitude":1.0,"nearest":["#
        + #"{"id":"a","name":"Alpha","distanceInMiles":69.09},{"id":"c","name":"Charlie","distanceInMiles":93.02}]},"#
        + #"{"id":"c","name":"Charlie","latitude":0.5,"longitude":-0.25,"nearest":["#
        + #"{"id":"a","name":"Alpha","distanceInMiles":38.62},{"id":"b","name":"Bravo","distanceInMiles":93.02}]}]}"#
    )
  }

  @Test func entriesHoldNameAndCoordinates() {
    var list = fold(
      LocationList.self, [Self.added("a", "Alpha", -34.98520411042454, 149.98458041136354)])
    #expect(
      list.entries == [
        "a": ReadModelEntry(fields: [
          .init(name: "name", value: "Alpha"),
          .init(name: "latitude", value: "-34.98520411042454", kind: .number),
          .init(name: "longitude", value: "149.98458041136354", kind: .number),
        ])
      ])
    let before = list.entries
    list.apply(Self.moved("a", -35, 150), at: context(2))
    #expect(
      EntryDiff(from: before, to: list.entries).changed == [
        EntryDiff.Change(
          id: "a",
          fields: [
            .init(name: "latitude", before: "-34.98520411042454", after: "-35.0", kind: .number),
            .init(name: "longitude", before: "149.98458041136354", after: "150.0", kind: .number),
          ])
      ])
    #expect(list.entry(forID: "b") == nil)
  }
}
