import Events

extension MerkleTree {
  /// The leaf hash of each line `lines` hands out, by seq (`[seq - 1]`): the leaves of a log
  /// that has no `<log>.tree` (one kept in a database, whose rows hold the file's lines byte
  /// for byte, so the roots and proofs over them are the file's).
  /// - Throws: what `lines` throws.
  /// - Complexity: one pass; 32 bytes held per line.
  package static func leafHashes(lines: LineSource) throws -> [[UInt8]] {
    var hashes: [[UInt8]] = []
    try lines { line in
      hashes.append(leafHash(line.bytes))
      return true
    }
    return hashes
  }
}

/// A tree whose proofs `replay prove` prints: the log file's `LogTree`, or `LeafHashTree` for a
/// log kept elsewhere.
package protocol ProofSource {
  /// The number of leaves (events).
  var size: Int64 { get }
  /// The root of the tree of the first `size` events.
  func root(size: Int64) throws -> [UInt8]
  /// The leaf hash of event `sequence`.
  func leafHash(sequence: Int64) throws -> [UInt8]
  /// The inclusion proof of event `sequence` in the tree of the first `size` events.
  func inclusionPath(sequence: Int64, size: Int64) throws -> [[UInt8]]
  /// The consistency proof from the tree of `oldSize` events to the tree of `newSize`.
  func consistencyPath(from oldSize: Int64, to newSize: Int64) throws -> [[UInt8]]
}

/// The tree of leaf hashes held in memory (`MerkleTree.leafHashes(lines:)`), with the sizes
/// and seqs checked as `LogTree` checks them.
package struct LeafHashTree: ProofSource {
  /// The leaf hash of each event, by seq (`[seq - 1]`).
  package let leafHashes: [[UInt8]]

  package init(leafHashes: [[UInt8]]) {
    self.leafHashes = leafHashes
  }

  package var size: Int64 { Int64(leafHashes.count) }

  package func root(size: Int64) throws -> [UInt8] {
    try MerkleTree.requireSize(size, "tree size", logSize: self.size)
    return MerkleTree.root(leafHashes: Array(leafHashes.prefix(Int(size))))
  }

  package func leafHash(sequence: Int64) throws -> [UInt8] {
    try MerkleTree.requireSize(sequence, "seq", logSize: size)
    return leafHashes[Int(sequence - 1)]
  }

  package func inclusionPath(sequence: Int64, size: Int64) throws -> [[UInt8]] {
    try MerkleTree.requireSize(size, "tree size", logSize: self.size)
    try MerkleTree.requireInclusion(sequence: sequence, size: size)
    return MerkleTree.inclusionPath(
      index: sequence - 1, leafHashes: Array(leafHashes.prefix(Int(size))))
  }

  package func consistencyPath(from oldSize: Int64, to newSize: Int64) throws -> [[UInt8]] {
    try MerkleTree.requireSize(newSize, "tree size", logSize: size)
    try MerkleTree.requireConsistency(from: oldSize, to: newSize)
    return MerkleTree.consistencyPath(
      from: oldSize, leafHashes: Array(leafHashes.prefix(Int(newSize))))
  }
}

extension MerkleTree {
  /// Checks that `size` (a tree size, or a seq: `what`) is within a log of `logSize` events.
  /// - Throws: `TreeError.invalidInput`.
  static func requireSize(_ size: Int64, _ what: String, logSize: Int64) throws {
    guard size >= 0, size <= logSize else {
      throw TreeError.invalidInput(problem: "\(what) \(size): the log has \(logSize) events")
    }
  }

  /// Checks that event `sequence` is in a tree of `size` events.
  /// - Throws: `TreeError.invalidInput`.
  static func requireInclusion(sequence: Int64, size: Int64) throws {
    guard sequence >= 1, sequence <= size else {
      throw TreeError.invalidInput(
        problem: "seq \(sequence) is not in a tree of \(size) events (1...\(size))")
    }
  }

  /// Checks that a tree of `oldSize` events can be proved a prefix of one of `newSize`.
  /// - Throws: `TreeError.invalidInput`.
  static func requireConsistency(from oldSize: Int64, to newSize: Int64) throws {
    guard oldSize >= 1, oldSize <= newSize else {
      throw TreeError.invalidInput(
        problem: "old size \(oldSize): expected 1...\(newSize), the new tree's size")
    }
  }
}
