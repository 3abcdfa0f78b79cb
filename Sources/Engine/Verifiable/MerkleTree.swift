import Events

/// The Merkle tree of RFC 9162 §2.1 over a log's lines: its hashes, its root, and its inclusion
/// and consistency proofs, built from any store of perfect subtrees' hashes.
///
/// - Leaf hash: SHA-256(0x00 ‖ line), where `line` is the event's line exactly as stored,
///   without its final `\n`; leaf index = seq − 1; tree size = number of events.
/// - Node hash: SHA-256(0x01 ‖ left ‖ right).
/// - The root of the empty tree is SHA-256 of nothing.
///
/// Every hash a root or a proof needs is the hash of `D[start..<end]` where either the range is
/// a perfect subtree (a power of two in size, aligned to it) or it ends at the tree's size; the
/// latter is split as RFC 9162 §2.1.1 says (at the largest power of two below its size) until
/// only perfect subtrees remain. Where those come from is the caller's business (`perfect`):
/// leaves in memory for tests, the `<log>.tree` sidecar and the log for `replay`.
package enum MerkleTree {
  /// The length of every hash: SHA-256.
  public static let hashByteCount = 32

  /// The root of the tree of no leaves: SHA-256 of the empty string.
  public static let emptyRoot: [UInt8] = SHA256.hash([UInt8]())

  /// The leaf hash of one line (without its `\n`): SHA-256(0x00 ‖ line).
  package static func leafHash(_ line: UnsafeRawBufferPointer) -> [UInt8] {
    SHA256.hash(prefix: 0, line)
  }

  /// The leaf hash of one line (without its `\n`): SHA-256(0x00 ‖ line).
  public static func leafHash(_ line: [UInt8]) -> [UInt8] {
    line.withUnsafeBytes { leafHash($0) }
  }

  /// The hash of an inner node: SHA-256(0x01 ‖ left ‖ right).
  public static func nodeHash(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
    (left + right).withUnsafeBytes { SHA256.hash(prefix: 1, $0) }
  }

  /// The largest power of two strictly below `count` (`count` ≥ 2): where RFC 9162 splits.
  static func split(_ count: Int64) -> Int64 {
    var power: Int64 = 1
    while power << 1 < count { power <<= 1 }
    return power
  }

  /// The hash of leaves `start..<end` (RFC 9162 §2.1.1, MTH(D[start:end])).
  /// - Parameter perfect: the hash of the perfect subtree of `1 << level` leaves from `start`
  ///   (`start` a multiple of its size).
  static func rangeHash(
    _ start: Int64, _ end: Int64, perfect: (_ start: Int64, _ level: Int) throws -> [UInt8]
  ) rethrows -> [UInt8] {
    let count = end - start
    if count == 0 { return emptyRoot }
    if count & (count - 1) == 0 && start % count == 0 {
      return try perfect(start, count.trailingZeroBitCount)
    }
    let half = split(count)
    return nodeHash(
      try rangeHash(start, start + half, perfect: perfect),
      try rangeHash(start + half, end, perfect: perfect))
  }

  /// The inclusion proof of leaf `index` in the tree of the first `size` leaves
  /// (RFC 9162 §2.1.3.1, PATH(m, D[n])), leaf side first.
  static func inclusionPath(
    index: Int64, size: Int64, perfect: (_ start: Int64, _ level: Int) throws -> [UInt8]
  ) rethrows -> [[UInt8]] {
    precondition(index >= 0 && index < size, "the leaf is inside the tree")
    var path: [[UInt8]] = []
    var (start, end) = (Int64(0), size)
    // Walk down from the root, noting each sibling; the proof lists them from the leaf up.
    while end - start > 1 {
      let half = split(end - start)
      if index - start < half {
        path.append(try rangeHash(start + half, end, perfect: perfect))
        end = start + half
      } else {
        path.append(try rangeHash(start, start + half, perfect: perfect))
        start += half
      }
    }
    return path.reversed()
  }

  /// The consistency proof from the tree of `oldSize` leaves to the tree of `newSize`
  /// (RFC 9162 §2.1.4.1, PROOF(m, D[n]) = SUBPROOF(m, D[n], true)); empty when the sizes are
  /// equal.
  static func consistencyPath(
    from oldSize: Int64, to newSize: Int64,
    perfect: (_ start: Int64, _ level: Int) throws -> [UInt8]
  ) rethrows -> [[UInt8]] {
    precondition(oldSize >= 1 && oldSize <= newSize, "0 < old size ≤ new size")
    var path: [[UInt8]] = []
    var (start, end) = (Int64(0), newSize)
    // SUBPROOF(m, D[start:end], b), walked down from the root until the old tree's end is the
    // range's end; b (the range being the whole old tree) holds until the walk turns right.
    var isWholeOldTree = true
    while oldSize != end {
      let half = split(end - start)
      if oldSize - start <= half {
        path.append(try rangeHash(start + half, end, perfect: perfect))
        end = start + half
      } else {
        path.append(try rangeHash(start, start + half, perfect: perfect))
        start += half
        isWholeOldTree = false
      }
    }
    if !isWholeOldTree { path.append(try rangeHash(start, end, perfect: perfect)) }
    return path.reversed()
  }
}

