/// SplitMix64 (Steele, Lea and Flood, 2014): the one seeded generator of every test target, so
/// that a random test that fails can be rerun with the same values from its printed seed.
///
/// The output for a seed never changes: tests pin values drawn from fixed seeds. Get a test's
/// seed from `TestSeed.make(_:fallback:)`, which prints it and lets `REPLAY_TEST_SEED` replace it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose values are fixed by `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next value (Vigna's `splitmix64.c`).
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// `true` with the given probability.
  public mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }

  /// One of `elements`, which must not be empty.
  public mutating func pick<Element>(_ elements: [Element]) -> Element {
    elements[Int.random(in: 0..<elements.count, using: &self)]
  }

  /// The seed for `test`: `REPLAY_TEST_SEED` when set, else `fallback`; printed either way.
  public static func seed(for test: String, fallback: UInt64) -> UInt64 {
    TestSeed.make(test, fallback: fallback)
  }
}

extension RandomNumberGenerator {
  /// `count` random bytes, for messages and payloads.
  public mutating func bytes(count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
  }
}
