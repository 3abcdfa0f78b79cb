/// A position on the Earth's surface, in degrees.
///
/// This is the minimal input type of ``Haversine`` and ``NearestNeighborIndex``; richer
/// coordinate types convert to it at the boundary.
public struct GeoPoint: Hashable, Sendable {
  /// Degrees north of the equator, from -90 (the South Pole) to 90 (the North Pole).
  public var latitude: Double

  /// Degrees east of the prime meridian, from -180 to 180.
  public var longitude: Double

  /// Creates a point from its latitude and longitude in degrees.
  ///
  /// - Parameters:
  ///   - latitude: Degrees north of the equator, from -90 to 90.
  ///   - longitude: Degrees east of the prime meridian, from -180 to 180.
  public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }
}
