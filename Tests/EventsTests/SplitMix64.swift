import Foundation
import Testing

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, deterministic generator, so that a
/// random test that fails can be rerun with the same values from its printed seed.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }
}

/// Seeds for random tests: `EVENTS_TEST_SEED` when set, else a fresh one. Either way the seed is
/// printed and goes into every failure message, so a failure can be replayed exactly.
enum TestSeed {
  static func make(_ testName: String = #function) -> UInt64 {
    let seed =
      ProcessInfo.processInfo.environment["EVENTS_TEST_SEED"].flatMap { UInt64($0) }
      ?? UInt64.random(in: .min ... .max)
    print("\(testName): seed \(seed) (rerun with EVENTS_TEST_SEED=\(seed))")
    return seed
  }
}

/// Whether the slow sweeps run: set `EVENTS_SLOW_TESTS=1` (CI does where it has the time).
let slowTestsEnabled = ProcessInfo.processInfo.environment["EVENTS_SLOW_TESTS"] == "1"

extension RandomNumberGenerator {
  /// Random bytes, for messages and payloads.
  mutating func bytes(count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
  }
}

@Suite struct SplitMix64Tests {
  @Test func producesThePublishedSequenceForSeedZero() {
    // The reference implementation's first outputs for seed 0 (Vigna's splitmix64.c).
    var generator = SplitMix64(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    #expect(generator.next() == 0x06C4_5D18_8009_454F)
  }
}
