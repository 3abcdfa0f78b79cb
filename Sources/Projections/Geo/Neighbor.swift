/// One point found near a query: which point, and how far away.
public struct Neighbor: Hashable, Sendable {
  /// The point's index in the points the index was built from.
  public var index: Int

  /// The point's id.
  public var id: String

  /// The Haversine distance from the query, in miles (see ``Haversine/earthRadiusMiles``).
  public var distanceInMiles: Double
}
