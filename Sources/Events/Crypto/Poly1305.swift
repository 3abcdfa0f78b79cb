/// The Poly1305 one-time authenticator of RFC 8439 §2.5: a 32-byte one-time key `(r, s)` and a
/// message give a 16-byte tag, `((Σ blockᵢ · r^(n−i+1)) mod 2¹³⁰−5) + s mod 2¹²⁸`.
///
/// The 130-bit accumulator and `r` are held in three limbs of 44, 44 and 42 bits, so a block
/// costs nine 64 × 64 → 128-bit products; the code has no data-dependent branches or table
/// lookups (constant time in the key and message), and allocates nothing. Feed the message with
/// ``update(_:)`` in pieces of any size, then call ``finalize()``.
///
/// Internal: ``ChaCha20Poly1305`` derives a fresh key per message, as the authenticator requires;
/// a key must never authenticate two messages.
struct Poly1305 {
  /// The length of a key, in bytes.
  static let keyByteCount = 32
  /// The length of a tag, in bytes.
  static let tagByteCount = 16
  /// The length of a message block, in bytes.
  static let blockByteCount = 16

  private static let mask44: UInt64 = (1 << 44) - 1
  private static let mask42: UInt64 = (1 << 42) - 1

  /// `r`, clamped, in limbs of 44, 44 and 42 bits.
  private let r: (UInt64, UInt64, UInt64)
  /// `20 · r1` and `20 · r2`: limbs past 2¹³⁰ wrap round times 5, and the limbs' 44-bit steps
  /// leave a further factor of 4 (2¹³² = 4 · 2¹³⁰).
  private let r20: (UInt64, UInt64)
  /// `s`, added at the end, as two little-endian words.
  private let s: (UInt64, UInt64)
  /// The accumulator, in three limbs (partially reduced: a limb may carry a few bits more).
  private var h: (UInt64, UInt64, UInt64) = (0, 0, 0)
  /// Bytes of an incomplete block, waiting for the rest.
  private var pending: (UInt64, UInt64) = (0, 0)
  /// How many bytes of `pending` are in use (always less than a block).
  private var pendingCount = 0

