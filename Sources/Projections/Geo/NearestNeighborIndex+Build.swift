import Foundation

extension NearestNeighborIndex {
  /// Builds the k-d tree: each node splits its points at the median of the axis along which
  /// their unit vectors spread most, until a node holds at most ``leafSize`` points.
  struct TreeBuilder {
    /// Unit vectors and latitude cosines, by point index.
    var xs: [Double]
    var ys: [Double]
    var zs: [Double]
    var cosines: [Double]

    /// The points, by point index.
    let points: [GeoPoint]

    /// Each point's rank in (id, point index) order, by point index.
    let ranks: [Int32]

    /// Point indices, rearranged into tree order as the tree is built.
    var order: [Int32]

    /// The inner nodes, in depth-first order.
    var nodes: [Node] = []

    /// Where each leaf's positions start, then the number of points.
    var leafStarts: [Int32] = []

    /// The parent of each inner node, by node index; -1 for the root.
    var nodeParents: [Int32] = []

    /// The parent of each leaf, by leaf index; -1 when the root is a leaf.
    var leafParents: [Int32] = []

    /// The root, encoded as in ``Node``.
    var root: Int32 = 0

    init(points: [GeoPoint], ranks: [Int32]) {
      self.points = points
      self.ranks = ranks
      xs = []
      ys = []
      zs = []
      cosines = []
      xs.reserveCapacity(points.count)
      ys.reserveCapacity(points.count)
      zs.reserveCapacity(points.count)
      cosines.reserveCapacity(points.count)
      for point in points {
        // The same cosine the Haversine formula uses, so distances match a direct call.
        let cosine = Haversine.cosineOfLatitude(point.latitude)
        let longitude = point.longitude * (Double.pi / 180)
        xs.append(cosine * cos(longitude))
        ys.append(cosine * sin(longitude))
        zs.append(sin(point.latitude * (Double.pi / 180)))
        cosines.append(cosine)
      }
      order = (0..<Int32(points.count)).map { $0 }
    }

    /// Builds every node.
    ///
    /// - Complexity: O(*n* log *n*) expected: each level of the tree costs O(*n*) for the
    ///   boxes and the median selections (quickselect, expected linear), and there are
    ///   O(log *n*) levels.
    mutating func build() {
      guard !order.isEmpty else { return }
      nodes.reserveCapacity(order.count / NearestNeighborIndex.leafSize + 1)
      nodeParents.reserveCapacity(order.count / NearestNeighborIndex.leafSize + 1)
      leafStarts.reserveCapacity(order.count / NearestNeighborIndex.leafSize * 2 + 2)
      leafParents.reserveCapacity(order.count / NearestNeighborIndex.leafSize * 2 + 1)
      root = buildSubtree(start: 0, end: order.count, parent: -1).reference
      leafStarts.append(Int32(order.count))
    }

    /// Builds the subtree over `order[start..<end]` below the inner node `parent` (-1 for the
    /// root), returning its reference (see ``Node``) and bounding box.
    private mutating func buildSubtree(start: Int, end: Int, parent: Int32)
      -> (reference: Int32, box: Box)
    {
      var minimum = (x: Double.infinity, y: Double.infinity, z: Double.infinity)
      var maximum = (x: -Double.infinity, y: -Double.infinity, z: -Double.infinity)
      for position in start..<end {
        let point = Int(order[position])
        minimum.x = Swift.min(minimum.x, xs[point])
        minimum.y = Swift.min(minimum.y, ys[point])
        minimum.z = Swift.min(minimum.z, zs[point])
        maximum.x = Swift.max(maximum.x, xs[point])
        maximum.y = Swift.max(maximum.y, ys[point])
        maximum.z = Swift.max(maximum.z, zs[point])
      }
      let box = Box(minimum: minimum, maximum: maximum)

      let extentX = maximum.x - minimum.x
      let extentY = maximum.y - minimum.y
      let extentZ = maximum.z - minimum.z
      // Identical points cannot be told apart by any split: keep them in one leaf.
      guard end - start > NearestNeighborIndex.leafSize, Swift.max(extentX, extentY, extentZ) > 0
      else {
        return (makeLeaf(start: start, end: end, parent: parent), box)
      }

      let middle = (start + end) / 2
      if extentX >= extentY && extentX >= extentZ {
        select(middle, in: start..<end, by: xs)
      } else if extentY >= extentZ {
        select(middle, in: start..<end, by: ys)
      } else {
        select(middle, in: start..<end, by: zs)
      }
      let nodeIndex = nodes.count
      nodes.append(Node(leftBox: box, rightBox: box, left: 0, right: 0))
      nodeParents.append(parent)
      let left = buildSubtree(start: start, end: middle, parent: Int32(nodeIndex))
      let right = buildSubtree(start: middle, end: end, parent: Int32(nodeIndex))
      nodes[nodeIndex] = Node(
        leftBox: left.box, rightBox: right.box, left: left.reference, right: right.reference)
      return (Int32(nodeIndex), box)
    }

    /// Records a leaf over `order[start..<end]`, returning its reference (see ``Node``).
    ///
    /// A leaf whose points all have the very same latitude and longitude is marked identical
    /// and ordered by id rank: every query finds them all at one distance, so only its first
    /// few can rank among the nearest, and the walk takes just those. Without this, each of
    /// *m* duplicates would examine all *m*.
    private mutating func makeLeaf(start: Int, end: Int, parent: Int32) -> Int32 {
      let first = points[Int(order[start])]
      let isIdentical = order[start..<end].allSatisfy { point in
        let other = points[Int(point)]
        return other.latitude.bitPattern == first.latitude.bitPattern
          && other.longitude.bitPattern == first.longitude.bitPattern
      }
      if isIdentical {
        order[start..<end].sort { ranks[Int($0)] < ranks[Int($1)] }
      }
      leafStarts.append(Int32(start))
      leafParents.append(parent)
      return Node.leafReference(leafIndex: leafStarts.count - 1, isIdentical: isIdentical)
    }

    /// Rearranges `order[range]` so that the point at `target` has the key it would have if
    /// sorted, with no greater key before it and no smaller one after it (quickselect).
    ///
    /// A three-way partition keeps runs of equal keys (duplicates, grids) linear.
    private mutating func select(_ target: Int, in range: Range<Int>, by keys: [Double]) {
      order.withUnsafeMutableBufferPointer { order in
        keys.withUnsafeBufferPointer { keys in
          var low = range.lowerBound
          var high = range.upperBound - 1
          while low < high {
            let pivot = Self.medianOfThree(
              keys[Int(order[low])], keys[Int(order[(low + high) / 2])], keys[Int(order[high])])
            var less = low
            var current = low
            var greater = high
            while current <= greater {
              let key = keys[Int(order[current])]
              if key < pivot {
                order.swapAt(less, current)
                less += 1
                current += 1
              } else if key > pivot {
                order.swapAt(current, greater)
                greater -= 1
              } else {
                current += 1
              }
            }
            if target < less {
              high = less - 1
            } else if target > greater {
              low = greater + 1
            } else {
              return
            }
          }
        }
      }
    }

    private static func medianOfThree(_ a: Double, _ b: Double, _ c: Double) -> Double {
      Swift.max(Swift.min(a, b), Swift.min(Swift.max(a, b), c))
    }
  }
}
