import Events

extension MerkleTree {
  /// Checks an inclusion proof (RFC 9162 §2.1.3.2): that the leaf hash `leafHash` at index
  /// `index` is in the tree of `size` leaves whose root is `root`.
  /// - Throws: `TreeError.mismatch` naming what does not hold (the index outside the tree, a
  ///   path of the wrong length, or the root the path leads to, with both hashes);
  ///   `.invalidInput` when a hash is not 32 bytes.
  public static func verifyInclusion(
    leafHash: [UInt8], index: Int64, size: Int64, path: [[UInt8]], root: [UInt8]
  ) throws(TreeError) {
    try requireHashes([leafHash, root] + path)
    guard index >= 0, index < size else {
      throw .mismatch(
        problem: "inclusion proof: leaf index \(index) is outside a tree of \(size) leaves")
    }
    var computed = leafHash
    try climb(
      path, from: index, last: size - 1, proof: "inclusion proof", hashCount: path.count,
      needs: "a tree of \(size) leaves needs for leaf \(index)"
    ) { sibling, isLeft in
      computed = isLeft ? nodeHash(sibling, computed) : nodeHash(computed, sibling)
    }
    guard computed == root else {
      throw .mismatch(
        problem: "inclusion proof: the path from leaf \(index) leads to root "
          + "\(SHA256.hex(computed)), not to the tree's root \(SHA256.hex(root)) of size \(size)")
    }
  }

  /// Checks a consistency proof (RFC 9162 §2.1.4.2): that the tree of `oldSize` leaves with
  /// root `oldRoot` is a prefix of the tree of `newSize` leaves with root `newRoot`.
  /// - Throws: `TreeError.mismatch` naming what does not hold; `.invalidInput` when a hash is
  ///   not 32 bytes.
  public static func verifyConsistency(
    oldSize: Int64, newSize: Int64, oldRoot: [UInt8], newRoot: [UInt8], path: [[UInt8]]
  ) throws(TreeError) {
    try requireHashes([oldRoot, newRoot] + path)
    guard oldSize >= 1 else {
      throw .mismatch(
        problem: "consistency proof: from size \(oldSize); a tree of no leaves is a prefix of "
          + "every tree, so there is nothing to prove")
    }
    guard oldSize <= newSize else {
      throw .mismatch(
        problem: "consistency proof: the old size \(oldSize) is larger than the new size "
          + "\(newSize): a log only grows")
    }
    if oldSize == newSize {
      guard path.isEmpty else {
        throw .mismatch(
          problem: "consistency proof: \(path.count) hashes between trees of the same size "
            + "\(oldSize), which need none")
      }
      guard oldRoot == newRoot else {
        throw .mismatch(
          problem: "consistency proof: two trees of size \(oldSize) with different roots "
            + "\(SHA256.hex(oldRoot)) and \(SHA256.hex(newRoot))")
      }
      return
    }
    guard !path.isEmpty else {
      throw .mismatch(
        problem: "consistency proof: no hashes, but size \(oldSize) to \(newSize) needs some")
    }
    var hashes = path
    if oldSize & (oldSize - 1) == 0 { hashes.insert(oldRoot, at: 0) }
    var (oldBits, newBits) = (oldSize - 1, newSize - 1)
    while oldBits & 1 == 1 {
      oldBits >>= 1
      newBits >>= 1
    }
    var (oldComputed, newComputed) = (hashes[0], hashes[0])
    // The old tree's root is on the path's left siblings alone; the new tree's on all of them.
    try climb(
      hashes.dropFirst(), from: oldBits, last: newBits, proof: "consistency proof",
      hashCount: path.count, needs: "size \(oldSize) to \(newSize) needs"
    ) { hash, isLeft in
      if isLeft { oldComputed = nodeHash(hash, oldComputed) }
      newComputed = isLeft ? nodeHash(hash, newComputed) : nodeHash(newComputed, hash)
    }
    try requireRoot(oldComputed, equals: oldRoot, size: oldSize, which: "old")
    try requireRoot(newComputed, equals: newRoot, size: newSize, which: "new")
  }

  /// Throws unless the root a consistency proof's path leads to for `size` is `root`, the
  /// `which` ("old" or "new") tree's.
  private static func requireRoot(
    _ computed: [UInt8], equals root: [UInt8], size: Int64, which: String
  ) throws(TreeError) {
    guard computed == root else {
      throw .mismatch(
        problem: "consistency proof: the path leads to root \(SHA256.hex(computed)) for "
          + "size \(size), not to the \(which) root \(SHA256.hex(root))")
    }
  }

  /// Walks an audit path up the tree from node `node` of a level whose last node is `last`
  /// (RFC 9162's `fn` and `sn`, shared by both checks): `combine` gets each hash and whether
  /// it is the left sibling, and the levels where the node has no sibling are skipped.
  /// - Throws: `TreeError.mismatch` when the path has more hashes than the tree has levels
  ///   above the node, or too few to reach the root: "<proof>: <hashCount> hashes, more than
  ///   <needs>".
  private static func climb(
    _ path: some Sequence<[UInt8]>, from node: Int64, last: Int64, proof: String,
    hashCount: Int, needs: @autoclosure () -> String,
    combine: (_ hash: [UInt8], _ isLeft: Bool) -> Void
  ) throws(TreeError) {
    var (node, last) = (node, last)
    for hash in path {
      guard last != 0 else {
        throw .mismatch(problem: "\(proof): \(hashCount) hashes, more than \(needs())")
      }
      let isLeft = node & 1 == 1 || node == last
      combine(hash, isLeft)
      if isLeft {
        while node & 1 == 0 && node != 0 {
          node >>= 1
          last >>= 1
        }
      }
      node >>= 1
      last >>= 1
    }
    guard last == 0 else {
      throw .mismatch(problem: "\(proof): \(hashCount) hashes, fewer than \(needs())")
    }
  }

  private static func requireHashes(_ hashes: [[UInt8]]) throws(TreeError) {
    for hash in hashes where hash.count != hashByteCount {
      throw .invalidInput(
        problem: "a tree hash must be \(hashByteCount) bytes; found one of \(hash.count)")
    }
  }
}