  /// An authenticator for one message under a one-time key.
  /// - Precondition: `key` holds 32 bytes.
  init(key: UnsafeRawBufferPointer) {
    precondition(key.count == Self.keyByteCount, "Poly1305 needs a 32-byte key")
    func word(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: key.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    // Clamping (§2.5): r &= 0x0ffffffc0ffffffc0ffffffc0fffffff, cut into 44, 44 and 42 bits.
    let (t0, t1) = (word(0), word(8))
    let r0 = t0 & 0xFFC_0FFF_FFFF
    let r1 = ((t0 >> 44) | (t1 << 20)) & 0xFFF_FFC0_FFFF
    let r2 = (t1 >> 24) & 0x00F_FFFF_FC0F
    r = (r0, r1, r2)
    r20 = (r1 * 20, r2 * 20)
    s = (word(16), word(24))
  }

  /// Adds message bytes.
  /// - Parameter bytes: The next bytes of the message; may be empty.
  /// - Complexity: O(`bytes.count`).
  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var input = bytes.baseAddress, !bytes.isEmpty else { return }
    var remaining = bytes.count
    if pendingCount > 0 {
      let taken = min(Self.blockByteCount - pendingCount, remaining)
      let filled = pendingCount
      withUnsafeMutableBytes(of: &pending) { block in
        guard let base = block.baseAddress else { return }
        (base + filled).copyMemory(from: input, byteCount: taken)
      }
      pendingCount += taken
      input += taken
      remaining -= taken
      guard pendingCount == Self.blockByteCount else { return }
      var block = pending
      withUnsafeBytes(of: &block) { bytes in
        guard let base = bytes.baseAddress else { return }
        absorb(base, blocks: 1, final: false)
      }
      pendingCount = 0
    }
    let blocks = remaining / Self.blockByteCount
    if blocks > 0 {
      absorb(input, blocks: blocks, final: false)
      input += blocks * Self.blockByteCount
      remaining -= blocks * Self.blockByteCount
    }
    if remaining > 0 {
      let count = remaining
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress?.copyMemory(from: input, byteCount: count)
      }
      pendingCount = count
    }
  }

  /// Adds zero bytes up to the next multiple of 16 bytes of message, if not already there: the
  /// `pad16` of the AEAD construction (RFC 8439 §2.8), without copying zeros around.
  mutating func padToBlock() {
    guard pendingCount > 0 else { return }
    var block = pending
    withUnsafeMutableBytes(of: &block) { bytes in
      for index in pendingCount..<Self.blockByteCount { bytes[index] = 0 }
      guard let base = bytes.baseAddress else { return }
      absorb(UnsafeRawPointer(base), blocks: 1, final: false)
    }
    pendingCount = 0
  }

  /// The tag of the message so far: 16 bytes, `h + s mod 2¹²⁸`, little-endian.
  /// - Returns: The tag as two little-endian words (bytes 0–7 and 8–15).
  func finalize() -> (UInt64, UInt64) {
    var copy = self
    if copy.pendingCount > 0 {
      // The last, short block: its bytes, then 0x01, then zeros; no 2¹²⁸ bit.
      var block = copy.pending
      let count = copy.pendingCount
      withUnsafeMutableBytes(of: &block) { bytes in
        bytes[count] = 1
        for index in (count + 1)..<Self.blockByteCount { bytes[index] = 0 }
        guard let base = bytes.baseAddress else { return }
        copy.absorb(UnsafeRawPointer(base), blocks: 1, final: true)
      }
    }
    return copy.tag()
  }

  /// The one-shot tag of `message` under `key` (RFC 8439 §2.5.1's `poly1305_mac`).
  static func authenticate(_ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer)
    -> (UInt64, UInt64)
  {
    var authenticator = Poly1305(key: key)
    authenticator.update(message)
    return authenticator.finalize()
  }

  /// Runs `h = (h + block) · r mod 2¹³⁰−5` over `blocks` whole blocks at `input`. `final` marks
  /// the already-padded short last block, which gets no 2¹²⁸ bit.
  private mutating func absorb(_ input: UnsafeRawPointer, blocks: Int, final: Bool) {
    let (mask44, mask42) = (Self.mask44, Self.mask42)
    let highBit: UInt64 = final ? 0 : 1 << 40
    let (r0, r1, r2) = (UInt128(r.0), UInt128(r.1), UInt128(r.2))
    let (s1, s2) = (UInt128(r20.0), UInt128(r20.1))
    var (h0, h1, h2) = h
    var block = input
    for _ in 0..<blocks {
      let t0 = UInt64(littleEndian: block.loadUnaligned(as: UInt64.self))
      let t1 = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      h0 &+= t0 & mask44
      h1 &+= ((t0 >> 44) | (t1 << 20)) & mask44
      h2 &+= ((t1 >> 24) & mask42) | highBit

      let (a0, a1, a2) = (UInt128(h0), UInt128(h1), UInt128(h2))
      // Schoolbook product; limbs past 2¹³⁰ wrap round (the s-terms). Each sum stays far below
      // 2¹²⁸: products of 46-bit limbs by 49-bit multipliers.
      let d0 = a0 &* r0 &+ a1 &* s2 &+ a2 &* s1
      var d1 = a0 &* r1 &+ a1 &* r0 &+ a2 &* s2
      var d2 = a0 &* r2 &+ a1 &* r1 &+ a2 &* r0

      // Partial reduction: carry each limb into the next, the top one back round times 5.
      h0 = UInt64(truncatingIfNeeded: d0) & mask44
      d1 &+= d0 >> 44
      h1 = UInt64(truncatingIfNeeded: d1) & mask44
      d2 &+= d1 >> 44
      h2 = UInt64(truncatingIfNeeded: d2) & mask42
      let carry = UInt64(truncatingIfNeeded: d2 >> 42)
      h0 &+= carry &* 5
      h1 &+= h0 >> 44
      h0 &= mask44

      block += Self.blockByteCount
    }
    h = (h0, h1, h2)
  }

  /// Fully reduces `h` mod 2¹³⁰−5 (in constant time), adds `s` and serialises the low 128 bits.
  private func tag() -> (UInt64, UInt64) {
    let (mask44, mask42) = (Self.mask44, Self.mask42)
    var (h0, h1, h2) = h
    var carry: UInt64
    // Two rounds of carries bring every limb within its width.
    for _ in 0..<2 {
      carry = h1 >> 44
      h1 &= mask44
      h2 &+= carry
      carry = h2 >> 42
      h2 &= mask42
      h0 &+= carry &* 5
      carry = h0 >> 44
      h0 &= mask44
      h1 &+= carry
    }
    carry = h1 >> 44
    h1 &= mask44
    h2 &+= carry

    // g = h + 5 − 2¹³⁰; if that does not go negative, h ≥ p and the answer is g.
    var g0 = h0 &+ 5
    carry = g0 >> 44
    g0 &= mask44
    var g1 = h1 &+ carry
    carry = g1 >> 44
    g1 &= mask44
    let g2 = h2 &+ carry &- (1 << 42)
    // All ones when g2 did not borrow (take g), all zeros when it did (keep h).
    let useG = (g2 >> 63) &- 1
    h0 = (h0 & ~useG) | (g0 & useG)
    h1 = (h1 & ~useG) | (g1 & useG)
    h2 = (h2 & ~useG) | (g2 & useG)

    // h + s mod 2¹²⁸, limb by limb, then packed into two words.
    let (t0, t1) = s
    h0 &+= t0 & mask44
    carry = h0 >> 44
    h0 &= mask44
    h1 &+= (((t0 >> 44) | (t1 << 20)) & mask44) &+ carry
    carry = h1 >> 44
    h1 &= mask44
    h2 &+= ((t1 >> 24) & mask42) &+ carry
    h2 &= mask42
    return (h0 | h1 << 44, h1 >> 20 | h2 << 24)
  }
}
