import Foundation
import Testing

@testable import Projections

@Suite struct NearestNeighborIndexTests {
  private static let sizes = [1, 2, 3, 10, 100, 2000]

  /// The oracle: every point's nearest, for each k, equals a scan of every point.
  @Test(arguments: PointDistribution.allCases, sizes)
  func everyPointsNearestEqualBruteForce(distribution: PointDistribution, size: Int) {
    let seed = TestSeed.make(
      "everyPointsNearestEqualBruteForce \(distribution) \(size)",
      fallback: seed(distribution, size, salt: 1))
    var generator = SplitMix64(seed: seed)
    let points = makePoints(distribution, count: size, using: &generator)
    let ids = makeIDs(count: size, using: &generator)
    let index = NearestNeighborIndex(points: points, ids: ids)
    var query = NearestNeighborQuery(index: index)
    for pointIndex in points.indices {
      let expected = bruteForceNearest(
        to: points[pointIndex], in: points, ids: ids, count: 7, excluding: pointIndex)
      for k in [1, 3, 7] {
        query.findNearest(toPointAt: pointIndex, count: k)
        let found = Array(query.neighbors)
        #expect(
          found == Array(expected.prefix(k)),
          "\(distribution) size \(size) seed \(seed): point \(pointIndex), k \(k)")
      }
    }
  }

  @Test(arguments: PointDistribution.allCases, sizes)
  func nearestToAnyPositionEqualBruteForce(distribution: PointDistribution, size: Int) {
    let seed = TestSeed.make(
      "nearestToAnyPositionEqualBruteForce \(distribution) \(size)",
      fallback: seed(distribution, size, salt: 2))
    var generator = SplitMix64(seed: seed)
    let points = makePoints(distribution, count: size, using: &generator)
    let ids = makeIDs(count: size, using: &generator)
    let index = NearestNeighborIndex(points: points, ids: ids)
    // Fresh positions of the same kind, and some of the points themselves.
    let queries =
      makePoints(distribution, count: 100, using: &generator)
      + (0..<20).map { _ in points[Int.random(in: 0..<size, using: &generator)] }
    for (queryNumber, position) in queries.enumerated() {
      let excluding: Int? =
        Bool.random(using: &generator) ? Int.random(in: 0..<size, using: &generator) : nil
      for k in [1, 3, 7] {
        let expected = bruteForceNearest(
          to: position, in: points, ids: ids, count: k, excluding: excluding)
        #expect(
          index.nearest(to: position, count: k, excluding: excluding) == expected,
          "\(distribution) size \(size) seed \(seed): query \(queryNumber), k \(k)")
      }
    }
  }

  /// A wider sweep over many seeds, run when `GEO_SWEEP` is set to a number of seeds:
  /// `GEO_SWEEP=300 swift test --filter manySeedsEqualBruteForce`.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["GEO_SWEEP"] != nil))
  func manySeedsEqualBruteForce() {
    let seedCount = Int(ProcessInfo.processInfo.environment["GEO_SWEEP"] ?? "") ?? 100
    for seed in UInt64(0)..<UInt64(seedCount) {
      var generator = SplitMix64(seed: 0x5EED_5EED_0000 &+ seed)
      let distribution = PointDistribution.allCases.randomElement(using: &generator) ?? .mixed
      let size = Int.random(in: 1...600, using: &generator)
      let points = makePoints(distribution, count: size, using: &generator)
      let ids = makeIDs(count: size, using: &generator)
      let index = NearestNeighborIndex(points: points, ids: ids)
      var query = NearestNeighborQuery(index: index)
      for pointIndex in points.indices {
        let k = Int.random(in: 1...12, using: &generator)
        query.findNearest(toPointAt: pointIndex, count: k)
        let expected = bruteForceNearest(
          to: points[pointIndex], in: points, ids: ids, count: k, excluding: pointIndex)
        #expect(
          Array(query.neighbors) == expected,
          "seed \(0x5EED_5EED_0000 &+ seed) \(distribution) size \(size): point \(pointIndex)")
      }
    }
  }

  @Test func duplicatesAreNeighboursAtZeroMilesButThePointItselfIsNot() {
    let spot = GeoPoint(latitude: 47.6, longitude: -122.3)
    let index = NearestNeighborIndex(
      points: [spot, spot, GeoPoint(latitude: 47.7, longitude: -122.3), spot],
      ids: ["c", "a", "far", "b"])
    let found = index.nearest(toPointAt: 1, count: 3)
    #expect(found.map(\.id) == ["b", "c", "far"])
    #expect(found.map(\.index) == [3, 0, 2])
    #expect(found[0].distanceInMiles == 0)
    #expect(found[1].distanceInMiles == 0)
    #expect(found[2].distanceInMiles > 6.9 && found[2].distanceInMiles < 7)
  }

  /// More points at distance 0 than a query first makes room for: it must grow and still rank
  /// them all by id.
  @Test(arguments: [1, 3, 7, 150])
  func manyIdenticalPointsAreRankedByID(k: Int) {
    let spot = GeoPoint(latitude: -33.87, longitude: 151.21)
    let points =
      Array(repeating: spot, count: 200) + [GeoPoint(latitude: -33.8, longitude: 151.2)]
    let ids = (0..<201).map { "d" + String(1000 - $0) }
    let index = NearestNeighborIndex(points: points, ids: ids)
    let found = index.nearest(toPointAt: 0, count: k)
    #expect(found.map(\.index) == Array((200 - k)..<200).reversed())
    #expect(found.allSatisfy { $0.distanceInMiles == 0 })
    #expect(found == bruteForceNearest(to: spot, in: points, ids: ids, count: k, excluding: 0))
  }

  @Test func equalDistancesAreOrderedByID() {
    let index = NearestNeighborIndex(
      points: [
        GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 1),
        GeoPoint(latitude: 1, longitude: 0), GeoPoint(latitude: 0, longitude: -1),
        GeoPoint(latitude: -1, longitude: 0),
      ],
      ids: ["center", "east", "north", "west", "south"])
    let found = index.nearest(toPointAt: 0, count: 4)
    #expect(found.map(\.id) == ["east", "north", "south", "west"])
    #expect(Set(found.map(\.distanceInMiles)).count == 1)
  }

  @Test func idsCompareAsStringsNotAsNumbers() {
    let spot = GeoPoint(latitude: 10, longitude: 10)
    let index = NearestNeighborIndex(
      points: [spot, spot, spot, spot], ids: ["p2", "p10", "p1", "origin"])
    #expect(index.nearest(toPointAt: 3, count: 3).map(\.id) == ["p1", "p10", "p2"])
  }

  @Test func askingForMoreThanTheOtherPointsReturnsAllOthers() {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5EED_0003))
    let points = makePoints(.uniform, count: 5, using: &generator)
    let ids = makeIDs(count: 5, using: &generator)
    let index = NearestNeighborIndex(points: points, ids: ids)
    let found = index.nearest(toPointAt: 2, count: 10)
    #expect(found.count == 4)
    #expect(found == bruteForceNearest(to: points[2], in: points, ids: ids, count: 4, excluding: 2))
    #expect(index.nearest(to: points[2], count: 10).count == 5)
  }

  @Test func coordinatesOutOfRangeAreAProgrammerError() async {
    await #expect(processExitsWith: .failure) {
      _ = NearestNeighborIndex(points: [GeoPoint(latitude: 91, longitude: 0)], ids: ["north"])
    }
    await #expect(processExitsWith: .failure) {
      _ = NearestNeighborIndex(points: [GeoPoint(latitude: 0, longitude: .nan)], ids: ["nan"])
    }
    await #expect(processExitsWith: .failure) {
      let index = NearestNeighborIndex(points: [GeoPoint(latitude: 0, longitude: 0)], ids: ["a"])
      _ = index.nearest(to: GeoPoint(latitude: 0, longitude: 181), count: 1)
    }
  }

  @Test func emptyIndexFindsNothing() {
    let index = NearestNeighborIndex(points: [], ids: [])
    #expect(index.isEmpty)
    #expect(index.nearest(to: GeoPoint(latitude: 0, longitude: 0), count: 3) == [])
    #expect(index.nearestOfEveryPoint(count: 3) == [])
  }

  @Test func countZeroFindsNothing() {
    let index = NearestNeighborIndex(
      points: [GeoPoint(latitude: 1, longitude: 2), GeoPoint(latitude: 3, longitude: 4)],
      ids: ["a", "b"])
    #expect(index.nearest(toPointAt: 0, count: 0) == [])
    #expect(index.nearest(to: GeoPoint(latitude: 0, longitude: 0), count: 0) == [])
  }

  @Test func aSinglePointHasNoOtherNeighbours() {
    let index = NearestNeighborIndex(points: [GeoPoint(latitude: 1, longitude: 2)], ids: ["a"])
    #expect(index.nearest(toPointAt: 0, count: 3) == [])
    #expect(index.nearest(to: GeoPoint(latitude: 1, longitude: 2), count: 3).map(\.id) == ["a"])
  }

  @Test func neighboursAcrossTheAntimeridianAreFound() {
    let index = NearestNeighborIndex(
      points: [
        GeoPoint(latitude: 0, longitude: 179.9999), GeoPoint(latitude: 0, longitude: 170),
        GeoPoint(latitude: 0, longitude: -179.9999),
      ],
      ids: ["east", "far", "west"])
    let found = index.nearest(toPointAt: 0, count: 1)
    #expect(found.map(\.id) == ["west"])
    #expect(found[0].distanceInMiles < 0.014)
  }

  @Test func everyPointsNearestInOneCallEqualsOneQueryPerPoint() {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5EED_0004))
    let points = makePoints(.mixed, count: 500, using: &generator)
    let ids = makeIDs(count: 500, using: &generator)
    let index = NearestNeighborIndex(points: points, ids: ids)
    let all = index.nearestOfEveryPoint(count: 3)
    #expect(all.count == 500)
    for pointIndex in points.indices {
      #expect(all[pointIndex] == index.nearest(toPointAt: pointIndex, count: 3))
    }
    var visited = Set<Int>()
    index.forEachPoint(withNearest: 3) { pointIndex, neighbors in
      visited.insert(pointIndex)
      #expect(Array(neighbors) == all[pointIndex])
    }
    #expect(visited == Set(points.indices))
  }

  /// A query for a point of the index climbs from its leaf; one for a position walks down from
  /// the root. Asked about the same point, the two give the same answer.
  @Test(arguments: PointDistribution.allCases)
  func theWalkFromThePointsLeafEqualsTheWalkFromTheRoot(distribution: PointDistribution) {
    var generator = SplitMix64(
      seed: TestSeed.make(
        "theWalkFromThePointsLeafEqualsTheWalkFromTheRoot \(distribution)",
        fallback: seed(distribution, 3000, salt: 3)))
    let points = makePoints(distribution, count: 3000, using: &generator)
    let ids = makeIDs(count: 3000, using: &generator)
    let index = NearestNeighborIndex(points: points, ids: ids)
    for pointIndex in points.indices {
      for k in [1, 3, 50] {
        #expect(
          index.nearest(toPointAt: pointIndex, count: k)
            == index.nearest(to: points[pointIndex], count: k, excluding: pointIndex),
          "\(distribution): point \(pointIndex), k \(k)")
      }
    }
  }

  /// Every node's and leaf's parent holds it as a child, and following parents from any leaf
  /// reaches the root.
  @Test(arguments: PointDistribution.allCases)
  func parentsHoldTheirChildren(distribution: PointDistribution) {
    var generator = SplitMix64(seed: TestSeed.make(fallback: seed(distribution, 1000, salt: 4)))
    let points = makePoints(distribution, count: 1000, using: &generator)
    let storage = NearestNeighborIndex(
      points: points, ids: makeIDs(count: 1000, using: &generator)
    ).storage
    #expect(storage.nodeParents.count == storage.nodes.count)
    #expect(storage.leafParents.count == storage.leafStarts.count - 1)
    func children(_ parent: Int32) -> [Int32] {
      [storage.nodes[Int(parent)].left, storage.nodes[Int(parent)].right]
    }
    for (node, parent) in storage.nodeParents.enumerated() {
      if parent < 0 {
        #expect(storage.root == Int32(node))
      } else {
        #expect(children(parent).contains(Int32(node)))
      }
    }
    for (leaf, parent) in storage.leafParents.enumerated() {
      #expect(parent >= 0, "1000 points make more than one leaf")
      guard parent >= 0 else { continue }
      #expect(children(parent).contains { $0 < 0 && Int(~$0 >> 1) == leaf })
      var steps = 0
      var ancestor = parent
      while storage.nodeParents[Int(ancestor)] >= 0 && steps < 64 {
        ancestor = storage.nodeParents[Int(ancestor)]
        steps += 1
      }
      #expect(ancestor == storage.root)
    }
  }

  @Test func aReusedQueryGivesTheSameAnswersAsFreshOnes() {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5EED_0005))
    let points = makePoints(.clustered, count: 300, using: &generator)
    let ids = makeIDs(count: 300, using: &generator)
    let index = NearestNeighborIndex(points: points, ids: ids)
    var query = NearestNeighborQuery(index: index)
    for k in [7, 1, 300, 0, 3] {
      for pointIndex in stride(from: 0, to: 300, by: 7) {
        query.findNearest(toPointAt: pointIndex, count: k)
        #expect(Array(query.neighbors) == index.nearest(toPointAt: pointIndex, count: k))
      }
    }
  }

  @Test func heldResultsKeepTheirValuesAfterTheNextQuery() {
    let index = NearestNeighborIndex(
      points: [
        GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 1),
        GeoPoint(latitude: 0, longitude: 3),
      ],
      ids: ["a", "b", "c"])
    var query = NearestNeighborQuery(index: index)
    query.findNearest(toPointAt: 0, count: 2)
    let first = query.neighbors
    query.findNearest(toPointAt: 2, count: 2)
    #expect(first.map(\.id) == ["b", "c"])
    #expect(query.neighbors.map(\.id) == ["b", "a"])
    #expect(first.pointIndex(at: 1) == 2)
    #expect(first.distanceInMiles(at: 0) == first[0].distanceInMiles)
  }

  private func seed(_ distribution: PointDistribution, _ size: Int, salt: UInt64) -> UInt64 {
    let kind = UInt64(PointDistribution.allCases.firstIndex(of: distribution) ?? 0)
    return 0x6E0_0000 &+ salt << 20 &+ kind << 16 &+ UInt64(size)
  }
}
