extension Ed25519 {
  /// A point of the twisted Edwards curve -x² + y² = 1 + d·x²·y² (edwards25519, RFC 8032
  /// §5.1) in extended homogeneous coordinates: x = X/Z, y = Y/Z, x·y = T/Z.
  struct Point: Sendable {
    var x: FieldElement
    var y: FieldElement
    var z: FieldElement
    var t: FieldElement

    /// The neutral element (0, 1).
    static let identity = Point(x: .zero, y: .one, z: .one, t: .zero)

    /// d = -121665 / 121666.
    static let d: FieldElement = -(FieldElement(121_665) * FieldElement(121_666).inverted())
    static let twiceD: FieldElement = d + d
    /// A square root of -1: 2^((p - 1) / 4).
    static let squareRootOfMinusOne: FieldElement = {
      // 2^((p-1)/4) = 2^(2^253 - 5); with (p - 5) / 8 = 2^252 - 3, it is
      // 2^((p-5)/8 · 2 + 1) = (2^((p-5)/8))² · 2.
      let two = FieldElement(2)
      return two.powerPMinus5Over8().squared() * two
    }()

    /// The base point B (RFC 8032 §5.1): y = 4/5, x positive.
    static let base: Point = {
      var encoding = [UInt8](repeating: 0x66, count: 32)
      encoding[0] = 0x58
      // The encoding is a constant of the RFC, so it always decodes.
      return Point(decoding: encoding) ?? .identity
    }()

    init(x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement) {
      self.x = x
      self.y = y
      self.z = z
      self.t = t
    }

    /// Decodes a 32-byte point (RFC 8032 §5.1.3); `nil` for a non-canonical y (≥ p), a y with
    /// no x on the curve, or x = 0 with the sign bit set.
    init?(decoding bytes: [UInt8]) {
      guard bytes.count == 32 else { return nil }
      let y = FieldElement(bytes: bytes)
      var canonical = bytes
      canonical[31] &= 0x7F
      guard y.bytes == canonical else { return nil }
      let signBit = bytes[31] >> 7
      let ySquared = y.squared()
      let u = ySquared - .one
      let v = Self.d * ySquared + .one
      // x = u·v³·(u·v⁷)^((p-5)/8), then fixed up by √-1 if v·x² = -u.
      let v3 = v.squared() * v
      let v7 = v3.squared() * v
      var x = u * v3 * (u * v7).powerPMinus5Over8()
      let check = v * x.squared()
      if check.hasSameValue(as: u) {
        // x is a root.
      } else if check.hasSameValue(as: -u) {
        x = x * Self.squareRootOfMinusOne
      } else {
        return nil
      }
      if x.isZero && signBit == 1 { return nil }
      if (x.isNegative ? 1 : 0) != signBit { x = -x }
      self.init(x: x, y: y, z: .one, t: x * y)
    }

    /// The 32-byte encoding: y, with x's parity in the top bit (RFC 8032 §5.1.2).
    var encoded: [UInt8] {
      let inverse = z.inverted()
      let affineX = x * inverse
      var bytes = (y * inverse).bytes
      bytes[31] |= affineX.isNegative ? 0x80 : 0
      return bytes
    }

    /// P + Q (RFC 8032 §5.1.4, the formulas for a = -1).
    static func + (p: Point, q: Point) -> Point {
      let a = (p.y - p.x) * (q.y - q.x)
      let b = (p.y + p.x) * (q.y + q.x)
      let c = p.t * twiceD * q.t
      let zz = p.z * q.z
      let d = zz + zz
      let e = b - a
      let f = d - c
      let g = d + c
      let h = b + a
      return Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// 2P (RFC 8032 §5.1.4).
    func doubled() -> Point {
      let a = x.squared()
      let b = y.squared()
      let zz = z.squared()
      let c = zz + zz
      let h = a + b
      let e = h - (x + y).squared()
      let g = a - b
      let f = c + g
      return Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// -P.
    var negated: Point { Point(x: -x, y: y, z: z, t: -t) }

    /// Whether this is the neutral element.
    var isIdentity: Bool { x.isZero && y.hasSameValue(as: z) }

    /// Whether 8P is the neutral element: one of the eight points of small order, which a
    /// public key or a signature's R must not be.
    var hasSmallOrder: Bool { doubled().doubled().doubled().isIdentity }

    /// [scalar]P for a 32-byte little-endian scalar, by double-and-add-always: every bit costs
    /// one doubling and one addition, and the sum is kept or dropped by a branchless select.
    func multiplied(by scalar: [UInt8]) -> Point {
      var result = Point.identity
      for bit in (0..<256).reversed() {
        result = result.doubled()
        let sum = result + self
        let chosen = UInt64(scalar[bit >> 3] >> UInt8(bit & 7) & 1)
        result = Point(
          x: .select(result.x, sum.x, chosen), y: .select(result.y, sum.y, chosen),
          z: .select(result.z, sum.z, chosen), t: .select(result.t, sum.t, chosen))
      }
      return result
    }
  }
}
