/// The generator's source of randomness: SplitMix64, with its own ways of drawing bounded
/// integers and doubles, so a seed gives the same log on every platform and Swift version (the
/// standard library's `random(in:using:)` promises no particular sequence).
package struct GeneratorRandom {
  private var state: UInt64

  /// A generator whose sequence is fixed by `seed`.
  package init(seed: UInt64) {
    state = seed
  }

  /// A generator seeded from text: the FNV-1a 64-bit hash of its UTF-8 bytes.
  package init(seed text: String) {
    self.init(seed: Self.hash(text.utf8))
  }

  /// The next 64 random bits.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return Self.mix(state)
  }

  /// A number in `0..<bound`, by multiply-shift (the bias is below 2⁻⁴⁰ for the small bounds
  /// used here, which test data can afford).
  /// - Precondition: `bound > 0`.
  package mutating func below(_ bound: Int) -> Int {
    precondition(bound > 0, "the bound must be positive, was \(bound)")
    return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
  }

  /// A double in `0..<1` with 53 random bits.
  package mutating func unit() -> Double {
    Double(next() >> 11) * 0x1p-53
  }

  /// `true` with the given probability.
  package mutating func chance(_ probability: Double) -> Bool {
    unit() < probability
  }

  /// A random element of a non-empty array.
  package mutating func element<Element>(of array: [Element]) -> Element {
    array[below(array.count)]
  }

  /// A number in `0..<bound` other than `current` (which must be in that range).
  /// - Precondition: `bound >= 2`.
  package mutating func other(than current: Int, below bound: Int) -> Int {
    precondition(bound >= 2, "needs two choices to pick another, had \(bound)")
    let pick = below(bound - 1)
    return pick >= current ? pick + 1 : pick
  }

  /// SplitMix64's finalizer: a bijective scramble of 64 bits.
  package static func mix(_ value: UInt64) -> UInt64 {
    var value = value
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// A deterministic hash of several numbers, for values derived from an entity's number and
  /// revision instead of stored.
  package static func hash(_ values: UInt64...) -> UInt64 {
    values.reduce(0x243F_6A88_85A3_08D3) { mix($0 ^ mix($1 &+ 0x9E37_79B9_7F4A_7C15)) }
  }

  /// FNV-1a, 64 bits.
  package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
  }
}
