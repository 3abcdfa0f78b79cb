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
