extension NearestNeighborIndex {
  /// The index's immutable arrays; a point's position is its place in tree order.
  final class Storage: Sendable {
    /// The points' ids, by point index.
    let ids: [String]

    /// The inner nodes, in depth-first order (empty when the root is a leaf).
    let nodes: [Node]

    /// The root: an inner node or a leaf, encoded as in ``Node``.
    let root: Int32

    /// Where each leaf's positions start, in order, then the number of points.
    let leafStarts: [Int32]

    /// The parent of each inner node, by node index; -1 for the root. A query for a point of
    /// the index starts at the point's leaf and climbs these (`NearestNeighborWalk.climb`).
    let nodeParents: [Int32]

    /// The parent of each leaf, by leaf index; -1 when the root is a leaf.
    let leafParents: [Int32]

    /// Unit vectors as x, y, z, by position, so that a leaf's points are contiguous.
    let unitVectors: [Double]

    /// What ranking a point takes, by position: one 32-byte record, so one cache line.
    let records: [PointRecord]

    /// The point index at each position.
    let pointIndices: [Int32]

    /// The position of each point index.
    let positions: [Int32]

    init(
      ids: [String], nodes: [Node], root: Int32, leafStarts: [Int32], nodeParents: [Int32],
      leafParents: [Int32], unitVectors: [Double], records: [PointRecord],
      pointIndices: [Int32], positions: [Int32]
    ) {
      self.ids = ids
      self.nodes = nodes
      self.root = root
      self.leafStarts = leafStarts
      self.nodeParents = nodeParents
      self.leafParents = leafParents
      self.unitVectors = unitVectors
      self.records = records
      self.pointIndices = pointIndices
      self.positions = positions
    }
  }

  /// What ranking a point by Haversine distance and id takes.
  struct PointRecord: Sendable {
    /// The latitude in degrees.
    var latitude: Double
    /// The longitude in degrees.
    var longitude: Double
    /// The cosine of the latitude, as the Haversine formula computes it.
    var cosine: Double
    /// The point's rank in (id, point index) order, so that ties compare two integers.
    var rank: Int32
  }

  /// An inner node of the tree: the bounding boxes of both children's unit vectors and where
  /// the children are, so that visiting a node reads one 56-byte record.
  ///
  /// A child is an inner node's index when it is 0 or more, and a leaf when negative: the
  /// bitwise complement of twice the leaf's index, plus 1 if its points are identical (see
  /// ``TreeBuilder``). Leaf `i` holds the positions `leafStarts[i]..<leafStarts[i + 1]`.
  struct Node: Sendable {
    var leftBox: Box
    var rightBox: Box
    var left: Int32
    var right: Int32

    /// The reference to a leaf.
    static func leafReference(leafIndex: Int, isIdentical: Bool) -> Int32 {
      ~Int32(2 * leafIndex + (isIdentical ? 1 : 0))
    }
  }

  /// An axis-aligned box around unit vectors, in single precision rounded outwards so that it
  /// still holds every vector: 24 bytes instead of 48.
  struct Box: Sendable {
    var minimumX: Float
    var minimumY: Float
    var minimumZ: Float
    var maximumX: Float
    var maximumY: Float
    var maximumZ: Float

    /// Creates the smallest single-precision box holding a double-precision one.
    init(minimum: (x: Double, y: Double, z: Double), maximum: (x: Double, y: Double, z: Double)) {
      minimumX = Self.roundedDown(minimum.x)
      minimumY = Self.roundedDown(minimum.y)
      minimumZ = Self.roundedDown(minimum.z)
      maximumX = Self.roundedUp(maximum.x)
      maximumY = Self.roundedUp(maximum.y)
      maximumZ = Self.roundedUp(maximum.z)
    }

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
    /// Never more than the squared distance to any vector in the box as the leaf scan computes
    /// it: each term here is a difference the scan's bounds from below, and rounding is
    /// monotonic.
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