extension MerkleTree {
  /// The hash of the perfect subtree over `hashes` (a power of two of them, each the hash of
  /// an equal subtree, in order): pairs combined level by level.
  static func perfectHash(_ hashes: ArraySlice<[UInt8]>) -> [UInt8] {
    let flat = hashes.flatMap { $0 }
    return flat.withUnsafeBytes { perfectHash(flat: $0) }
  }

  /// `perfectHash` of hashes laid side by side, 32 bytes each: each level's node hashes are
  /// written over the level below, in one buffer.
  static func perfectHash(flat hashes: UnsafeRawBufferPointer) -> [UInt8] {
    let count = hashes.count / hashByteCount
    precondition(
      count > 0 && count & (count - 1) == 0 && hashes.count == count * hashByteCount,
      "a power of two of 32-byte hashes")
    guard count > 1 else { return Array(hashes) }
    var width = count / 2
    var level = [UInt8](repeating: 0, count: width * hashByteCount)
    let hashed = level.withUnsafeMutableBytes { output in
      // Neither buffer is empty, so both have an address; were one ever without, the pairs
      // are hashed one at a time below.
      guard let base = output.baseAddress, let children = hashes.baseAddress else { return false }
      SHA256.nodeHashes(children, count: width, into: base)
      // Node `index` of the next level lands on bytes `32 * index`, which node `index` of this
      // level has already read (`nodeHashes` reads a pair's children before writing it).
      while width > 1 {
        width /= 2
        SHA256.nodeHashes(base, count: width, into: base)
      }
      return true
    }
    guard hashed else {
      var nodes = stride(from: 0, to: hashes.count, by: hashByteCount).map {
        Array(hashes[$0..<$0 + hashByteCount])
      }
      while nodes.count > 1 {
        nodes = stride(from: 0, to: nodes.count, by: 2).map { nodeHash(nodes[$0], nodes[$0 + 1]) }
      }
      return nodes[0]
    }
    return Array(level[0..<hashByteCount])
  }

  /// The root of the tree whose leaf hashes are `leafHashes`, all held in memory.
  public static func root(leafHashes: [[UInt8]]) -> [UInt8] {
    rangeHash(0, Int64(leafHashes.count)) { start, level in
      perfectHash(leafHashes[Int(start)..<Int(start) + (1 << level)])
    }
  }

  /// The inclusion proof of leaf `index` in the tree of `leafHashes`, all held in memory.
  public static func inclusionPath(index: Int64, leafHashes: [[UInt8]]) -> [[UInt8]] {
    inclusionPath(index: index, size: Int64(leafHashes.count)) { start, level in
      perfectHash(leafHashes[Int(start)..<Int(start) + (1 << level)])
    }
  }

  /// The consistency proof from the first `oldSize` of `leafHashes` to all of them.
  public static func consistencyPath(from oldSize: Int64, leafHashes: [[UInt8]]) -> [[UInt8]] {
    consistencyPath(from: oldSize, to: Int64(leafHashes.count)) { start, level in
      perfectHash(leafHashes[Int(start)..<Int(start) + (1 << level)])
    }
  }
}
