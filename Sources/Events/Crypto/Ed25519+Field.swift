extension Ed25519 {
  /// An element of GF(2^255 - 19), the field of Curve25519 (RFC 8032 §5.1), in radix 2^51:
  /// five 64-bit limbs, value = l0 + l1·2^51 + l2·2^102 + l3·2^153 + l4·2^204.
  ///
  /// Limbs are kept below 2^52 between operations (loosely reduced); `bytes` gives the one
  /// canonical encoding. Every operation runs the same instructions whatever the values (no
  /// branch or index depends on them): products go through `UInt128`, reduction folds the
  /// carry out of the top limb back in times 19 (2^255 ≡ 19).
  struct FieldElement: Sendable {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64
    var l4: UInt64

    static let mask: UInt64 = (1 << 51) - 1
    static let zero = FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
      self.l0 = l0
      self.l1 = l1
      self.l2 = l2
      self.l3 = l3
      self.l4 = l4
    }

    /// A small value.
    init(_ value: UInt64) {
      self.init(l0: value & Self.mask, l1: value >> 51, l2: 0, l3: 0, l4: 0)
    }

    /// The element whose little-endian encoding is `bytes[offset..<offset + 32]`, bit 255
    /// ignored. The value may be ≥ p (a non-canonical encoding): compare `bytes` with the
    /// input to find out.
    init(bytes: [UInt8], offset: Int = 0) {
      func word(_ index: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in (0..<8).reversed() {
          value = value << 8 | UInt64(bytes[offset + index * 8 + byte])
        }
        return value
      }
      let (w0, w1, w2, w3) = (word(0), word(1), word(2), word(3))
      self.init(
        l0: w0 & Self.mask, l1: (w0 >> 51 | w1 << 13) & Self.mask,
        l2: (w1 >> 38 | w2 << 26) & Self.mask, l3: (w2 >> 25 | w3 << 39) & Self.mask,
        l4: (w3 >> 12) & Self.mask)
    }

    /// Propagates carries so that every limb is below 2^51 plus a little in `l0`.
    @inline(__always)
    func carried() -> FieldElement {
      var (r, top) = chained()
      r.l0 &+= top &* 19
      return r
    }

    /// Carries each limb's bits above 51 into the next; the carry out of the top limb is
    /// returned, not folded back in.
    @inline(__always)
    private func chained() -> (FieldElement, top: UInt64) {
      var r = self
      r.l1 &+= r.l0 >> 51
      r.l0 &= Self.mask
      r.l2 &+= r.l1 >> 51
      r.l1 &= Self.mask
      r.l3 &+= r.l2 >> 51
      r.l2 &= Self.mask
      r.l4 &+= r.l3 >> 51
      r.l3 &= Self.mask
      let top = r.l4 >> 51
      r.l4 &= Self.mask
      return (r, top)
    }

    static func + (a: FieldElement, b: FieldElement) -> FieldElement {
      FieldElement(
        l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4
      ).carried()
    }

    /// a - b, computed as a + 4p - b so that no limb goes negative (limbs of b < 2^53).
    static func - (a: FieldElement, b: FieldElement) -> FieldElement {
      let fourPLow: UInt64 = 0x1F_FFFF_FFFF_FFB4  // 4 · (2^51 - 19)
      let fourP: UInt64 = 0x1F_FFFF_FFFF_FFFC  // 4 · (2^51 - 1)
      return FieldElement(
        l0: a.l0 &+ fourPLow &- b.l0, l1: a.l1 &+ fourP &- b.l1, l2: a.l2 &+ fourP &- b.l2,
        l3: a.l3 &+ fourP &- b.l3, l4: a.l4 &+ fourP &- b.l4
      ).carried()
    }

    static prefix func - (a: FieldElement) -> FieldElement { .zero - a }

    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
      let (a0, a1, a2, a3, a4) = (
        UInt128(a.l0), UInt128(a.l1), UInt128(a.l2), UInt128(a.l3), UInt128(a.l4)
      )
      let (b0, b1, b2, b3, b4) = (
        UInt128(b.l0), UInt128(b.l1), UInt128(b.l2), UInt128(b.l3), UInt128(b.l4)
      )
      // 2^255 ≡ 19: a product's limb i + j ≥ 5 lands on limb i + j - 5, times 19.
      let (b1x19, b2x19, b3x19, b4x19) = (b1 &* 19, b2 &* 19, b3 &* 19, b4 &* 19)
      let t0 = a0 &* b0 &+ a1 &* b4x19 &+ a2 &* b3x19 &+ a3 &* b2x19 &+ a4 &* b1x19
      var t1 = a0 &* b1 &+ a1 &* b0 &+ a2 &* b4x19 &+ a3 &* b3x19 &+ a4 &* b2x19
      var t2 = a0 &* b2 &+ a1 &* b1 &+ a2 &* b0 &+ a3 &* b4x19 &+ a4 &* b3x19
      var t3 = a0 &* b3 &+ a1 &* b2 &+ a2 &* b1 &+ a3 &* b0 &+ a4 &* b4x19
      var t4 = a0 &* b4 &+ a1 &* b3 &+ a2 &* b2 &+ a3 &* b1 &+ a4 &* b0
      let mask = UInt128(Self.mask)
      t1 &+= t0 >> 51
      t2 &+= t1 >> 51
      t3 &+= t2 >> 51
      t4 &+= t3 >> 51
      let r0 = (t0 & mask) &+ (t4 >> 51) &* 19
      return FieldElement(
        l0: UInt64(truncatingIfNeeded: r0 & mask),
        l1: UInt64(truncatingIfNeeded: (t1 & mask) &+ (r0 >> 51)),
        l2: UInt64(truncatingIfNeeded: t2 & mask), l3: UInt64(truncatingIfNeeded: t3 & mask),
        l4: UInt64(truncatingIfNeeded: t4 & mask))
    }

    func squared() -> FieldElement { self * self }

    /// self^(2^count).
    func squared(times count: Int) -> FieldElement {
      var result = self
      for _ in 0..<count { result = result * result }
      return result
    }

    /// self^(2^250 - 1) and self^11, the common start of the inversion and square-root chains.
    private func power2to250minus1() -> (FieldElement, FieldElement) {
      let z2 = squared()
      let z9 = z2.squared(times: 2) * self
      let z11 = z9 * z2
      let z2to5minus1 = z11.squared() * z9
      let z2to10minus1 = z2to5minus1.squared(times: 5) * z2to5minus1
      let z2to20minus1 = z2to10minus1.squared(times: 10) * z2to10minus1
      let z2to40minus1 = z2to20minus1.squared(times: 20) * z2to20minus1
      let z2to50minus1 = z2to40minus1.squared(times: 10) * z2to10minus1
      let z2to100minus1 = z2to50minus1.squared(times: 50) * z2to50minus1
      let z2to200minus1 = z2to100minus1.squared(times: 100) * z2to100minus1
      let z2to250minus1 = z2to200minus1.squared(times: 50) * z2to50minus1
      return (z2to250minus1, z11)
    }

    /// self^(p - 2) = self^-1 (0 for 0).
    func inverted() -> FieldElement {
      let (z2to250minus1, z11) = power2to250minus1()
      // 2^255 - 21 = (2^250 - 1) · 2^5 + 11.
      return z2to250minus1.squared(times: 5) * z11
    }

    /// self^((p - 5) / 8) = self^(2^252 - 3), for square roots (RFC 8032 §5.1.3).
    func powerPMinus5Over8() -> FieldElement {
      let (z2to250minus1, _) = power2to250minus1()
      return z2to250minus1.squared(times: 2) * self
    }

    /// The canonical 32-byte little-endian encoding (value reduced below p, bit 255 clear).
    var bytes: [UInt8] {
      // Three passes leave every limb below 2^51 (a carry out of the top limb adds at most 19
      // to a masked `l0`), so r < 2^255, and q = 1 exactly when r ≥ p.
      var r = carried().carried().carried()
      var q = (r.l0 &+ 19) >> 51
      q = (r.l1 &+ q) >> 51
      q = (r.l2 &+ q) >> 51
      q = (r.l3 &+ q) >> 51
      q = (r.l4 &+ q) >> 51
      r.l0 &+= 19 &* q
      // The carry out of the top limb is the 2^255 that subtracting p leaves over: dropped.
      r = r.chained().0
      let words = [
        r.l0 | r.l1 << 51, r.l1 >> 13 | r.l2 << 38, r.l2 >> 26 | r.l3 << 25,
        r.l3 >> 39 | r.l4 << 12,
      ]
      var output: [UInt8] = []
      output.reserveCapacity(32)
      for word in words {
        for shift in stride(from: 0, to: 64, by: 8) {
          output.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
        }
      }
      return output
    }

    /// Whether the canonical value is odd: the "negative" elements of RFC 8032 §5.1.2.
    var isNegative: Bool { bytes[0] & 1 == 1 }

    /// Whether the value is 0 mod p.
    var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Equality of values (not of limbs).
    func hasSameValue(as other: FieldElement) -> Bool { bytes == other.bytes }

    /// `a` when `condition` is 0, `b` when it is 1, without a branch.
    static func select(_ a: FieldElement, _ b: FieldElement, _ condition: UInt64) -> FieldElement {
      let mask = 0 &- condition
      return FieldElement(
        l0: a.l0 ^ (mask & (a.l0 ^ b.l0)), l1: a.l1 ^ (mask & (a.l1 ^ b.l1)),
        l2: a.l2 ^ (mask & (a.l2 ^ b.l2)), l3: a.l3 ^ (mask & (a.l3 ^ b.l3)),
        l4: a.l4 ^ (mask & (a.l4 ^ b.l4)))
    }
  }
}
