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

  /// The largest squared chord a point may have and still rank among the first k by Haversine
  /// distance, when the k-th smallest squared chord found is `squaredChord`.
  ///
  /// - Note: In exact arithmetic the squared chord equals 4 × haversine, so chord order is
  ///   great-circle order; rounding breaks near-ties. Each coordinate of a unit vector is off
  ///   by at most about 6e-16 (degrees to radians, sine, cosine, product), so a chord *c* is
  ///   off by at most about 2e-15 and its square by about 4e-15 · *c* + 4e-30. The haversine,
  ///   computed from differences of degrees, is off by a few 1e-16 of itself, and so is the
  ///   spread of haversines that round to one distance in miles. The bound adds
  ///   1e-13 · (*c* + *c*²) + 1e-28, some 25 times all of that at every distance: pruning never
  ///   drops a point that ranks among the nearest, yet a dense cluster is not examined whole
  ///   (a fixed margin of 1e-12 would examine every point within 6 metres). With no margin at
  ///   all, the oracle tests fail.
  @inline(__always)
  static func pruningBound(squaredChord: Double) -> Double {
    squaredChord + 1e-13 * (squaredChord.squareRoot() + squaredChord) + 1e-28
  }

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
  /// - Complexity: O(*n* log *n*) expected for *n* points.
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
    let count = points.count
    var ranks = [Int32](repeating: 0, count: count)
    let byID = (0..<count).sorted { left, right in
      ids[left] != ids[right] ? ids[left] < ids[right] : left < right
    }
    for (rank, point) in byID.enumerated() {
      ranks[point] = Int32(rank)
    }

    var builder = TreeBuilder(points: points, ranks: ranks)
    builder.build()
    let order = builder.order

    var unitVectors = [Double](repeating: 0, count: 3 * count)
    var records = [PointRecord](
      repeating: PointRecord(latitude: 0, longitude: 0, cosine: 0, rank: 0), count: count)
    var positions = [Int32](repeating: 0, count: count)
    for (position, pointIndex) in order.enumerated() {
      let point = Int(pointIndex)
      unitVectors[3 * position] = builder.xs[point]
      unitVectors[3 * position + 1] = builder.ys[point]
      unitVectors[3 * position + 2] = builder.zs[point]
      records[position] = PointRecord(
        latitude: points[point].latitude, longitude: points[point].longitude,
        cosine: builder.cosines[point], rank: ranks[point])
      positions[point] = Int32(position)
    }

    storage = Storage(
      ids: ids, nodes: builder.nodes, root: builder.root, leafStarts: builder.leafStarts,
      nodeParents: builder.nodeParents, leafParents: builder.leafParents, unitVectors: unitVectors,
      records: records,
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
  ///   - point: Any position, in degrees (latitude in [-90, 90], longitude in [-180, 180]).
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
    let leafStarts = storage.leafStarts
    for leaf in 0..<Swift.max(leafStarts.count - 1, 0) {
      for position in Int(leafStarts[leaf])..<Int(leafStarts[leaf + 1]) {
        query.findNearest(atPosition: position, leaf: leaf, count: k)
        try body(Int(storage.pointIndices[position]), query.neighbors)
      }
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
