import Foundation

/// Runs nearest-neighbour queries against a ``NearestNeighborIndex``, reusing its storage.
///
/// Once it has answered a query for the largest `k` it will be asked, a query allocates
/// nothing: its working storage is kept from one query to the next. Read ``neighbors`` before
/// the next query; holding on to it makes the next query copy the storage.
///
/// ```swift
/// var query = NearestNeighborQuery(index: index)
/// for point in 0..<index.count {
///   query.findNearest(toPointAt: point, count: 3)
///   for neighbor in query.neighbors { ... }
/// }
/// ```
///
/// Ranking and exclusion are those of ``NearestNeighborIndex``.
///
/// A search runs in two steps. The tree walk ranks points by squared chord only, keeping the
/// `k` smallest, and sets aside every point whose chord is within the k-th smallest plus a
/// safety margin (`NearestNeighborIndex.pruningBound(squaredChord:)`) when it is reached. Then only
/// the points set aside that are still within the final bound, usually `k` or a few more, get
/// their Haversine distance and are ranked by (distance, id).
public struct NearestNeighborQuery: Sendable {
  /// The index queried.
  public let index: NearestNeighborIndex

  /// A max-heap of the `k` smallest squared chords seen.
  private var smallestChords: [Double] = []

  /// The points set aside during the walk.
  private var setAside: [SetAsidePoint] = []

  /// A max-heap of the best candidates during ranking, then the results in ascending order.
  private var candidates: [Candidate] = []

  /// How many results the last query found.
  private var resultCount = 0

  /// Creates a query context for an index.
  ///
  /// - Parameter index: The index to query.
  public init(index: NearestNeighborIndex) {
    self.index = index
  }

  /// The results of the last query: by Haversine distance ascending, then by id.
  public var neighbors: Neighbors {
    Neighbors(storage: index.storage, candidates: candidates, count: resultCount)
  }

  /// Finds the `k` points nearest to the point at `pointIndex`, leaving out that point itself;
  /// read them from ``neighbors``.
  ///
  /// - Parameters:
  ///   - pointIndex: The index of a point in the index.
  ///   - k: How many neighbours to find; fewer when the index has no more other points.
  /// - Precondition: `pointIndex` is a valid point index and `k` is not negative.
  public mutating func findNearest(toPointAt pointIndex: Int, count k: Int) {
    precondition(
      index.ids.indices.contains(pointIndex),
      "point index \(pointIndex) is out of range 0..<\(index.count)")
    let storage = index.storage
    let position = Int(storage.positions[pointIndex])
    // The leaf holding the position: the last whose first position is not after it.
    var low = 0
    var high = storage.leafStarts.count - 2
    while low < high {
      let middle = (low + high + 1) / 2
      if Int(storage.leafStarts[middle]) <= position { low = middle } else { high = middle - 1 }
    }
    findNearest(atPosition: position, leaf: low, count: k)
  }

  /// Finds the `k` points nearest to the point at `position` in tree order, in leaf `leaf`,
  /// leaving out that point itself.
  mutating func findNearest(atPosition position: Int, leaf: Int, count k: Int) {
    let storage = index.storage
    let record = storage.records[position]
    search(
      NearestNeighborProbe(
        x: storage.unitVectors[3 * position], y: storage.unitVectors[3 * position + 1],
        z: storage.unitVectors[3 * position + 2], latitude: record.latitude,
        longitude: record.longitude, cosine: record.cosine, excludedPosition: position),
      count: k, leaf: leaf)
  }

  /// Finds the `k` points nearest to a position, optionally leaving out one point; read them
  /// from ``neighbors``.
  ///
  /// - Parameters:
  ///   - point: Any position, in degrees.
  ///   - k: How many neighbours to find; fewer when the index has no more points.
  ///   - excluding: The index of a point to leave out, or `nil` to consider every point.
  /// - Precondition: The latitude is in [-90, 90] and the longitude in [-180, 180];
  ///   `excluding`, if given, is a valid point index; `k` is not negative.
  public mutating func findNearest(to point: GeoPoint, count k: Int, excluding: Int? = nil) {
    precondition(
      (-90...90).contains(point.latitude) && (-180...180).contains(point.longitude),
      "query has latitude \(point.latitude), longitude \(point.longitude); expected a latitude "
        + "in [-90, 90] and a longitude in [-180, 180]")
    var excludedPosition = -1
    if let excluding {
      precondition(
        index.ids.indices.contains(excluding),
        "excluded point index \(excluding) is out of range 0..<\(index.count)")
      excludedPosition = Int(index.storage.positions[excluding])
    }
    // The same cosine the Haversine formula uses, so distances match a direct call.
    let cosine = Haversine.cosineOfLatitude(point.latitude)
    let longitude = point.longitude * (Double.pi / 180)
    search(
      NearestNeighborProbe(
        x: cosine * cos(longitude), y: cosine * sin(longitude),
        z: sin(point.latitude * (Double.pi / 180)), latitude: point.latitude,
        longitude: point.longitude, cosine: cosine, excludedPosition: excludedPosition),
      count: k, leaf: nil)
  }

