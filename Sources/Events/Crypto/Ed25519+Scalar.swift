extension Ed25519 {
  /// Arithmetic modulo the group order L = 2^252 + 27742317777372353535851937790883648493
  /// (RFC 8032 §5.1), on little-endian byte strings, 32-bit limbs inside.
  ///
  /// Reduction is bit by bit (shift in one bit, subtract L when the remainder reaches it),
  /// with the subtraction always computed and kept by a mask: slow next to Barrett reduction
  /// but short, and the same work whatever the value.
  enum Scalar {
    /// L, little-endian.
    static let order: [UInt8] = [
      0xED, 0xD3, 0xF5, 0x5C, 0x1A, 0x63, 0x12, 0x58, 0xD6, 0x9C, 0xF7, 0xA2, 0xDE, 0xF9, 0xDE,
      0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ]

    /// L as nine 32-bit limbs (the ninth is 0: room for a remainder below 2L).
    private static let orderLimbs: [UInt32] = limbs(order, count: 9)

    private static func limbs(_ bytes: [UInt8], count: Int) -> [UInt32] {
      var result = [UInt32](repeating: 0, count: count)
      for (index, byte) in bytes.enumerated() {
        result[index / 4] |= UInt32(byte) << (8 * UInt32(index % 4))
      }
      return result
    }

    /// `bytes` (little-endian, any length) modulo L, as 32 bytes.
    static func reduced(_ bytes: [UInt8]) -> [UInt8] {
      var remainder = [UInt32](repeating: 0, count: 9)
      for bit in (0..<(bytes.count * 8)).reversed() {
        // remainder = 2·remainder + bit; remainder < L < 2^253 keeps it inside 9 limbs.
        var carry = UInt32(bytes[bit >> 3] >> UInt8(bit & 7) & 1)
        for index in 0..<9 {
          let next = remainder[index] >> 31
          remainder[index] = remainder[index] << 1 | carry
          carry = next
        }
        subtractOrderIfNotBelow(&remainder)
      }
      var output: [UInt8] = []
      output.reserveCapacity(32)
      for index in 0..<8 {
        for shift in stride(from: 0, to: 32, by: 8) {
          output.append(UInt8(truncatingIfNeeded: remainder[index] >> UInt32(shift)))
        }
      }
      return output
    }

    /// remainder -= L when remainder ≥ L, without a branch.
    private static func subtractOrderIfNotBelow(_ remainder: inout [UInt32]) {
      var difference = [UInt32](repeating: 0, count: 9)
      var borrow: UInt64 = 0
      for index in 0..<9 {
        let value = UInt64(remainder[index]) &- UInt64(orderLimbs[index]) &- borrow
        difference[index] = UInt32(truncatingIfNeeded: value)
        borrow = (value >> 63) & 1
      }
      // No borrow: remainder ≥ L, keep the difference.
      let keep = UInt32(truncatingIfNeeded: borrow) &- 1
      for index in 0..<9 {
        remainder[index] = (difference[index] & keep) | (remainder[index] & ~keep)
      }
    }

    /// (a · b + c) mod L for 32-byte little-endian a, b, c.
    static func multiplyAdd(_ a: [UInt8], _ b: [UInt8], _ c: [UInt8]) -> [UInt8] {
      let aLimbs = limbs(a, count: 8)
      let bLimbs = limbs(b, count: 8)
      var product = [UInt64](repeating: 0, count: 17)
      for (index, limb) in limbs(c, count: 8).enumerated() { product[index] = UInt64(limb) }
      for i in 0..<8 {
        var carry: UInt64 = 0
        for j in 0..<8 {
          // < 2^64: (2^32 - 1)² + 2·(2^32 - 1).
          let sum = UInt64(aLimbs[i]) &* UInt64(bLimbs[j]) &+ product[i + j] &+ carry
          product[i + j] = sum & 0xFFFF_FFFF
          carry = sum >> 32
        }
        var index = i + 8
        while carry != 0 {
          let sum = product[index] &+ carry
          product[index] = sum & 0xFFFF_FFFF
          carry = sum >> 32
          index += 1
        }
      }
      var bytes: [UInt8] = []
      bytes.reserveCapacity(68)
      for limb in product {
        for shift in stride(from: 0, to: 32, by: 8) {
          bytes.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift)))
        }
      }
      return reduced(bytes)
    }

    /// Whether the 32-byte little-endian `bytes` is below L (a canonical S, RFC 8032 §5.1.7).
    static func isCanonical(_ bytes: [UInt8]) -> Bool {
      guard bytes.count == 32 else { return false }
      for index in (0..<32).reversed() where bytes[index] != order[index] {
        return bytes[index] < order[index]
      }
      return false
    }
  }
}
