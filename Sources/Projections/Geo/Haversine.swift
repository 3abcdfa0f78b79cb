import Foundation

/// Great-circle distances on a spherical Earth by the Haversine formula.
///
/// Every distance in miles in this module comes from here, with the one radius
/// ``earthRadiusMiles``.
public enum Haversine {
  /// The Earth's radius in miles used for every distance: the mean radius, 3958.8 mi
  /// (6371.0 km).
  ///
  /// - Note: The Earth is not a sphere; the mean radius keeps the spherical model's error
  ///   within about 0.5 % everywhere.
  public static let earthRadiusMiles = 3958.8

  /// The great-circle distance between two points by the Haversine formula, in miles.
  ///
  /// The formula works with the half-angle sines of the latitude and longitude differences,
  /// so it stays accurate for points a few metres apart. Longitude differences are wrapped
  /// into [-180, 180] first, so points on both sides of the antimeridian are near each other.
  /// The argument of `asin` is clamped to [0, 1]: rounding can push it just past 1 for
  /// antipodal points, which then are exactly half a circumference apart.
  ///
  /// - Note: Near antipodes asin is ill-conditioned, so one rounding in the haversine can move
  ///   the result by up to about 1e-4 mi (15 cm); everywhere else the error is far below that.
  ///
  /// - Parameters:
  ///   - start: One point, in degrees.
  ///   - end: The other point, in degrees.
  /// - Returns: The distance in miles, from 0 to π × ``earthRadiusMiles``; symmetric in its
  ///   arguments.
  public static func distanceInMiles(from start: GeoPoint, to end: GeoPoint) -> Double {
    let haversine = haversine(
      latitude: start.latitude, longitude: start.longitude,
      cosineOfLatitude: cosineOfLatitude(start.latitude),
      otherLatitude: end.latitude, otherLongitude: end.longitude,
      otherCosineOfLatitude: cosineOfLatitude(end.latitude))
    return distanceInMiles(haversine: haversine)
  }

  /// The cosine of a latitude in degrees, as ``haversine(latitude:longitude:cosineOfLatitude:otherLatitude:otherLongitude:otherCosineOfLatitude:)``
  /// expects it; the nearest-neighbour index computes it once per point.
  @inline(__always)
  static func cosineOfLatitude(_ latitude: Double) -> Double {
    cos(latitude * (Double.pi / 180))
  }

  /// The haversine of the central angle between two points: sin²(Δφ/2) + cos φ₁ cos φ₂
  /// sin²(Δλ/2), which is also a quarter of the squared chord between them on the unit sphere.
  ///
  /// Split from ``distanceInMiles(from:to:)`` so that the nearest-neighbour index computes the
  /// bit-for-bit same distance from cosines it keeps per point.
  @inline(__always)
  static func haversine(
    latitude: Double, longitude: Double, cosineOfLatitude: Double,
    otherLatitude: Double, otherLongitude: Double, otherCosineOfLatitude: Double
  ) -> Double {
    var longitudeDifference = otherLongitude - longitude
    if longitudeDifference > 180 {
      longitudeDifference -= 360
    } else if longitudeDifference < -180 {
      longitudeDifference += 360
    }
    let halfLatitudeSine = sin((otherLatitude - latitude) * (Double.pi / 360))
    let halfLongitudeSine = sin(longitudeDifference * (Double.pi / 360))
    return halfLatitudeSine * halfLatitudeSine
      + cosineOfLatitude * otherCosineOfLatitude * (halfLongitudeSine * halfLongitudeSine)
  }

  /// The distance in miles for a haversine of the central angle: 2R · asin(√h), with √h
  /// clamped to [0, 1].
  @inline(__always)
  static func distanceInMiles(haversine: Double) -> Double {
    let halfChord = Swift.min(1, Swift.max(0, haversine.squareRoot()))
    return 2 * earthRadiusMiles * asin(halfChord)
  }
}
