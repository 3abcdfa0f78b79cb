import Foundation

@testable import Projections

/// Kinds of random point sets, each aimed at a way a spatial index can go wrong.
enum PointDistribution: String, CaseIterable, Sendable {
  /// Uniform over the sphere.
  case uniform
  /// At and near both poles, where longitudes converge (the poles themselves with many
  /// different longitudes).
  case polar
  /// On both sides of the antimeridian: ±180, ±179.9999 and nearby.
  case antimeridian
  /// Drawn from a small pool of coordinates, so most points have exact duplicates.
  case duplicates
  /// Nearly all points on three coordinates, so leaves hold nothing but duplicates.
  case fewLocations
  /// Tight clusters, from centimetres to kilometres across.
  case clustered
  /// A regular grid of whole degrees, full of exactly equal distances.
  case grid
  /// All of the above at once.
  case mixed
}

/// Makes `count` points of a distribution.
func makePoints(
  _ distribution: PointDistribution, count: Int, using generator: inout SplitMix64
) -> [GeoPoint] {
  switch distribution {
  case .uniform:
    return (0..<count).map { _ in uniformPoint(using: &generator) }
  case .polar:
    return (0..<count).map { _ in
      let scales: [Double] = [0, 0, 1e-9, 1e-4, 0.01, 0.5]
      let scale = scales.randomElement(using: &generator) ?? 0
      let offset = scale * Double.random(in: 0...1, using: &generator)
      let latitude = Bool.random(using: &generator) ? 90 - offset : -90 + offset
      return GeoPoint(latitude: latitude, longitude: randomLongitude(using: &generator))
    }
  case .antimeridian:
    let longitudes = [180, -180, 179.9999, -179.9999, 179.99999999, -179.99999999]
    return (0..<count).map { _ in
      let longitude =
        Bool.random(using: &generator)
        ? longitudes.randomElement(using: &generator) ?? 180
        : Double.random(in: 179...180, using: &generator)
          * (Bool.random(using: &generator) ? 1 : -1)
      let latitude =
        Bool.random(using: &generator)
        ? Double((-3...3).randomElement(using: &generator) ?? 0)
        : Double.random(in: -5...5, using: &generator)
      return GeoPoint(latitude: latitude, longitude: longitude)
    }
  case .duplicates:
    let pool = (0..<(count / 10 + 1)).map { _ in uniformPoint(using: &generator) }
    return (0..<count).map { _ in pool.randomElement(using: &generator) ?? pool[0] }
  case .fewLocations:
    let pool = (0..<3).map { _ in uniformPoint(using: &generator) }
    return (0..<count).map { _ in
      Int.random(in: 0..<10, using: &generator) == 0
        ? uniformPoint(using: &generator) : pool.randomElement(using: &generator) ?? pool[0]
    }
  case .clustered:
    let centers = (0..<(count / 50 + 1)).map { _ in uniformPoint(using: &generator) }
    return (0..<count).map { _ in
      let center = centers.randomElement(using: &generator) ?? centers[0]
      let spread = [1e-7, 1e-5, 1e-3, 0.05].randomElement(using: &generator) ?? 1e-3
      let latitude = center.latitude + Double.random(in: -spread...spread, using: &generator)
      let longitude = center.longitude + Double.random(in: -spread...spread, using: &generator)
      return GeoPoint(
        latitude: Swift.min(90, Swift.max(-90, latitude)),
        longitude: Swift.min(180, Swift.max(-180, longitude)))
    }
  case .grid:
    // A small grid, so larger sets repeat its points too.
    let side = Swift.max(2, Int(Double(count).squareRoot()))
    return (0..<count).map { index in
      let row = index % (side * side) / side
      let column = index % side
      return GeoPoint(latitude: Double(row - side / 2), longitude: Double(column - side / 2))
    }
  case .mixed:
    let kinds = PointDistribution.allCases.filter { $0 != .mixed }
    var points = [GeoPoint]()
    for (part, kind) in kinds.enumerated() {
      let partCount = (count * (part + 1)) / kinds.count - (count * part) / kinds.count
      points += makePoints(kind, count: partCount, using: &generator)
    }
    points.shuffle(using: &generator)
    return points
  }
}

/// Ids that do not sort like the point indices ("p10" before "p2"), shuffled.
func makeIDs(count: Int, using generator: inout SplitMix64) -> [String] {
  (0..<count).map { "p\($0)" }.shuffled(using: &generator)
}

func uniformPoint(using generator: inout SplitMix64) -> GeoPoint {
  let sineOfLatitude = Double.random(in: -1...1, using: &generator)
  return GeoPoint(
    latitude: asin(sineOfLatitude) * 180 / Double.pi,
    longitude: randomLongitude(using: &generator))
}

func randomLongitude(using generator: inout SplitMix64) -> Double {
  Double.random(in: -180...180, using: &generator)
}

/// The reference: every point's Haversine distance, ranked by (distance, id, index).
func bruteForceNearest(
  to query: GeoPoint, in points: [GeoPoint], ids: [String], count k: Int, excluding: Int?
) -> [Neighbor] {
  func ranksBefore(_ left: Neighbor, _ right: Neighbor) -> Bool {
    if left.distanceInMiles != right.distanceInMiles {
      return left.distanceInMiles < right.distanceInMiles
    }
    if left.id != right.id { return left.id < right.id }
    return left.index < right.index
  }
  var best = [Neighbor]()
  for index in points.indices where index != excluding {
    let candidate = Neighbor(
      index: index, id: ids[index],
      distanceInMiles: Haversine.distanceInMiles(from: query, to: points[index]))
    if best.count == k, let last = best.last, !ranksBefore(candidate, last) { continue }
    let insertion = best.firstIndex { ranksBefore(candidate, $0) } ?? best.count
    best.insert(candidate, at: insertion)
    if best.count > k { best.removeLast() }
  }
  return best
}
