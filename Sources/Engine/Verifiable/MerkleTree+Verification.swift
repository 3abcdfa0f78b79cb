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
    var (indexBits, lastBits) = (index, size - 1)
    var computed = leafHash
    for sibling in path {
      guard lastBits != 0 else {
        throw .mismatch(
          problem: "inclusion proof: \(path.count) hashes, more than a tree of \(size) leaves "
            + "needs for leaf \(index)")
      }
      if indexBits & 1 == 1 || indexBits == lastBits {
        computed = nodeHash(sibling, computed)
        while indexBits & 1 == 0 && indexBits != 0 {
          indexBits >>= 1
          lastBits >>= 1
        }
      } else {
        computed = nodeHash(computed, sibling)
      }
      indexBits >>= 1
      lastBits >>= 1
    }
    guard lastBits == 0 else {
      throw .mismatch(
        problem: "inclusion proof: \(path.count) hashes, fewer than a tree of \(size) leaves "
          + "needs for leaf \(index)")
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
    for hash in hashes.dropFirst() {
      guard newBits != 0 else {
        throw .mismatch(
          problem: "consistency proof: \(path.count) hashes, more than size \(oldSize) to "
            + "\(newSize) needs")
      }
      if oldBits & 1 == 1 || oldBits == newBits {
        oldComputed = nodeHash(hash, oldComputed)
        newComputed = nodeHash(hash, newComputed)
        while oldBits & 1 == 0 && oldBits != 0 {
          oldBits >>= 1
          newBits >>= 1
        }
      } else {
        newComputed = nodeHash(newComputed, hash)
      }
      oldBits >>= 1
      newBits >>= 1
    }
    guard newBits == 0 else {
      throw .mismatch(
        problem: "consistency proof: \(path.count) hashes, fewer than size \(oldSize) to "
          + "\(newSize) needs")
    }
    guard oldComputed == oldRoot else {
      throw .mismatch(
        problem: "consistency proof: the path leads to root \(SHA256.hex(oldComputed)) for "
          + "size \(oldSize), not to the old root \(SHA256.hex(oldRoot))")
    }
    guard newComputed == newRoot else {
      throw .mismatch(
        problem: "consistency proof: the path leads to root \(SHA256.hex(newComputed)) for "
          + "size \(newSize), not to the new root \(SHA256.hex(newRoot))")
    }
  }

  private static func requireHashes(_ hashes: [[UInt8]]) throws(TreeError) {
    for hash in hashes where hash.count != hashByteCount {
      throw .invalidInput(
        problem: "a tree hash must be \(hashByteCount) bytes; found one of \(hash.count)")
    }
  }
}