  /// Searches for the `k` nearest points to `probe`; `leaf`, if known, is the leaf that holds
  /// the probe's own point, where the walk then starts.
  private mutating func search(_ probe: NearestNeighborProbe, count k: Int, leaf: Int?) {
    precondition(k >= 0, "count \(k) is negative; ask for 0 or more neighbours")
    let available = index.count - (probe.excludedPosition >= 0 ? 1 : 0)
    let wanted = Swift.min(k, available)
    resultCount = 0
    guard wanted > 0 else { return }
    // Grows only the first time a query needs more room, so later queries allocate nothing.
    if candidates.count < wanted {
      let filler = Candidate(distance: 0, rank: 0, position: 0)
      candidates.append(contentsOf: repeatElement(filler, count: wanted - candidates.count))
    }
    if smallestChords.count < wanted {
      smallestChords.append(contentsOf: repeatElement(0, count: wanted - smallestChords.count))
    }
    // Everything is set aside when every point is wanted; otherwise start small and grow.
    let initialRoom = wanted == available ? index.count : Swift.max(64, 4 * wanted)
    if setAside.count < initialRoom {
      setAside.append(
        contentsOf: repeatElement(
          SetAsidePoint(chordSquared: 0, position: 0), count: initialRoom - setAside.count))
    }
    while true {
      if let (setAsideCount, bound) = walk(probe, count: wanted, leaf: leaf) {
        resultCount = rank(probe, setAsideCount: setAsideCount, bound: bound, count: wanted)
        return
      }
      // Ran out of room to set points aside (many points at nearly the same distance).
      setAside.append(
        contentsOf: repeatElement(
          SetAsidePoint(chordSquared: 0, position: 0), count: setAside.count))
    }
  }

  /// Walks the tree, from `leaf` up if given, else from the root down; returns how many points
  /// it set aside and the final bound on their squared chords, or `nil` if it ran out of room
  /// to set points aside.
  private mutating func walk(_ probe: NearestNeighborProbe, count k: Int, leaf: Int?) -> (
    Int, Double
  )? {
    let storage = index.storage
    return smallestChords.withUnsafeMutableBufferPointer { smallestChords in
      setAside.withUnsafeMutableBufferPointer { setAside in
        storage.nodes.withUnsafeBufferPointer { nodes in
          storage.leafStarts.withUnsafeBufferPointer { leafStarts in
            storage.unitVectors.withUnsafeBufferPointer { unitVectors in
              var walk = NearestNeighborWalk(
                nodes: nodes, leafStarts: leafStarts, unitVectors: unitVectors,
                smallestChords: smallestChords, setAside: setAside, capacity: k, probe: probe)
              if let leaf {
                walk.climb(
                  fromLeaf: leaf, root: storage.root, leafParents: storage.leafParents,
                  nodeParents: storage.nodeParents)
              } else {
                walk.visit(storage.root)
              }
              return walk.isOutOfRoom ? nil : (walk.setAsideCount, walk.bound)
            }
          }
        }
      }
    }
  }

  /// Ranks the points set aside that are still within `bound` by (distance, id); returns how
  /// many results there are.
  private mutating func rank(
    _ probe: NearestNeighborProbe, setAsideCount: Int, bound: Double, count k: Int
  )
    -> Int
  {
    let storage = index.storage
    return candidates.withUnsafeMutableBufferPointer { candidates in
      setAside.withUnsafeBufferPointer { setAside in
        storage.records.withUnsafeBufferPointer { records in
          var heap = BoundedHeap(storage: candidates, capacity: k)
          for point in setAside[0..<setAsideCount] where point.chordSquared <= bound {
            let record = records[Int(point.position)]
            let haversine = Haversine.haversine(
              latitude: probe.latitude, longitude: probe.longitude,
              cosineOfLatitude: probe.cosine, otherLatitude: record.latitude,
              otherLongitude: record.longitude, otherCosineOfLatitude: record.cosine)
            heap.offer(
              Candidate(
                distance: Haversine.distanceInMiles(haversine: haversine), rank: record.rank,
                position: point.position))
          }
          heap.sort()
          return heap.count
        }
      }
    }
  }
}

extension NearestNeighborQuery {
  /// The results of a query, as a collection of ``Neighbor``.
  public struct Neighbors: RandomAccessCollection, Sendable {
    fileprivate let storage: NearestNeighborIndex.Storage
    fileprivate let candidates: [Candidate]

    /// The number of neighbours found.
    public let count: Int

    /// The position of the first neighbour, 0.
    public var startIndex: Int { 0 }

    /// One past the last neighbour's position, ``count``.
    public var endIndex: Int { count }

    /// The neighbour at a position, the nearest first.
    public subscript(position: Int) -> Neighbor {
      let pointIndex = self.pointIndex(at: position)
      return Neighbor(
        index: pointIndex, id: storage.ids[pointIndex],
        distanceInMiles: candidates[position].distance)
    }

    /// The point index of the neighbour at a position, without building a ``Neighbor``.
    public func pointIndex(at position: Int) -> Int {
      precondition(position >= 0 && position < count, "neighbour \(position) of \(count)")
      return Int(storage.pointIndices[Int(candidates[position].position)])
    }

    /// The distance in miles of the neighbour at a position, without building a ``Neighbor``.
    public func distanceInMiles(at position: Int) -> Double {
      precondition(position >= 0 && position < count, "neighbour \(position) of \(count)")
      return candidates[position].distance
    }
  }
}

/// A point being ranked.
private struct Candidate: Sendable, HeapRanked {
  /// The Haversine distance in miles.
  var distance: Double
  /// The rank of the point's id.
  var rank: Int32
  /// The point's position in tree order.
  var position: Int32

  /// Whether this candidate ranks before `other`: nearer, or as near with a smaller id.
  @inline(__always)
  func ranksBefore(_ other: Candidate) -> Bool {
    distance < other.distance || (distance == other.distance && rank < other.rank)
  }
}
