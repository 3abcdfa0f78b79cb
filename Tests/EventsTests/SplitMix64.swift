import Foundation
// Re-exported: every file of this target sees the shared test support.
@_exported import ReplayTestSupport
import Testing

/// Whether the slow sweeps run: set `EVENTS_SLOW_TESTS=1` (CI does where it has the time).
let slowTestsEnabled = ProcessInfo.processInfo.environment["EVENTS_SLOW_TESTS"] == "1"

@Suite struct SplitMix64Tests {
  @Test func producesThePublishedSequenceForSeedZero() {
    // The reference implementation's first outputs for seed 0 (Vigna's splitmix64.c).
    var generator = SplitMix64(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    #expect(generator.next() == 0x06C4_5D18_8009_454F)
  }

  @Test func seedsAreReadInDecimalOrHexadecimal() {
    #expect(TestSeed.parse("42") == 42)
    #expect(TestSeed.parse(" 0x5EED_0003 ") == 0x5EED_0003)
    #expect(TestSeed.parse("0XFF") == 255)
    #expect(TestSeed.parse("seed") == nil)
    #expect(TestSeed.parse("-1") == nil)
  }
}
