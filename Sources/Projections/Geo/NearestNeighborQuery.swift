import Foundation

/// Runs nearest-neighbour queries against a ``NearestNeighborIndex``, reusing its storage.
///
/// Once it has answered a query for the largest `k` it will be asked, a query allocates
/// nothing: the candidates live in storage kept from one query to the next. Read
/// ``neighbors`` before the next query; holding on to it makes the next query copy the storage.
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
public struct NearestNeighborQuery: Sendable {
  /// The index queried.
  public let index: NearestNeighborIndex

  /// The candidates: a max-heap during a search, then the results in ascending order.
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
    Neighbors(index: index, candidates: candidates, count: resultCount)
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
    let position = Int(index.positions[pointIndex])
    let latitude = index.angles[3 * position]
    let longitude = index.angles[3 * position + 1]
    let cosine = index.angles[3 * position + 2]
    search(
      x: index.unitVectors[3 * position], y: index.unitVectors[3 * position + 1],
      z: index.unitVectors[3 * position + 2], latitude: latitude, longitude: longitude,
      cosine: cosine, excludedPosition: position, count: k)
  }

  /// Finds the `k` points nearest to a position, optionally leaving out one point; read them
  /// from ``neighbors``.
  ///
  /// - Parameters:
  ///   - point: Any position, in degrees.
  ///   - k: How many neighbours to find; fewer when the index has no more points.
  ///   - excluding: The index of a point to leave out, or `nil` to consider every point.
  /// - Precondition: `excluding`, if given, is a valid point index, and `k` is not negative.
  public mutating func findNearest(to point: GeoPoint, count k: Int, excluding: Int? = nil) {
    var excludedPosition = -1
    if let excluding {
      precondition(
        index.ids.indices.contains(excluding),
        "excluded point index \(excluding) is out of range 0..<\(index.count)")
      excludedPosition = Int(index.positions[excluding])
    }
    let cosine = Haversine.cosineOfLatitude(point.latitude)
    let longitude = point.longitude * (Double.pi / 180)
    search(
      x: cosine * cos(longitude), y: cosine * sin(longitude),
      z: sin(point.latitude * (Double.pi / 180)), latitude: point.latitude,
      longitude: point.longitude, cosine: cosine, excludedPosition: excludedPosition, count: k)
  }

  private mutating func search(
    x: Double, y: Double, z: Double, latitude: Double, longitude: Double, cosine: Double,
    excludedPosition: Int, count k: Int
  ) {
    precondition(k >= 0, "count \(k) is negative; ask for 0 or more neighbours")
    let available = index.count - (excludedPosition >= 0 ? 1 : 0)
    let wanted = Swift.min(k, available)
    resultCount = 0
    guard wanted > 0 else { return }
    if candidates.count < wanted {
      candidates.append(
        contentsOf: repeatElement(
          Candidate(distance: 0, haversine: 0, rank: 0, position: 0),
          count: wanted - candidates.count))
    }
    let index = self.index
    resultCount = candidates.withUnsafeMutableBufferPointer { candidates in
      index.nodes.withUnsafeBufferPointer { nodes in
        index.unitVectors.withUnsafeBufferPointer { unitVectors in
          index.angles.withUnsafeBufferPointer { angles in
            index.ranks.withUnsafeBufferPointer { ranks in
              var search = Search(
                nodes: nodes, unitVectors: unitVectors, angles: angles, ranks: ranks,
                heap: candidates, capacity: wanted, x: x, y: y, z: z, latitude: latitude,
                longitude: longitude, cosine: cosine, excludedPosition: excludedPosition)
              search.visit(0)
              search.sortHeap()
              return search.heapCount
            }
          }
        }
      }
    }
  }
}

extension NearestNeighborQuery {
  /// The results of a query, as a collection of ``Neighbor``.
  public struct Neighbors: RandomAccessCollection, Sendable {
    fileprivate let index: NearestNeighborIndex
    fileprivate let candidates: [Candidate]

    /// The number of neighbours found.
    public let count: Int

    /// The position of the first neighbour, 0.
    public var startIndex: Int { 0 }

    /// One past the last neighbour's position, ``count``.
    public var endIndex: Int { count }

    /// The neighbour at a position, the nearest first.
    public subscript(position: Int) -> Neighbor {
      precondition(position >= 0 && position < count, "neighbour \(position) of \(count)")
      let candidate = candidates[position]
      let pointIndex = Int(index.pointIndices[Int(candidate.position)])
      return Neighbor(
        index: pointIndex, id: index.ids[pointIndex], distanceInMiles: candidate.distance)
    }

    /// The point index of the neighbour at a position, without building a ``Neighbor``.
    public func pointIndex(at position: Int) -> Int {
      precondition(position >= 0 && position < count, "neighbour \(position) of \(count)")
      return Int(index.pointIndices[Int(candidates[position].position)])
    }

    /// The distance in miles of the neighbour at a position, without building a ``Neighbor``.
    public func distanceInMiles(at position: Int) -> Double {
      precondition(position >= 0 && position < count, "neighbour \(position) of \(count)")
      return candidates[position].distance
    }
  }
}

