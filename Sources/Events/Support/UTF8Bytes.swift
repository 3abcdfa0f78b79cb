/// Byte-wise comparison of UTF-8 text, eight bytes at a time: ids are short, and a call to
/// `memcmp` costs more than comparing them here.
@usableFromInline
enum UTF8Bytes {
  /// Whether the two buffers hold the same bytes.
  @inlinable @inline(__always)
  static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var offset = 0
    while offset + 8 <= lhs.count {
      let left = lhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
      if left != rhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
      offset += 8
    }
    while offset < lhs.count {
      if lhs[offset] != rhs[offset] { return false }
      offset += 1
    }
    return true
  }

  /// Whether the two texts have the same UTF-8 bytes.
  @inlinable
  static func equal(_ lhs: String, _ rhs: String) -> Bool {
    var lhs = lhs
    var rhs = rhs
    return lhs.withUTF8 { left in
      rhs.withUTF8 { equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer($0)) }
    }
  }

  /// Negative, zero or positive as `lhs`'s UTF-8 bytes sort before, equal or after `rhs`'s.
  @inlinable
  static func compare(_ lhs: String, _ rhs: String) -> Int {
    var lhs = lhs
    var rhs = rhs
    return lhs.withUTF8 { left in
      rhs.withUTF8 { right in
        for offset in 0..<min(left.count, right.count) where left[offset] != right[offset] {
          return left[offset] < right[offset] ? -1 : 1
        }
        return left.count - right.count
      }
    }
  }
}
