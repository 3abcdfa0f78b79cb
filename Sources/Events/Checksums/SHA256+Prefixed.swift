internal import CCRC32C

extension SHA256 {
  /// SHA-256(`prefix` ‖ `bytes`) written to the 32 bytes at `digest`, in one call to the C
  /// target and with no allocation: the Merkle tree's leaf hash (prefix 0x00 and a line) and
  /// node hash (prefix 0x01 and two hashes) on its hot path.
  /// - Parameters:
  ///   - prefix: The message's first byte.
  ///   - bytes: The rest of the message; may be empty.
  ///   - digest: Where the 32-byte digest goes; it is written once `bytes` has been read, so it
  ///     may overlap them.
  /// - Complexity: O(`bytes.count`).
  package static func hash(
    prefix: UInt8, _ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer
  ) {
    hash(prefix: prefix, bytes, into: digest, implementation: implementation)
  }

  /// `hash(prefix:_:into:)` with `implementation`'s code (tests compare the two).
  static func hash(
    prefix: UInt8, _ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer,
    implementation: Implementation
  ) {
    sha256_hash_prefixed(
      implementation == .portable ? 0 : 1, prefix, bytes.baseAddress, bytes.count,
      digest.assumingMemoryBound(to: UInt8.self))
  }

  /// SHA-256(`prefix` ‖ `bytes`): 32 bytes.
  package static func hash(prefix: UInt8, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: digestByteCount) { digest, count in
      hash(
        prefix: prefix, bytes, into: UnsafeMutableRawPointer(digest.baseAddress.unsafelyUnwrapped))
      count = digestByteCount
    }
  }
}

extension SHA256 {
  /// What `leafHashes` hashed: how many lines, how many of them start a tile, and the bytes
  /// they take with their `\n`s.
  package struct LeafHashCount: Sendable {
    package var lines: Int
    package var tileStarts: Int
    package var consumedBytes: Int
  }

  /// RFC 9162's leaf hashes, SHA-256(0x00 ‖ line), of the whole lines (each ending with `\n`,
  /// which is not hashed) at the start of `lines`, 32 bytes each at `digests`, for at most
  /// `capacity` lines; bytes after the last `\n` are left. Lines are numbered from
  /// `firstIndex`; the offset in `lines` of each whose number is a multiple of `tileWidth` goes
  /// to `tileStarts` (room for `capacity / tileWidth + 1`). One call to the C target for all of
  /// them, which hashes two lines at a time with the CPU's instructions.
  package static func leafHashes(
    of lines: UnsafeRawBufferPointer, firstIndex: Int64, tileWidth: Int64,
    into digests: UnsafeMutableRawPointer, capacity: Int, tileStarts: UnsafeMutablePointer<Int64>,
    implementation: Implementation = SHA256.implementation
  ) -> LeafHashCount {
    guard let base = lines.baseAddress, !lines.isEmpty, capacity > 0 else {
      return LeafHashCount(lines: 0, tileStarts: 0, consumedBytes: 0)
    }
    var tileStartCount = 0
    var consumed = 0
    let count = sha256_leaf_hashes(
      implementation == .portable ? 0 : 1, base, lines.count,
      digests.assumingMemoryBound(to: UInt8.self), capacity, UInt64(firstIndex),
      UInt64(tileWidth), tileStarts, &tileStartCount, &consumed)
    return LeafHashCount(lines: count, tileStarts: tileStartCount, consumedBytes: consumed)
  }

  /// RFC 9162's node hashes, SHA-256(0x01 ‖ left ‖ right), of `count` pairs of 32-byte hashes
  /// side by side at `children` (64 bytes a pair), to 32 bytes each at `parents`, which may be
  /// `children`: one level of a tree hashed over the one below, two nodes at a time with the
  /// CPU's instructions.
  package static func nodeHashes(
    _ children: UnsafeRawPointer, count: Int, into parents: UnsafeMutableRawPointer,
    implementation: Implementation = SHA256.implementation
  ) {
    sha256_node_hashes(implementation == .portable ? 0 : 1, children, count, parents)
  }
}
