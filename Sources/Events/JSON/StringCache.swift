/// Remembers the `String`s made from short byte sequences, so that replay, which decodes the
/// same ids, codes and names over and over, makes each one once.
///
/// A fixed-size, direct-mapped table: a string of up to 16 bytes is looked up by its bytes
/// (two words and a length) and, on a miss, made and stored over whatever held its slot. A hit
/// costs a few word comparisons instead of UTF-8 validation and string construction.
///
/// Not thread-safe: one per decoding thread (the replay keeps one for its decoding loop).
public final class StringCache {
  /// The longest string the cache keeps, in bytes.
  public static let maximumLength = 16

  @usableFromInline let slotCount: Int
  @usableFromInline let lengths: UnsafeMutablePointer<UInt8>
  @usableFromInline let words: UnsafeMutablePointer<UInt64>
  @usableFromInline let strings: UnsafeMutablePointer<String>

  /// Creates an empty cache of `slotCount` slots (a power of two).
  public init(slotCount: Int = 1 << 15) {
    precondition(
      slotCount > 0 && slotCount & (slotCount - 1) == 0, "slot count must be a power of two")
    self.slotCount = slotCount
    lengths = .allocate(capacity: slotCount)
    lengths.initialize(repeating: 0xFF, count: slotCount)
    words = .allocate(capacity: slotCount * 2)
    words.initialize(repeating: 0, count: slotCount * 2)
    strings = .allocate(capacity: slotCount)
    strings.initialize(repeating: "", count: slotCount)
  }

  deinit {
    lengths.deallocate()
    words.deallocate()
    strings.deinitialize(count: slotCount)
    strings.deallocate()
  }

  /// The string of the `count` bytes at `bytes`, valid UTF-8 or repaired as `String(decoding:)`
  /// does.
  /// - Precondition: `count <= 16`, and 16 bytes from `bytes` are readable (the cursor checks).
  @inlinable
  package func string(_ bytes: UnsafePointer<UInt8>, count: Int) -> String {
    let raw = UnsafeRawPointer(bytes)
    var first = raw.loadUnaligned(as: UInt64.self)
    var second = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    // Keep only the string's own bytes (little-endian: the low bytes come first).
    if count < 8 {
      first &= (1 << UInt64(8 * count)) &- 1
      second = 0
    } else if count < 16 {
      second &= (1 << UInt64(8 * (count - 8))) &- 1
    }
    let hash = (first &* 0x9E37_79B9_7F4A_7C15) ^ (second &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(count)
    let slot = Int(truncatingIfNeeded: (hash ^ (hash >> 29)) & UInt64(slotCount - 1))
    if lengths[slot] == UInt8(count), words[2 * slot] == first, words[2 * slot + 1] == second {
      return strings[slot]
    }
    let made = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    lengths[slot] = UInt8(count)
    words[2 * slot] = first
    words[2 * slot + 1] = second
    strings[slot] = made
    return made
  }
}
