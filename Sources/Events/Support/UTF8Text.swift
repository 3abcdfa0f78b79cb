/// Text made from bytes that should be UTF-8: ASCII, by far the commonest, is found eight bytes
/// at a time and made with `String(decoding:)`, the stdlib's fastest path; the generic
/// `String(validating:)` (a metadata lookup a call) only checks the rest.
///
/// - Note: SPI (`@_spi(Tables) import Events`), for the checkpoint reader and the key store.
@_spi(Tables)
public enum UTF8Text {
  /// Whether every byte is below 0x80.
  @inlinable @inline(__always)
  public static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    var high: UInt64 = 0
    while index + 8 <= bytes.count {
      high |= base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      index += 8
    }
    while index < bytes.count {
      high |= UInt64(bytes[index])
      index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
  }

  /// Whether `bytes` are valid UTF-8.
  @inlinable @inline(__always)
  public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil
  }

  /// `bytes` as a `String`, or `nil` when they are not valid UTF-8.
  @inlinable @inline(__always)
  public static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
    isASCII(bytes)
      ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
  }
}
