import Synchronization

/// An event's identity: a UUID, written in the log as 36 lowercase characters
/// (`8-4-4-4-12` hex digits).
///
/// Stored as two 64-bit words so that the writer's idempotency index hashes and compares it
/// cheaply. Parsing accepts either case; the log always holds the lowercase form.
public struct EventID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The first 8 bytes, big-endian.
  public var high: UInt64
  /// The last 8 bytes, big-endian.
  public var low: UInt64

  /// Creates an id from its two big-endian halves.
  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// Creates an id from 16 bytes (a UUID's wire form); `nil` if `bytes` is not 16 long.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 16 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for (index, byte) in bytes.enumerated() {
      if index < 8 {
        high = high << 8 | UInt64(byte)
      } else {
        low = low << 8 | UInt64(byte)
      }
    }
    self.init(high: high, low: low)
  }

  /// Parses the 36-character text form; `nil` if it is not one.
  public init?(_ text: String) {
    var text = text
    guard let id = text.withUTF8({ EventID(utf8: $0) }) else { return nil }
    self = id
  }

  /// Parses the 36-character text form from UTF-8 bytes; `nil` if they are not one.
  @inlinable
  package init?(utf8: UnsafeBufferPointer<UInt8>) {
    guard utf8.count == 36, let base = utf8.baseAddress, base[8] == 0x2D, base[13] == 0x2D,
      base[18] == 0x2D, base[23] == 0x2D
    else { return nil }
    // Every writer open and every `verify` parse every id in the log: eight digits at a time,
    // as words (a table lookup per digit took about 400 instructions an id).
    let raw = UnsafeRawPointer(base)
    @inline(__always) func word(at offset: Int) -> UInt64 {
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    @inline(__always) func halves(_ first: Int, _ second: Int) -> UInt64 {
      UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: first, as: UInt32.self)))
        | UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: second, as: UInt32.self)))
        << 32
    }
    guard let a = Self.hexValue(word(at: 0)), let b = Self.hexValue(halves(9, 14)),
      let c = Self.hexValue(halves(19, 24)), let d = Self.hexValue(word(at: 28))
    else { return nil }
    self.init(high: a << 32 | b, low: c << 32 | d)
  }

  /// The value of eight lowercase hex digits, the first in the lowest byte of `word`; `nil` if
  /// any byte is not one: the key store's form (`hexValue` with `lowercaseOnly`).
  @_spi(Tables) @inlinable
  public static func lowercaseHexValue(_ word: UInt64) -> UInt64? {
    hexValue(word, lowercaseOnly: true)
  }

  /// The value of eight hex digits (either case, or lowercase only), the first in the lowest
  /// byte of `word`; `nil` if any byte is not a hex digit.
  @inlinable
  static func hexValue(_ word: UInt64, lowercaseOnly: Bool = false) -> UInt64? {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    // For bytes below 0x80, `byte + (0x80 - low)` has its top bit set when byte >= low, and
    // `byte + (0x7F - high)` has it clear when byte <= high; neither carries into the next byte.
    @inline(__always) func inRange(_ word: UInt64, _ low: UInt64, _ high: UInt64) -> UInt64 {
      (word &+ ones &* (0x80 - low)) & ~(word &+ ones &* (0x7F - high)) & highs
    }
    guard word & highs == 0 else { return nil }
    let digits = inRange(word, 0x30, 0x39)
    // `| 0x20` folds A-F onto a-f and moves no other byte into a-f.
    let letters = inRange(lowercaseOnly ? word : word | 0x2020_2020_2020_2020, 0x61, 0x66)
    guard digits | letters == highs else { return nil }
    // Each byte's value: its low four bits, plus 9 for a letter.
    var value = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ (letters >> 7) &* 9
    // The first digit is the most significant: gather the nibbles from the other end.
    value = value.byteSwapped
    value = (value | value >> 4) & 0x00FF_00FF_00FF_00FF
    value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
    return (value | value >> 16) & 0xFFFF_FFFF
  }

  /// A random (version 4) id.
  public static func random(using generator: inout some RandomNumberGenerator) -> EventID {
    var high = generator.next() as UInt64
    var low = generator.next() as UInt64
    high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
    low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 9562 variant
    return EventID(high: high, low: low)
  }

  /// A random (version 4) id from the system's secure random source, drawn from a buffer of
  /// its bytes (one system call per 256 ids, not two per id).
  public static func random() -> EventID {
    var generator = RandomWords.Generator()
    return random(using: &generator)
  }

  /// A version 8 (custom) id made from the first 16 bytes of a digest, for ids that must be the
  /// same every time they are derived from the same name (importers, seeded generators).
  @inlinable
  public static func derived(fromDigest digest: some Collection<UInt8>) -> EventID {
    // Read in place (specialised for the caller's collection): a copied prefix cost more than
    // the rest of an import's id.
    var high: UInt64 = 0
    var low: UInt64 = 0
    var count = 0
    for byte in digest.prefix(16) {
      if count < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
      count += 1
    }
    // Short digests are padded with zeros.
    for index in count..<16 {
      if index < 8 { high <<= 8 } else { low <<= 8 }
    }
    high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000  // version 8
    low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
    return EventID(high: high, low: low)
  }

  /// A version 8 id made from the SHA-256 digest of `name`'s UTF-8 bytes: the same name always
  /// gives the same id, so re-running an import appends nothing twice.
  /// - Parameter name: Any text that names the event uniquely, e.g. `import:contacts.csv:42`.
  /// - Returns: `derived(fromDigest: SHA256.hash(name.utf8))`.
  public static func derived(fromName name: String) -> EventID {
    derived(fromDigest: SHA256.hash(name.utf8))
  }

  /// Appends the 36-character lowercase form to `bytes` (8-4-4-4-12 hex digits).
  @inlinable
  public func appendText(to bytes: inout [UInt8]) {
    withUnsafeTemporaryAllocation(byteCount: 36, alignment: 8) { text in
      if let base = text.baseAddress { writeText(to: base) }
      bytes.append(contentsOf: UnsafeRawBufferPointer(text))
    }
  }

  /// Writes the 36-character lowercase form at `text` (36 writable bytes, any alignment).
  @inlinable
  package func writeText(to text: UnsafeMutableRawPointer) {
    let first = Self.hexDigits(UInt32(truncatingIfNeeded: high >> 32))
    let second = Self.hexDigits(UInt32(truncatingIfNeeded: high))
    let third = Self.hexDigits(UInt32(truncatingIfNeeded: low >> 32))
    let fourth = Self.hexDigits(UInt32(truncatingIfNeeded: low))
    text.storeBytes(of: first, toByteOffset: 0, as: UInt64.self)
    text.storeBytes(of: 0x2D, toByteOffset: 8, as: UInt8.self)
    text.storeBytes(of: UInt32(truncatingIfNeeded: second), toByteOffset: 9, as: UInt32.self)
    text.storeBytes(of: 0x2D, toByteOffset: 13, as: UInt8.self)
    text.storeBytes(
      of: UInt32(truncatingIfNeeded: second >> 32), toByteOffset: 14, as: UInt32.self)
    text.storeBytes(of: 0x2D, toByteOffset: 18, as: UInt8.self)
    text.storeBytes(of: UInt32(truncatingIfNeeded: third), toByteOffset: 19, as: UInt32.self)
    text.storeBytes(of: 0x2D, toByteOffset: 23, as: UInt8.self)
    text.storeBytes(
      of: UInt32(truncatingIfNeeded: third >> 32), toByteOffset: 24, as: UInt32.self)
    text.storeBytes(of: fourth, toByteOffset: 28, as: UInt64.self)
  }

  /// The 8 lowercase hex digits of `value`, most significant first, as the bytes of a
  /// little-endian word (the first digit in the lowest byte): each nibble spread to a byte,
  /// then `0`-`9` or `a`-`f` added to all eight at once.
  @inlinable @inline(__always)
  public static func hexDigits(_ value: UInt32) -> UInt64 {
    var spread = UInt64(value)
    spread = (spread | (spread << 16)) & 0x0000_FFFF_0000_FFFF
    spread = (spread | (spread << 8)) & 0x00FF_00FF_00FF_00FF
    spread = (spread | (spread << 4)) & 0x0F0F_0F0F_0F0F_0F0F
    // Most significant nibble in the highest byte: swap so that it is written first.
    let nibbles = spread.byteSwapped
    let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
    return (nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27).littleEndian
  }

  /// The 36-character lowercase form.
  public var description: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(36)
    appendText(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  public static func < (lhs: EventID, rhs: EventID) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }
}

/// Words from the system's secure random source, read 4 KiB at a time and handed out once each.
/// Falls back to `SystemRandomNumberGenerator` if the source fails.
enum RandomWords {
  private static let pool = Mutex<(words: [UInt64], next: Int)>(([], 0))

  /// Draws from the shared buffer.
  struct Generator: RandomNumberGenerator {
    mutating func next() -> UInt64 { RandomWords.next() }
  }

  static func next() -> UInt64 {
    pool.withLock { pool in
      if pool.next == pool.words.count {
        var words = [UInt64](repeating: 0, count: 512)
        let filled = words.withUnsafeMutableBytes { buffer in
          (try? SecureRandom.fill(buffer)) != nil
        }
        if !filled {
          var system = SystemRandomNumberGenerator()
          for index in words.indices { words[index] = system.next() }
        }
        pool = (words, 0)
      }
      let word = pool.words[pool.next]
      // A word handed out is not kept.
      pool.words[pool.next] = 0
      pool.next += 1
      return word
    }
  }
}
