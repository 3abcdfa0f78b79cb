internal import CCRC32C

/// SHA-256 as specified in FIPS 180-4.
///
/// Feed bytes with `update(_:)` in pieces of any size, then read the digest with `finalize()`.
/// The result does not depend on how the message was split:
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update("ab".utf8)
/// hasher.update("c".utf8)
/// SHA256.hex(hasher.finalize())  // "ba7816bf...f20015ad", the digest of "abc"
/// ```
///
/// The hasher holds no heap storage: copying it forks the computation, and `finalize()` works on
/// a copy, so it may be called at any point (for a running digest) and updating may go on after.
///
/// - Note: buffering, padding and the midstate are Swift; the compression function runs in the
///   package's small C target, with the CPU's SHA-256 instructions where it has them (the SHA
///   extensions of x86-64, the Armv8 SHA2 extension of arm64) and portable C otherwise. Which
///   one runs is decided once, at first use, and reported by ``implementation``; all give the
///   same digests.
public struct SHA256: Sendable {
  /// The digest's length in bytes.
  public static let digestByteCount = 32
  /// The length of one block of the compression function, in bytes.
  public static let blockByteCount = 64

  /// The intermediate hash value H(i) (FIPS 180-4 §6.2).
  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
  /// The bytes of an incomplete block, waiting for the rest of it; eight words for alignment.
  private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
  /// How many bytes of `pending` are in use (always less than a block).
  private var pendingCount: Int
  /// The message length so far, in bytes; FIPS 180-4 limits messages to 2^64 - 1 bits.
  private var messageByteCount: UInt64
  /// The compression code this hasher runs: `SHA256.implementation`, or the portable code when
  /// a test compares the two.
  private let compression: Implementation

  /// The code that computes the compression function on this machine.
  public enum Implementation: Sendable, Equatable, CustomStringConvertible {
    /// The SHA extensions of x86-64 (`sha256rnds2`, `sha256msg1`, `sha256msg2`).
    case x86SHA
    /// The SHA2 instructions of the Armv8 cryptographic extension (`sha256h`, `sha256su0`...).
    case arm64SHA2
    /// Portable C, for CPUs without the instructions.
    case portable

    /// A short name for reports, e.g. `"x86-64 SHA extensions"`.
    public var description: String {
      switch self {
      case .x86SHA: "x86-64 SHA extensions"
      case .arm64SHA2: "arm64 SHA2"
      case .portable: "portable C"
      }
    }
  }

  /// The implementation every hasher uses, detected once from the CPU at first use.
  public static let implementation: Implementation = {
    switch sha256_hardware_kind() {
    case SHA256_HARDWARE_X86_SHA: .x86SHA
    case SHA256_HARDWARE_ARMV8: .arm64SHA2
    default: .portable
    }
  }()

  /// Creates a hasher for an empty message.
  public init() {
    self.init(running: Self.implementation)
  }

  /// Creates a hasher that runs `implementation`'s compression code: `.portable` anywhere, the
  /// others only where `SHA256.implementation` is that one (elsewhere the CPU traps on them).
  init(implementation: Implementation) {
    precondition(
      implementation == .portable || implementation == Self.implementation,
      "this CPU has no \(implementation) instructions")
    self.init(running: implementation)
  }

  private init(running implementation: Implementation) {
    compression = implementation
    // FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the
    // first eight primes.
    state = (
      0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A,
      0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19
    )
    pending = (0, 0, 0, 0, 0, 0, 0, 0)
    pendingCount = 0
    messageByteCount = 0
  }

  /// Appends bytes to the message.
  /// - Parameter bytes: The next bytes of the message; may be empty.
  /// - Complexity: O(`bytes.count`).
  package mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var input = bytes.baseAddress, !bytes.isEmpty else { return }
    var remaining = bytes.count
    messageByteCount &+= UInt64(remaining)

