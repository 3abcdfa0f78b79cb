import Foundation

/// A static spatial index that answers "which points are nearest to this one" exactly, by
/// great-circle distance.
///
/// The points are placed on the unit sphere as 3-D vectors and kept in a k-d tree with bucketed
/// leaves. The straight-line (chord) distance between two unit vectors grows with the
/// great-circle distance, so the tree can prune by chord without any trigonometry; the points
/// it cannot prune are then ranked by their ``Haversine`` distance. Pruning keeps a small
/// safety margin, so rounding in the chord never drops a point that a scan of every point would
/// rank among the nearest: answers always equal a brute-force Haversine scan ranked the same way.
///
/// **Ranking.** Neighbours are sorted by Haversine distance in miles, ascending; equal distances
/// (duplicate coordinates, points on a regular grid) are ordered by `id`, ascending by `String`
/// comparison, and equal ids by point index.
///
/// **Exclusion.** ``nearest(toPointAt:count:)`` leaves out the query point itself, and only it:
/// other points with the very same coordinates are neighbours at distance 0.
///
/// For many queries, use a ``NearestNeighborQuery``: it reuses its storage, so a query allocates
/// nothing.
public struct NearestNeighborIndex: Sendable {
  /// Everything the index holds, behind one reference so that copies of the index, and of
  /// query results that refer to it, cost one retain.
  let storage: Storage

  /// The points' ids, by point index.
  public var ids: [String] { storage.ids }

  /// The most points in a leaf. Small leaves prune tightly; scanning a leaf is a tight loop
  /// over contiguous vectors, so a few more points cost little.
  static let leafSize = 8

  /// How far past the k-th smallest squared chord a point may be and still be ranked by
  /// Haversine distance.
  ///
  /// - Note: In exact arithmetic the squared chord equals 4 × haversine, so chord order is
  ///   great-circle order. Computed from degrees, each side is off by at most a few 1e-15 (unit
  ///   vectors and half-angle sines all lie within [-1, 1]), and points as far in miles differ
  ///   in haversine by less than 1e-15. So if the k-th smallest squared chord is c, the k
  ///   points within it are within 4 × haversine ≤ c + 1e-14 or so, and so is every point that
  ///   ranks among the first k by Haversine distance. A margin of 1e-12 (a chord of about 6
  ///   metres at distance 0) covers that many times over; without any, the oracle tests fail.
  static let chordSquaredMargin = 1e-12

  /// The number of points.
  public var count: Int { storage.ids.count }

  /// Whether the index has no points.
  public var isEmpty: Bool { storage.ids.isEmpty }

  /// Builds the index.
  ///
  /// - Parameters:
  ///   - points: The points, in degrees; a point's index in this array is its index in results.
  ///   - ids: One id per point, used in results and to order equal distances.
  /// - Precondition: `points` and `ids` have the same count, below 2³¹; every latitude is in
  ///   [-90, 90] and every longitude in [-180, 180]. Validate coordinates from outside before.
  /// - Complexity: O(*n* log *n*) for *n* points.
  public init(points: [GeoPoint], ids: [String]) {
    precondition(
      points.count == ids.count,
      "\(points.count) points but \(ids.count) ids; pass one id per point")
    precondition(points.count < Int(Int32.max), "\(points.count) points; at most 2³¹ - 2 fit")
    for (index, point) in points.enumerated() {
      precondition(
        (-90...90).contains(point.latitude) && (-180...180).contains(point.longitude),
        "point \(index) has latitude \(point.latitude), longitude \(point.longitude); expected "
          + "a latitude in [-90, 90] and a longitude in [-180, 180]")
    }
    var builder = TreeBuilder(points: points)
    builder.build()
    let order = builder.order
    let count = points.count

    var unitVectors = [Double](repeating: 0, count: 3 * count)
    var angles = [Double](repeating: 0, count: 3 * count)
    var positions = [Int32](repeating: 0, count: count)
    for (position, pointIndex) in order.enumerated() {
      let point = Int(pointIndex)
      unitVectors[3 * position] = builder.xs[point]
      unitVectors[3 * position + 1] = builder.ys[point]
      unitVectors[3 * position + 2] = builder.zs[point]
      angles[3 * position] = points[point].latitude
      angles[3 * position + 1] = points[point].longitude
      angles[3 * position + 2] = builder.cosines[point]
      positions[point] = Int32(position)
    }

    let byID = (0..<count).sorted { left, right in
      ids[left] != ids[right] ? ids[left] < ids[right] : left < right
    }
    var ranks = [Int32](repeating: 0, count: count)
    for (rank, point) in byID.enumerated() {
      ranks[Int(positions[point])] = Int32(rank)
    }

    storage = Storage(
      ids: ids, nodes: builder.nodes, unitVectors: unitVectors, angles: angles, ranks: ranks,
      pointIndices: order, positions: positions)
  }

