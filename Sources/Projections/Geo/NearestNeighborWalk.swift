/// The tree walk of a ``NearestNeighborQuery``: which points of the index are near enough to
/// be ranked. The query owns the storage the walk fills and does the ranking.

/// Where a query is: its unit vector, its angles for the Haversine formula, and which position
/// to leave out (-1 for none).
struct NearestNeighborProbe {
  var x: Double
  var y: Double
  var z: Double
  var latitude: Double
  var longitude: Double
  var cosine: Double
  var excludedPosition: Int
}

/// A point set aside during the walk.
struct SetAsidePoint: Sendable {
  var chordSquared: Double
  var position: Int32
}

/// The tree walk of one query, on the index's storage without copies or bounds checks.
struct NearestNeighborWalk {
  let nodes: UnsafeBufferPointer<NearestNeighborIndex.Node>
  let leafStarts: UnsafeBufferPointer<Int32>
  let unitVectors: UnsafeBufferPointer<Double>
  /// The smallest squared chords so far: the largest at the top.
  var smallestChords: BoundedHeap<Double>
  let setAside: UnsafeMutableBufferPointer<SetAsidePoint>
  let capacity: Int
  let x: Double
  let y: Double
  let z: Double
  let excludedPosition: Int
  var setAsideCount = 0
  var isOutOfRoom = false
  /// A squared chord beyond which no point can rank among the best: infinite until `capacity`
  /// chords are known, then the largest of them plus the safety margin
  /// (`NearestNeighborIndex.pruningBound(squaredChord:)`).
  var bound = Double.infinity

  init(
    nodes: UnsafeBufferPointer<NearestNeighborIndex.Node>, leafStarts: UnsafeBufferPointer<Int32>,
    unitVectors: UnsafeBufferPointer<Double>, smallestChords: UnsafeMutableBufferPointer<Double>,
    setAside: UnsafeMutableBufferPointer<SetAsidePoint>, capacity: Int, probe: NearestNeighborProbe
  ) {
    self.nodes = nodes
    self.leafStarts = leafStarts
    self.unitVectors = unitVectors
    self.smallestChords = BoundedHeap(storage: smallestChords, capacity: capacity)
    self.setAside = setAside
    self.capacity = capacity
    self.x = probe.x
    self.y = probe.y
    self.z = probe.z
    self.excludedPosition = probe.excludedPosition
  }

  /// Walks a subtree (encoded as in ``NearestNeighborIndex/Node``), nearer child first,
  /// skipping any child whose box is beyond the bound.
  mutating func visit(_ reference: Int32) {
    if reference < 0 {
      let leaf = Int(~reference >> 1)
      let positions = Int(leafStarts[leaf])..<Int(leafStarts[leaf &+ 1])
      if ~reference & 1 == 0 {
        scan(positions)
      } else {
        scanIdentical(positions)
      }
      return
    }
    let node = nodes[Int(reference)]
    let leftDistance = node.leftBox.distanceSquared(x: x, y: y, z: z)
    let rightDistance = node.rightBox.distanceSquared(x: x, y: y, z: z)
    if leftDistance <= rightDistance {
      if leftDistance <= bound { visit(node.left) }
      if rightDistance <= bound && !isOutOfRoom { visit(node.right) }
    } else {
      if rightDistance <= bound { visit(node.right) }
      if leftDistance <= bound && !isOutOfRoom { visit(node.left) }
    }
  }

  /// Walks the tree from the leaf that holds the query's own point: the leaf first, then, at
  /// each inner node on the way up to the root, the child not yet walked, unless its box is
  /// beyond the bound.
  ///
  /// A walk from the root, nearer child first, usually reaches this leaf first and takes the
  /// same children on its way back; starting here saves the descent: two box distances and a
  /// call at every level (about 15 % of a query's instructions, 2 % of its time: the walk is
  /// bound by its unpredictable branches). A subtree is left out only when its box is beyond
  /// the bound, which only shrinks, so every point within the final bound is still set aside
  /// and the answer is the one a walk from the root gives.
  mutating func climb(
    fromLeaf leaf: Int, root: Int32, leafParents: [Int32], nodeParents: [Int32]
  ) {
    let leafParent = leafParents[leaf]
    guard leafParent >= 0 else {
      visit(root)
      return
    }
    let first = nodes[Int(leafParent)]
    var child = first.left < 0 && Int(~first.left >> 1) == leaf ? first.left : first.right
    visit(child)
    var parent = leafParent
    while parent >= 0 && !isOutOfRoom {
      let node = nodes[Int(parent)]
      if node.left == child {
        if node.rightBox.distanceSquared(x: x, y: y, z: z) <= bound { visit(node.right) }
      } else {
        if node.leftBox.distanceSquared(x: x, y: y, z: z) <= bound { visit(node.left) }
      }
      child = parent
      parent = nodeParents[Int(parent)]
    }
  }

  /// Sets aside every point of a leaf whose chord is within the bound.
  @inline(__always)
  mutating func scan(_ positions: Range<Int>) {
    for position in positions {
      let chordSquared = chordSquared(at: position)
      if chordSquared > bound || position == excludedPosition { continue }
      guard setAside(chordSquared, at: position) else { return }
    }
  }

  /// Sets aside the first `capacity` points of a leaf of identical points, ordered by id rank,
  /// if they are within the bound: the others are as far and rank after them.
  mutating func scanIdentical(_ positions: Range<Int>) {
    let chordSquared = chordSquared(at: positions.lowerBound)
    var taken = 0
    for position in positions where position != excludedPosition {
      if chordSquared > bound || taken == capacity { return }
      guard setAside(chordSquared, at: position) else { return }
      taken += 1
    }
  }

  /// The squared chord from the query to the point at `position`.
  @inline(__always)
  func chordSquared(at position: Int) -> Double {
    // Positions are below 2³¹, so three times one plus 2 cannot overflow.
    let offset = 3 &* position
    let dx = unitVectors[offset] - x
    let dy = unitVectors[offset &+ 1] - y
    let dz = unitVectors[offset &+ 2] - z
    return dx * dx + dy * dy + dz * dz
  }

  /// Sets the point at `position` aside and keeps its chord; returns `false`, setting
  /// `isOutOfRoom`, when there is no room left even after forgetting the points beyond the bound.
  @inline(__always)
  mutating func setAside(_ chordSquared: Double, at position: Int) -> Bool {
    if setAsideCount == setAside.count {
      dropPointsBeyondBound()
      if setAsideCount == setAside.count {
        isOutOfRoom = true
        return false
      }
    }
    setAside[setAsideCount] = SetAsidePoint(chordSquared: chordSquared, position: Int32(position))
    setAsideCount += 1
    keep(chordSquared)
    return true
  }

  /// Keeps a squared chord among the `capacity` smallest, and tightens the bound.
  @inline(__always)
  mutating func keep(_ chordSquared: Double) {
    guard smallestChords.offer(chordSquared), smallestChords.isFull else { return }
    bound = NearestNeighborIndex.pruningBound(squaredChord: smallestChords.worst)
  }

  /// Forgets the points set aside that the bound has since moved past.
  mutating func dropPointsBeyondBound() {
    var kept = 0
    for point in setAside[0..<setAsideCount] where point.chordSquared <= bound {
      setAside[kept] = point
      kept += 1
    }
    setAsideCount = kept
  }
}