/// A point found during a search.
private struct Candidate: Sendable {
  /// The Haversine distance in miles.
  var distance: Double
  /// The haversine of the angle, a quarter of the squared chord, for the pruning bound.
  var haversine: Double
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

/// One search over the tree, on the index's storage without copies or bounds checks.
private struct Search {
  let nodes: UnsafeBufferPointer<NearestNeighborIndex.Node>
  let unitVectors: UnsafeBufferPointer<Double>
  let angles: UnsafeBufferPointer<Double>
  let ranks: UnsafeBufferPointer<Int32>
  /// A max-heap of the best candidates so far: the worst at the top.
  let heap: UnsafeMutableBufferPointer<Candidate>
  let capacity: Int
  let x: Double
  let y: Double
  let z: Double
  let latitude: Double
  let longitude: Double
  let cosine: Double
  let excludedPosition: Int
  var heapCount = 0
  /// A squared chord beyond which no point can rank among the best: infinite until the heap is
  /// full, then 4 × the worst candidate's haversine plus the safety margin.
  var bound = Double.infinity

  init(
    nodes: UnsafeBufferPointer<NearestNeighborIndex.Node>,
    unitVectors: UnsafeBufferPointer<Double>, angles: UnsafeBufferPointer<Double>,
    ranks: UnsafeBufferPointer<Int32>, heap: UnsafeMutableBufferPointer<Candidate>,
    capacity: Int, x: Double, y: Double, z: Double, latitude: Double, longitude: Double,
    cosine: Double, excludedPosition: Int
  ) {
    self.nodes = nodes
    self.unitVectors = unitVectors
    self.angles = angles
    self.ranks = ranks
    self.heap = heap
    self.capacity = capacity
    self.x = x
    self.y = y
    self.z = z
    self.latitude = latitude
    self.longitude = longitude
    self.cosine = cosine
    self.excludedPosition = excludedPosition
  }

  /// Searches the subtree at `nodeIndex`, nearer child first, skipping any child whose box is
  /// beyond the bound.
  mutating func visit(_ nodeIndex: Int) {
    let node = nodes[nodeIndex]
    if node.isLeaf {
      scan(Int(node.start)..<Int(node.end))
      return
    }
    let left = nodeIndex + 1
    let right = Int(node.rightChild)
    let leftDistance = nodes[left].distanceSquared(x: x, y: y, z: z)
    let rightDistance = nodes[right].distanceSquared(x: x, y: y, z: z)
    if leftDistance <= rightDistance {
      if leftDistance <= bound { visit(left) }
      if rightDistance <= bound { visit(right) }
    } else {
      if rightDistance <= bound { visit(right) }
      if leftDistance <= bound { visit(left) }
    }
  }

  /// Offers every point of a leaf whose chord is within the bound.
  @inline(__always)
  mutating func scan(_ positions: Range<Int>) {
    for position in positions {
      let dx = unitVectors[3 * position] - x
      let dy = unitVectors[3 * position + 1] - y
      let dz = unitVectors[3 * position + 2] - z
      let chordSquared = dx * dx + dy * dy + dz * dz
      if chordSquared > bound || position == excludedPosition { continue }
      let haversine = Haversine.haversine(
        latitude: latitude, longitude: longitude, cosineOfLatitude: cosine,
        otherLatitude: angles[3 * position], otherLongitude: angles[3 * position + 1],
        otherCosineOfLatitude: angles[3 * position + 2])
      offer(
        Candidate(
          distance: Haversine.distanceInMiles(haversine: haversine), haversine: haversine,
          rank: ranks[position], position: Int32(position)))
    }
  }

  /// Keeps a candidate if the heap has room or it ranks before the worst kept.
  @inline(__always)
  mutating func offer(_ candidate: Candidate) {
    if heapCount < capacity {
      var child = heapCount
      heapCount += 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard heap[parent].ranksBefore(candidate) else { break }
        heap[child] = heap[parent]
        child = parent
      }
      heap[child] = candidate
      if heapCount == capacity { updateBound() }
    } else if candidate.ranksBefore(heap[0]) {
      siftDown(candidate, count: heapCount)
      updateBound()
    }
  }

  @inline(__always)
  mutating func updateBound() {
    bound = 4 * heap[0].haversine + NearestNeighborIndex.chordSquaredMargin
  }

  /// Places `candidate` at the top of the heap's first `count` slots and restores the order.
  @inline(__always)
  func siftDown(_ candidate: Candidate, count: Int) {
    var parent = 0
    while true {
      var child = 2 * parent + 1
      if child >= count { break }
      if child + 1 < count && heap[child].ranksBefore(heap[child + 1]) { child += 1 }
      guard candidate.ranksBefore(heap[child]) else { break }
      heap[parent] = heap[child]
      parent = child
    }
    heap[parent] = candidate
  }

  /// Turns the heap into the results, best first (heapsort).
  func sortHeap() {
    var count = heapCount
    while count > 1 {
      count -= 1
      let worst = heap[0]
      siftDown(heap[count], count: count)
      heap[count] = worst
    }
  }
}
