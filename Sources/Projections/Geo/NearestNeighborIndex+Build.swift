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

    /// Point indices, rearranged into tree order as the tree is built.
    var order: [Int32]

    /// The nodes, in depth-first order.
    var nodes: [Node] = []

    init(points: [GeoPoint]) {
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
    /// - Complexity: O(*n* log *n*): each level of the tree costs O(*n*) for the boxes and the
    ///   median selections, and there are O(log *n*) levels.
    mutating func build() {
      guard !order.isEmpty else { return }
      nodes.reserveCapacity(2 * (order.count / NearestNeighborIndex.leafSize + 1))
      buildNode(start: 0, end: order.count)
    }

    /// Builds the subtree over `order[start..<end]`, returning its node index.
    @discardableResult
    private mutating func buildNode(start: Int, end: Int) -> Int {
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
      let nodeIndex = nodes.count
      nodes.append(Node(minimum: minimum, maximum: maximum, start: start, link: -end))

      let extentX = maximum.x - minimum.x
      let extentY = maximum.y - minimum.y
      let extentZ = maximum.z - minimum.z
      let widest = extentY > extentX ? (extentZ > extentY ? 2 : 1) : (extentZ > extentX ? 2 : 0)
      // Identical points cannot be told apart by any split: keep them in one leaf.
      guard end - start > NearestNeighborIndex.leafSize, Swift.max(extentX, extentY, extentZ) > 0
      else {
        return nodeIndex
      }

      let middle = (start + end) / 2
      switch widest {
      case 0: select(middle, in: start..<end, by: xs)
      case 1: select(middle, in: start..<end, by: ys)
      default: select(middle, in: start..<end, by: zs)
      }
      buildNode(start: start, end: middle)
      let rightChild = buildNode(start: middle, end: end)
      nodes[nodeIndex].link = Int32(rightChild)
      return nodeIndex
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
