extension NearestNeighborIndex {
  /// The index's immutable arrays; a point's position is its place in tree order.
  final class Storage: Sendable {
    /// The points' ids, by point index.
    let ids: [String]

    /// The tree, in depth-first order: a node's left child directly follows it.
    let nodes: [Node]

    /// Unit vectors as x, y, z, by position, so that a leaf's points are contiguous.
    let unitVectors: [Double]

    /// What ranking a point takes, by position: one 32-byte record, so one cache line.
    let records: [PointRecord]

    /// The point index at each position.
    let pointIndices: [Int32]

    /// The position of each point index.
    let positions: [Int32]

    init(
      ids: [String], nodes: [Node], unitVectors: [Double], records: [PointRecord],
      pointIndices: [Int32], positions: [Int32]
    ) {
      self.ids = ids
      self.nodes = nodes
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
