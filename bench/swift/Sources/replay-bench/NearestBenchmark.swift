import Foundation
import Projections

/// The nearest-neighbour index on `--points` locations spread like the generator's (uniform
/// latitude and longitude, with a share within a degree of the poles and of the antimeridian):
/// build time, then the three nearest of every point (one query each), checked against brute
/// force on `--check` points. `--write-points` saves the points (little-endian float64
/// latitude, longitude pairs) for the Python peers; `--write-neighbors` the neighbours of the
/// first `--check` points (index, distance in miles), for them to compare.
enum NearestBenchmark {
  static func run(_ arguments: Arguments) throws {
    let count = arguments.int("--points") ?? 100_000
    let seed = UInt64(arguments.int("--seed") ?? 1)
    let checked = min(arguments.int("--check") ?? 200, count)
    let points = makePoints(count, seed: seed)
    if let path = arguments.options["--write-points"] {
      var raw: [Double] = []
      raw.reserveCapacity(2 * count)
      for point in points { raw += [point.latitude, point.longitude] }
      try raw.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
    }
    let ids = (0..<count).map { "p\($0)" }
    var index: NearestNeighborIndex?
    let buildSeconds = measure { index = NearestNeighborIndex(points: points, ids: ids) }
    guard let index else { throw BenchError("no index") }

    var checksum = 0.0
    let querySeconds = measure {
      index.forEachPoint(withNearest: 3) { _, neighbors in
        for position in neighbors.indices { checksum += neighbors.distanceInMiles(at: position) }
      }
    }

    // Same answers as brute force: the three smallest Haversine distances to the other points.
    var mismatches = 0
    var rows: [Double] = []
    let sample = (0..<checked).map { $0 * (count / max(checked, 1)) }
    for pointIndex in sample {
      let found = index.nearest(toPointAt: pointIndex, count: 3)
      var distances = [Double]()
      distances.reserveCapacity(count)
      for other in 0..<count where other != pointIndex {
        distances.append(Haversine.distanceInMiles(from: points[pointIndex], to: points[other]))
      }
      distances.sort()
      for (neighbor, expected) in zip(found, distances.prefix(3))
      where abs(neighbor.distanceInMiles - expected) > 1e-9 * max(1, expected) {
        mismatches += 1
      }
      if found.count != 3 { mismatches += 1 }
      rows.append(Double(pointIndex))
      for neighbor in found { rows += [Double(neighbor.index), neighbor.distanceInMiles] }
    }
    if let path = arguments.options["--write-neighbors"] {
      try rows.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
    }
    report([
      "points": count, "buildSeconds": buildSeconds, "seconds": querySeconds,
      "queriesPerSecond": Double(count) / querySeconds, "bruteForceChecked": sample.count,
      "bruteForceMismatches": mismatches, "checksum": checksum,
    ])
  }

  /// Deterministic points: SplitMix64 from `seed`.
  static func makePoints(_ count: Int, seed: UInt64) -> [GeoPoint] {
    var state = seed
    func next() -> Double {
      state &+= 0x9E37_79B9_7F4A_7C15
      var value = state
      value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
      value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
      value ^= value >> 31
      return Double(value >> 11) * 0x1p-53
    }
    return (0..<count).map { _ in
      let kind = next()
      let sign: Double = next() < 0.5 ? -1 : 1
      let latitude: Double
      let longitude: Double
      if kind < 0.04 {
        latitude = sign * (89 + next())
        longitude = next() * 360 - 180
      } else if kind < 0.08 {
        latitude = next() * 180 - 90
        longitude = sign * (179 + next())
      } else {
        latitude = next() * 180 - 90
        longitude = next() * 360 - 180
      }
      return GeoPoint(latitude: latitude, longitude: longitude)
    }
  }
}