    if pendingCount > 0 {
      let taken = min(Self.blockByteCount - pendingCount, remaining)
      let filled = pendingCount
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress.unsafelyUnwrapped.advanced(by: filled)
          .copyMemory(from: input, byteCount: taken)
      }
      pendingCount += taken
      input += taken
      remaining -= taken
      guard pendingCount == Self.blockByteCount else { return }
      compressPending()
    }

    let blockCount = remaining / Self.blockByteCount
    if blockCount > 0 {
      Self.compress(&state, blocks: input, count: blockCount, implementation: compression)
      input += blockCount * Self.blockByteCount
      remaining -= blockCount * Self.blockByteCount
    }

    if remaining > 0 {
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress.unsafelyUnwrapped.copyMemory(from: input, byteCount: remaining)
      }
      pendingCount = remaining
    }
  }

  /// Appends bytes to the message.
  /// - Parameter bytes: The next bytes of the message, e.g. `text.utf8` or a `[UInt8]`.
  /// - Complexity: O(`bytes.count`); contiguous collections are read in place.
  public mutating func update(_ bytes: some Collection<UInt8>) {
    let wasContiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      update(UnsafeRawBufferPointer(buffer))
    }
    guard wasContiguous == nil else { return }
    // Copy through a small stack buffer rather than materialising the whole collection.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { chunk in
      var count = 0
      for byte in bytes {
        chunk[count] = byte
        count += 1
        if count == chunk.count {
          update(UnsafeRawBufferPointer(chunk))
          count = 0
        }
      }
      update(UnsafeRawBufferPointer(start: chunk.baseAddress, count: count))
    }
  }

  /// The digest of the message so far: 32 bytes.
  ///
  /// The hasher itself is left as it was, so more bytes may be added afterwards and `finalize()`
  /// called again for the digest of the longer message.
  /// - Returns: The 32-byte SHA-256 digest, most significant byte first.
  public func finalize() -> [UInt8] {
    var copy = self
    copy.pad()
    let words = copy.state
    return [UInt8](unsafeUninitializedCapacity: Self.digestByteCount) { digest, count in
      withUnsafeBytes(of: words) { raw in
        for index in 0..<8 {
          let word = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
          withUnsafeBytes(of: word.bigEndian) { wordBytes in
            for byte in 0..<4 { digest[index * 4 + byte] = wordBytes[byte] }
          }
        }
      }
      count = Self.digestByteCount
    }
  }

  /// The hasher's whole state, 112 bytes: the eight words H(i), the pending partial block, its
  /// length and the message length, all little-endian. `init(midstate:)` resumes from it, so a
  /// digest of a growing file can go on from where an earlier one stopped without rereading
  /// what it covered (checkpoints use this). The partial block's bytes past its length are
  /// written as zeros, so that one state has one midstate however its input was split.
  public var midstate: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.midstateByteCount)
    withUnsafeBytes(of: state) { raw in
      for index in 0..<8 {
        let word = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
      }
    }
    withUnsafeBytes(of: pending) { bytes.append(contentsOf: $0[..<pendingCount]) }
    bytes.append(contentsOf: repeatElement(0, count: Self.blockByteCount - pendingCount))
    withUnsafeBytes(of: UInt64(pendingCount).littleEndian) { bytes.append(contentsOf: $0) }
    withUnsafeBytes(of: messageByteCount.littleEndian) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// The length of `midstate`.
  public static let midstateByteCount = 32 + 64 + 8 + 8

  /// Resumes a hasher from its `midstate`; `nil` when `bytes` is not a valid one.
  public init?(midstate bytes: [UInt8]) {
    self.init(midstate: bytes, implementation: Self.implementation)
  }

  /// Resumes a hasher from its `midstate`, running `implementation`'s compression code.
  init?(midstate bytes: [UInt8], implementation: Implementation) {
    guard bytes.count == Self.midstateByteCount else { return nil }
    self.init(implementation: implementation)
    func word64(_ offset: Int) -> UInt64 {
      var value: UInt64 = 0
      for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
      return value
    }
    func word32(_ offset: Int) -> UInt32 {
      var value: UInt32 = 0
      for index in (0..<4).reversed() { value = value << 8 | UInt32(bytes[offset + index]) }
      return value
    }
    state = (
      word32(0), word32(4), word32(8), word32(12), word32(16), word32(20), word32(24), word32(28)
    )
    withUnsafeMutableBytes(of: &pending) { raw in
      for index in 0..<64 { raw[index] = bytes[32 + index] }
    }
    let count = word64(96)
    guard count < 64 else { return nil }
    pendingCount = Int(count)
    messageByteCount = word64(104)
    guard messageByteCount % 64 == count else { return nil }
  }

  /// The SHA-256 digest of `bytes`.
  /// - Parameter bytes: The whole message, e.g. `text.utf8` or a `[UInt8]`.
  /// - Returns: The 32-byte digest.
  public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var hasher = SHA256()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// The SHA-256 digest of the bytes in `buffer`.
  /// - Parameter buffer: The whole message.
  /// - Returns: The 32-byte digest.
  package static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
    var hasher = SHA256()
    hasher.update(buffer)
    return hasher.finalize()
  }

  // MARK: Hex

  /// Renders bytes (typically a digest) as lowercase hexadecimal, two digits per byte.
  /// - Parameter digest: The bytes to render.
  /// - Returns: `2 * digest.count` characters from `0-9a-f`.
  public static func hex(_ digest: [UInt8]) -> String {
    var text: [UInt8] = []
    text.reserveCapacity(digest.count * 2)
    appendHex(digest, to: &text)
    return String(decoding: text, as: UTF8.self)
  }

  /// Appends `hex(digest)`'s bytes to `bytes`.
  public static func appendHex(_ digest: [UInt8], to bytes: inout [UInt8]) {
    let digits: StaticString = "0123456789abcdef"
    for byte in digest {
      bytes.append(digits.utf8Start[Int(byte >> 4)])
      bytes.append(digits.utf8Start[Int(byte & 0x0F)])
    }
  }

  /// Parses hexadecimal text (either case) back into bytes, the inverse of `hex(_:)`.
  /// - Parameter text: An even number of hex digits and nothing else.
  /// - Returns: The bytes, or `nil` if `text` has an odd length or a character that is not a
  ///   hex digit. Check `count == SHA256.digestByteCount` where a digest is expected.
  public static func bytes(fromHex text: some StringProtocol) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
      guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  // MARK: Padding and compression

  private mutating func compressPending() {
    withUnsafeBytes(of: pending) { block in
      Self.compress(
        &state, blocks: block.baseAddress.unsafelyUnwrapped, count: 1, implementation: compression)
    }
    pendingCount = 0
  }

  /// Pads the message (FIPS 180-4 §5.1.1) and processes the last block or two.
  private mutating func pad() {
    let bitCount = messageByteCount &* 8
    let used = pendingCount
    // The pending block always has room for the 0x80 marker: it is never full.
    withUnsafeMutableBytes(of: &pending) { block in
      block[used] = 0x80
      for index in (used + 1)..<Self.blockByteCount { block[index] = 0 }
    }
    if used >= Self.blockByteCount - 8 {
      // No room left for the 64-bit length: it goes into a block of its own.
      compressPending()
      pending = (0, 0, 0, 0, 0, 0, 0, 0)
    }
    pending.7 = bitCount.bigEndian
    compressPending()
  }

  /// Runs the compression function over `count` consecutive 64-byte blocks (FIPS 180-4 §6.2.2),
  /// with the CPU's SHA-256 instructions when `implementation` has them.
  private static func compress(
    _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
    blocks: UnsafeRawPointer, count: Int, implementation: Implementation
  ) {
    withUnsafeMutableBytes(of: &state) { raw in
      // A tuple of eight `UInt32`s is laid out as eight consecutive words: H0...H7.
      let words = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt32.self)
      if implementation == .portable {
        sha256_compress_portable(words, blocks, count)
      } else {
        sha256_compress_hardware(words, blocks, count)
      }
    }
  }
}