  /// The `k` points nearest to the point at `index`, leaving out that point itself.
  ///
  /// Other points with the same coordinates are included, at distance 0.
  ///
  /// - Parameters:
  ///   - index: The index of a point in the index.
  ///   - k: How many neighbours to return; fewer when the index has no more other points.
  /// - Returns: Up to `k` neighbours, by Haversine distance ascending, then by id.
  /// - Complexity: About O(log *n* + `k` log `k`) for points spread over the globe.
  public func nearest(toPointAt index: Int, count k: Int) -> [Neighbor] {
    var query = NearestNeighborQuery(index: self)
    query.findNearest(toPointAt: index, count: k)
    return Array(query.neighbors)
  }

  /// The `k` points nearest to a position, optionally leaving out one point.
  ///
  /// - Parameters:
  ///   - point: Any position, in degrees.
  ///   - k: How many neighbours to return; fewer when the index has no more points.
  ///   - excluding: The index of a point to leave out, or `nil` to consider every point.
  /// - Returns: Up to `k` neighbours, by Haversine distance ascending, then by id.
  /// - Complexity: About O(log *n* + `k` log `k`) for points spread over the globe.
  public func nearest(to point: GeoPoint, count k: Int, excluding: Int? = nil) -> [Neighbor] {
    var query = NearestNeighborQuery(index: self)
    query.findNearest(to: point, count: k, excluding: excluding)
    return Array(query.neighbors)
  }

  /// Calls `body` with the `k` nearest other points of every point.
  ///
  /// Faster than one query per point in index order: points are visited in tree order, so
  /// consecutive queries touch the same part of the tree, and one reused query allocates
  /// nothing per point.
  ///
  /// - Parameters:
  ///   - k: How many neighbours each point gets.
  ///   - body: Called once per point with its index and what
  ///     ``nearest(toPointAt:count:)`` would return; `neighbors` is valid only during the call.
  public func forEachPoint(
    withNearest k: Int,
    _ body: (_ pointIndex: Int, _ neighbors: NearestNeighborQuery.Neighbors) throws -> Void
  ) rethrows {
    var query = NearestNeighborQuery(index: self)
    for pointIndex in storage.pointIndices {
      query.findNearest(toPointAt: Int(pointIndex), count: k)
      try body(Int(pointIndex), query.neighbors)
    }
  }

  /// The `k` nearest other points of every point, by point index.
  ///
  /// - Parameter k: How many neighbours each point gets.
  /// - Returns: For each point index, what ``nearest(toPointAt:count:)`` returns.
  /// - Complexity: About O(*n* (log *n* + `k` log `k`)) for points spread over the globe.
  public func nearestOfEveryPoint(count k: Int) -> [[Neighbor]] {
    var results = [[Neighbor]](repeating: [], count: count)
    forEachPoint(withNearest: k) { pointIndex, neighbors in
      results[pointIndex] = Array(neighbors)
    }
    return results
  }
}

/// One point found near a query: which point, and how far away.
public struct Neighbor: Hashable, Sendable {
  /// The point's index in the points the index was built from.
  public var index: Int

  /// The point's id.
  public var id: String

  /// The Haversine distance from the query, in miles (see ``Haversine/earthRadiusMiles``).
  public var distanceInMiles: Double

