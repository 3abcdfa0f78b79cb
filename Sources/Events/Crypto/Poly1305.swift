/// The Poly1305 one-time authenticator of RFC 8439 §2.5: a 32-byte one-time key `(r, s)` and a
/// message give a 16-byte tag, `((Σ blockᵢ · r^(n−i+1)) mod 2¹³⁰−5) + s mod 2¹²⁸`.
///
/// The 130-bit accumulator and `r` are held in five 26-bit limbs, so every product of two limbs
/// fits a `UInt64` with room for the sums; the code has no data-dependent branches or table
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

  /// `r`, clamped, in 26-bit limbs.
  private let r: (UInt32, UInt32, UInt32, UInt32, UInt32)
  /// `5 · r1 … 5 · r4`: the limbs of `r` pre-multiplied for the reduction by 2¹³⁰ ≡ 5.
  private let r5: (UInt32, UInt32, UInt32, UInt32)
  /// `s`, added at the end, as four little-endian words.
  private let s: (UInt32, UInt32, UInt32, UInt32)
  /// The accumulator, in 26-bit limbs (partially reduced: each limb may carry a few bits more).
  private var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0)
  /// Bytes of an incomplete block, waiting for the rest.
  private var pending: (UInt64, UInt64) = (0, 0)
  /// How many bytes of `pending` are in use (always less than a block).
  private var pendingCount = 0

  /// An authenticator for one message under a one-time key.
  /// - Precondition: `key` holds 32 bytes.
  init(key: UnsafeRawBufferPointer) {
    precondition(key.count == Self.keyByteCount, "Poly1305 needs a 32-byte key")
    func word(_ offset: Int) -> UInt32 {
      UInt32(littleEndian: key.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    // Clamping (§2.5): r &= 0x0ffffffc0ffffffc0ffffffc0fffffff, cut into 26-bit limbs.
    let r0 = word(0) & 0x3FF_FFFF
    let r1 = (word(3) &>> 2) & 0x3FF_FF03
    let r2 = (word(6) &>> 4) & 0x3FF_C0FF
    let r3 = (word(9) &>> 6) & 0x3F0_3FFF
    let r4 = (word(12) &>> 8) & 0x00F_FFFF
    r = (r0, r1, r2, r3, r4)
    r5 = (r1 &* 5, r2 &* 5, r3 &* 5, r4 &* 5)
    s = (word(16), word(20), word(24), word(28))
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
    let mask: UInt32 = 0x3FF_FFFF
    let highBit: UInt32 = final ? 0 : 1 &<< 24
    let (r0, r1, r2, r3, r4) = (UInt64(r.0), UInt64(r.1), UInt64(r.2), UInt64(r.3), UInt64(r.4))
    let (s1, s2, s3, s4) = (UInt64(r5.0), UInt64(r5.1), UInt64(r5.2), UInt64(r5.3))
    var (h0, h1, h2, h3, h4) = h
    var block = input
    for _ in 0..<blocks {
      func word(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: block.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      }
      h0 &+= word(0) & mask
      h1 &+= (word(3) &>> 2) & mask
      h2 &+= (word(6) &>> 4) & mask
      h3 &+= (word(9) &>> 6) & mask
      h4 &+= (word(12) &>> 8) | highBit

      let (a0, a1, a2, a3, a4) = (UInt64(h0), UInt64(h1), UInt64(h2), UInt64(h3), UInt64(h4))
      // Schoolbook product; limbs past 2¹³⁰ wrap round multiplied by 5 (the s-terms).
      let d0 = a0 &* r0 &+ a1 &* s4 &+ a2 &* s3 &+ a3 &* s2 &+ a4 &* s1
      var d1 = a0 &* r1 &+ a1 &* r0 &+ a2 &* s4 &+ a3 &* s3 &+ a4 &* s2
      var d2 = a0 &* r2 &+ a1 &* r1 &+ a2 &* r0 &+ a3 &* s4 &+ a4 &* s3
      var d3 = a0 &* r3 &+ a1 &* r2 &+ a2 &* r1 &+ a3 &* r0 &+ a4 &* s4
      var d4 = a0 &* r4 &+ a1 &* r3 &+ a2 &* r2 &+ a3 &* r1 &+ a4 &* r0

      // Partial reduction: carry each limb into the next, the top one back round times 5.
      d1 &+= d0 &>> 26
      h0 = UInt32(truncatingIfNeeded: d0) & mask
      d2 &+= d1 &>> 26
      h1 = UInt32(truncatingIfNeeded: d1) & mask
      d3 &+= d2 &>> 26
      h2 = UInt32(truncatingIfNeeded: d2) & mask
      d4 &+= d3 &>> 26
      h3 = UInt32(truncatingIfNeeded: d3) & mask
      let carry = d4 &>> 26
      h4 = UInt32(truncatingIfNeeded: d4) & mask
      let wrapped = UInt64(h0) &+ carry &* 5
      h0 = UInt32(truncatingIfNeeded: wrapped) & mask
      h1 &+= UInt32(truncatingIfNeeded: wrapped &>> 26)

      block += Self.blockByteCount
    }
    h = (h0, h1, h2, h3, h4)
  }

  /// Fully reduces `h` mod 2¹³⁰−5 (in constant time), adds `s` and serialises the low 128 bits.
  private func tag() -> (UInt64, UInt64) {
    let mask: UInt32 = 0x3FF_FFFF
    var (h0, h1, h2, h3, h4) = h
    var carry: UInt32
    carry = h1 &>> 26
    h1 &= mask
    h2 &+= carry
    carry = h2 &>> 26
    h2 &= mask
    h3 &+= carry
    carry = h3 &>> 26
    h3 &= mask
    h4 &+= carry
    carry = h4 &>> 26
    h4 &= mask
    h0 &+= carry &* 5
    carry = h0 &>> 26
    h0 &= mask
    h1 &+= carry

    // g = h + 5 − 2¹³⁰; if that does not go negative, h ≥ p and the answer is g.
    var g0 = h0 &+ 5
    carry = g0 &>> 26
    g0 &= mask
    var g1 = h1 &+ carry
    carry = g1 &>> 26
    g1 &= mask
    var g2 = h2 &+ carry
    carry = g2 &>> 26
    g2 &= mask
    var g3 = h3 &+ carry
    carry = g3 &>> 26
    g3 &= mask
    let g4 = h4 &+ carry &- (1 &<< 26)
    // All ones when g4 did not borrow (take g), all zeros when it did (keep h).
    let useG = (g4 &>> 31) &- 1
    h0 = (h0 & ~useG) | (g0 & useG)
    h1 = (h1 & ~useG) | (g1 & useG)
    h2 = (h2 & ~useG) | (g2 & useG)
    h3 = (h3 & ~useG) | (g3 & useG)
    h4 = (h4 & ~useG) | (g4 & useG)

    // Repack the 26-bit limbs into four 32-bit words, then add s with carries.
    let w0 = h0 | h1 &<< 26
    let w1 = h1 &>> 6 | h2 &<< 20
    let w2 = h2 &>> 12 | h3 &<< 14
    let w3 = h3 &>> 18 | h4 &<< 8
    var sum = UInt64(w0) &+ UInt64(s.0)
    let t0 = UInt32(truncatingIfNeeded: sum)
    sum = UInt64(w1) &+ UInt64(s.1) &+ (sum &>> 32)
    let t1 = UInt32(truncatingIfNeeded: sum)
    sum = UInt64(w2) &+ UInt64(s.2) &+ (sum &>> 32)
    let t2 = UInt32(truncatingIfNeeded: sum)
    sum = UInt64(w3) &+ UInt64(s.3) &+ (sum &>> 32)
    let t3 = UInt32(truncatingIfNeeded: sum)
    return (UInt64(t0) | UInt64(t1) &<< 32, UInt64(t2) | UInt64(t3) &<< 32)
  }
}
