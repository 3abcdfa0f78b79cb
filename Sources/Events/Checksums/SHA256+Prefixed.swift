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
