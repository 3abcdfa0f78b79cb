import Engine
import Events
import Foundation
import ReplayTestSupport
import Testing

/// The tree of RFC 9162 against transparency-dev/merkle's test data
/// (`Tests/Fixtures/merkle-vectors.json`: every file of its `testdata/inclusion` and
/// `testdata/consistency`, happy paths and the tampered ones that must fail).
@Suite struct MerkleTreeTests {
  struct Vectors {
    var inclusion: [[String: Any]]
    var consistency: [[String: Any]]
  }

  static func vectors() throws -> Vectors {
    let url = RepositoryFiles.root.appendingPathComponent("Tests/Fixtures/merkle-vectors.json")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    let top = try #require(object as? [String: Any])
    return Vectors(
      inclusion: try #require(top["inclusion"] as? [[String: Any]]),
      consistency: try #require(top["consistency"] as? [[String: Any]]))
  }

  static func hash(_ value: Any?) -> [UInt8] {
    guard let text = value as? String, let data = Data(base64Encoded: text) else { return [] }
    return Array(data)
  }

  static func path(_ value: Any?) -> [[UInt8]] {
    (value as? [Any] ?? []).map { hash($0) }
  }

  /// The leaves RFC 6962's reference tests (and transparency-dev's test data) use.
  static let referenceLeaves: [[UInt8]] = [
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
  ].map { SHA256.bytes(fromHex: $0) ?? [] }

  @Test func everyInclusionVectorVerifiesOrFailsAsItSays() throws {
    let vectors = try Self.vectors().inclusion
    #expect(vectors.count == 98)
    var passing = 0
    for vector in vectors {
      let file = vector["file"] as? String ?? "?"
      let wantsError = vector["wantErr"] as? Bool ?? false
      let result = Result { () throws(TreeError) in
        try MerkleTree.verifyInclusion(
          leafHash: Self.hash(vector["leafHash"]),
          index: (vector["leafIdx"] as? NSNumber)?.int64Value ?? -1,
          size: (vector["treeSize"] as? NSNumber)?.int64Value ?? -1,
          path: Self.path(vector["proof"]), root: Self.hash(vector["root"]))
      }
      switch result {
      case .success: #expect(!wantsError, "\(file) should fail")
      case .failure(let error): #expect(wantsError, "\(file): \(error)")
      }
      if !wantsError { passing += 1 }
    }
    #expect(passing >= 5)
  }

  @Test func everyConsistencyVectorVerifiesOrFailsAsItSays() throws {
    let vectors = try Self.vectors().consistency
    #expect(vectors.count == 98)
    for vector in vectors {
      let file = vector["file"] as? String ?? "?"
      let wantsError = vector["wantErr"] as? Bool ?? false
      let result = Result { () throws(TreeError) in
        try MerkleTree.verifyConsistency(
          oldSize: (vector["size1"] as? NSNumber)?.int64Value ?? -1,
          newSize: (vector["size2"] as? NSNumber)?.int64Value ?? -1,
          oldRoot: Self.hash(vector["root1"]), newRoot: Self.hash(vector["root2"]),
          path: Self.path(vector["proof"]))
      }
      // Stricter than the reference: roots of 12 bytes ("don't care 2") are refused here,
      // since a tree hash is always 32 bytes.
      let isStricterHere = file.hasSuffix("sizes-are-equal-one-and-proof-is-empty.json")
      switch result {
      case .success: #expect(!wantsError, "\(file) should fail")
      case .failure(let error): #expect(wantsError || isStricterHere, "\(file): \(error)")
      }
    }
  }

  /// Whether a vector file is one built over `referenceLeaves` (the numbered folders).
  static func isOverReferenceLeaves(_ vector: [String: Any]) -> Bool {
    let file = vector["file"] as? String ?? ""
    return vector["wantErr"] as? Bool == false
      && file.split(separator: "/").dropFirst().first.map { Int($0) != nil } == true
  }

  /// The proofs this tree makes over the reference leaves are exactly the happy paths'.
  @Test func proofsMadeHereEqualTheHappyPaths() throws {
    let vectors = try Self.vectors()
    let leafHashes = Self.referenceLeaves.map { MerkleTree.leafHash($0) }
    var compared = 0
    for vector in vectors.inclusion where Self.isOverReferenceLeaves(vector) {
      let size = Int((vector["treeSize"] as? NSNumber)?.intValue ?? 0)
      let index = (vector["leafIdx"] as? NSNumber)?.int64Value ?? 0
      guard size >= 1, size <= 8 else { continue }
      let leaves = Array(leafHashes[..<size])
      #expect(MerkleTree.root(leafHashes: leaves) == Self.hash(vector["root"]))
      #expect(leaves[Int(index)] == Self.hash(vector["leafHash"]))
      #expect(
        MerkleTree.inclusionPath(index: index, leafHashes: leaves) == Self.path(vector["proof"]))
      compared += 1
    }
    for vector in vectors.consistency where Self.isOverReferenceLeaves(vector) {
      let oldSize = (vector["size1"] as? NSNumber)?.int64Value ?? 0
      let newSize = Int((vector["size2"] as? NSNumber)?.intValue ?? 0)
      guard oldSize >= 1, newSize <= 8 else { continue }
      let leaves = Array(leafHashes[..<newSize])
      #expect(
        MerkleTree.root(leafHashes: Array(leaves[..<Int(oldSize)])) == Self.hash(vector["root1"]))
      #expect(
        MerkleTree.consistencyPath(from: oldSize, leafHashes: leaves) == Self.path(vector["proof"]))
      compared += 1
    }
    #expect(compared == 10)
  }

  /// RFC 6962's reference roots for the first 1…8 reference leaves.
  @Test func rootsOfTheReferenceLeavesMatchRFC6962() {
    let expected = [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
      "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
      "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
      "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
      "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
      "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]
    let leafHashes = Self.referenceLeaves.map { MerkleTree.leafHash($0) }
    for size in 1...8 {
      #expect(
        SHA256.hex(MerkleTree.root(leafHashes: Array(leafHashes[..<size]))) == expected[size - 1])
    }
    #expect(SHA256.hex(MerkleTree.root(leafHashes: [])) == SHA256.hex(SHA256.hash([UInt8]())))
  }

  /// Every proof of every leaf and every pair of sizes up to 40 verifies, and a flipped bit in
  /// any of its hashes makes it fail.
  @Test func everyProofUpToFortyLeavesVerifiesAndAFlippedBitFails() throws {
    let leafHashes = (0..<40).map { MerkleTree.leafHash(Array("line \($0)".utf8)) }
    for size in 1...40 {
      let leaves = Array(leafHashes[..<size])
      let root = MerkleTree.root(leafHashes: leaves)
      for index in 0..<Int64(size) {
        let path = MerkleTree.inclusionPath(index: index, leafHashes: leaves)
        try MerkleTree.verifyInclusion(
          leafHash: leaves[Int(index)], index: index, size: Int64(size), path: path, root: root)
        if var tampered = path.first {
          tampered[0] ^= 1
          #expect(throws: TreeError.self) {
            try MerkleTree.verifyInclusion(
              leafHash: leaves[Int(index)], index: index, size: Int64(size),
              path: [tampered] + path.dropFirst(), root: root)
          }
        }
      }
      for oldSize in 1...Int64(size) {
        let oldRoot = MerkleTree.root(leafHashes: Array(leaves[..<Int(oldSize)]))
        let path = MerkleTree.consistencyPath(from: oldSize, leafHashes: leaves)
        try MerkleTree.verifyConsistency(
          oldSize: oldSize, newSize: Int64(size), oldRoot: oldRoot, newRoot: root, path: path)
        if var tampered = path.last {
          tampered[31] ^= 0x80
          #expect(throws: TreeError.self) {
            try MerkleTree.verifyConsistency(
              oldSize: oldSize, newSize: Int64(size), oldRoot: oldRoot, newRoot: root,
              path: path.dropLast() + [tampered])
          }
        }
      }
    }
  }

  /// A proof with a hash too many or too few, or leading to another old root, is refused with
  /// a message that says which.
  @Test func proofsOfTheWrongLengthOrRootSayWhatIsWrong() throws {
    let leaves = (0..<7).map { MerkleTree.leafHash(Array("line \($0)".utf8)) }
    let root = MerkleTree.root(leafHashes: Array(leaves[..<5]))
    let path = MerkleTree.inclusionPath(index: 2, leafHashes: Array(leaves[..<5]))
    func inclusionProblem(_ path: [[UInt8]]) -> String? {
      do {
        try MerkleTree.verifyInclusion(
          leafHash: leaves[2], index: 2, size: 5, path: path, root: root)
        return nil
      } catch { return error.description }
    }
    #expect(inclusionProblem(path) == nil)
    #expect(
      inclusionProblem(path + [root])
        == "inclusion proof: 4 hashes, more than a tree of 5 leaves needs for leaf 2")
    #expect(
      inclusionProblem(path.dropLast())
        == "inclusion proof: 2 hashes, fewer than a tree of 5 leaves needs for leaf 2")

    let oldRoot = MerkleTree.root(leafHashes: Array(leaves[..<3]))
    let newRoot = MerkleTree.root(leafHashes: leaves)
    let consistency = MerkleTree.consistencyPath(from: 3, leafHashes: leaves)
    func consistencyProblem(_ path: [[UInt8]], oldRoot: [UInt8]) -> String? {
      do {
        try MerkleTree.verifyConsistency(
          oldSize: 3, newSize: 7, oldRoot: oldRoot, newRoot: newRoot, path: path)
        return nil
      } catch { return error.description }
    }
    #expect(consistencyProblem(consistency, oldRoot: oldRoot) == nil)
    #expect(
      consistencyProblem(consistency + [newRoot], oldRoot: oldRoot)
        == "consistency proof: 5 hashes, more than size 3 to 7 needs")
    #expect(
      consistencyProblem(consistency.dropLast(), oldRoot: oldRoot)
        == "consistency proof: 3 hashes, fewer than size 3 to 7 needs")
    let problem = try #require(consistencyProblem(consistency, oldRoot: newRoot))
    #expect(
      problem
        == "consistency proof: the path leads to root \(SHA256.hex(oldRoot)) for size 3, "
        + "not to the old root \(SHA256.hex(newRoot))")
  }
}