  /// Creates a neighbour.
  ///
  /// - Parameters:
  ///   - index: The point's index.
  ///   - id: The point's id.
  ///   - distanceInMiles: The distance from the query, in miles.
  public init(index: Int, id: String, distanceInMiles: Double) {
    self.index = index
    self.id = id
    self.distanceInMiles = distanceInMiles
  }
}

extension NearestNeighborIndex {
  /// The index's immutable arrays; a point's position is its place in tree order.
  final class Storage: Sendable {
    /// The points' ids, by point index.
    let ids: [String]

    /// The tree, in depth-first order: a node's left child directly follows it.
    let nodes: [Node]

    /// Unit vectors as x, y, z, by position, so that a leaf's points are contiguous.
    let unitVectors: [Double]

    /// Latitude and longitude in degrees and the cosine of the latitude, by position.
    let angles: [Double]

    /// Each position's rank in (id, point index) order, so that ties compare two integers.
    let ranks: [Int32]

    /// The point index at each position.
    let pointIndices: [Int32]

    /// The position of each point index.
    let positions: [Int32]

    init(
      ids: [String], nodes: [Node], unitVectors: [Double], angles: [Double], ranks: [Int32],
      pointIndices: [Int32], positions: [Int32]
    ) {
      self.ids = ids
      self.nodes = nodes
      self.unitVectors = unitVectors
      self.angles = angles
      self.ranks = ranks
      self.pointIndices = pointIndices
      self.positions = positions
    }
  }

  /// A tree node: the bounding box of its points' unit vectors, and where its children or
  /// points are. 32 bytes, so that two fit in a cache line.
  struct Node: Sendable {
    /// The box, in single precision rounded outwards, so that it still holds every vector.
    var minimumX: Float
    var minimumY: Float
    var minimumZ: Float
    var maximumX: Float
    var maximumY: Float
    var maximumZ: Float
    /// The first position covered.
    var start: Int32
    /// For an inner node, its right child's node index (its left child follows it); for a
    /// leaf, minus one past its last position.
    var link: Int32

    /// Creates a node for a box in double precision.
    init(
      minimum: (x: Double, y: Double, z: Double), maximum: (x: Double, y: Double, z: Double),
      start: Int, link: Int
    ) {
      minimumX = Self.roundedDown(minimum.x)
      minimumY = Self.roundedDown(minimum.y)
      minimumZ = Self.roundedDown(minimum.z)
      maximumX = Self.roundedUp(maximum.x)
      maximumY = Self.roundedUp(maximum.y)
      maximumZ = Self.roundedUp(maximum.z)
      self.start = Int32(start)
      self.link = Int32(link)
    }

    var isLeaf: Bool { link < 0 }

    /// One past the last position of a leaf.
    var end: Int { -Int(link) }

    /// The right child of an inner node.
    var rightChild: Int { Int(link) }

    private static func roundedDown(_ value: Double) -> Float {
      let rounded = Float(value)
      return Double(rounded) > value ? rounded.nextDown : rounded
    }

    private static func roundedUp(_ value: Double) -> Float {
      let rounded = Float(value)
      return Double(rounded) < value ? rounded.nextUp : rounded
    }

    /// The squared distance from a vector to the nearest point of the box, 0 inside it.
    ///
    /// Never more than the squared distance to any vector in the box as computed by the leaf
    /// scan: rounding is monotonic, and each term here is a difference the scan also bounds.
    @inline(__always)
    func distanceSquared(x: Double, y: Double, z: Double) -> Double {
      let dx = Self.gap(x, minimumX, maximumX)
      let dy = Self.gap(y, minimumY, maximumY)
      let dz = Self.gap(z, minimumZ, maximumZ)
      return dx * dx + dy * dy + dz * dz
    }

    /// How far `value` lies outside [minimum, maximum], 0 inside.
    @inline(__always)
    private static func gap(_ value: Double, _ minimum: Float, _ maximum: Float) -> Double {
      let below = Double(minimum) - value
      let above = value - Double(maximum)
      // Plain comparisons rather than `max`, which also orders NaNs and branches more.
      return below > 0 ? below : (above > 0 ? above : 0)
    }
  }
}
