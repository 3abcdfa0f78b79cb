import Foundation

/// Seeds for random tests.
///
/// Every random test takes its seed from `make(_:fallback:)`, which prints it with the test's
/// name. To rerun a failing test with the values it failed with, set `REPLAY_TEST_SEED` to the
/// printed seed (decimal, or hexadecimal after `0x`):
///
/// ```sh
/// REPLAY_TEST_SEED=0x5EED0003 swift test --filter NearestNeighborIndexTests
/// ```
///
/// The variable replaces the seed of every test that runs, so filter to the failing one.
public enum TestSeed {
  /// The environment variable that replaces every test's seed.
  public static let environmentVariable = "REPLAY_TEST_SEED"

  /// The seed `REPLAY_TEST_SEED` sets, if it is set to a number.
  public static var override: UInt64? {
    ProcessInfo.processInfo.environment[environmentVariable].flatMap(parse)
  }

  /// The seed for `test`: `REPLAY_TEST_SEED` when set, else `fallback`, else a fresh random
  /// one. Printed either way, so a failure can be replayed exactly.
  public static func make(_ test: String = #function, fallback: UInt64? = nil) -> UInt64 {
    let seed = override ?? fallback ?? UInt64.random(in: .min ... .max)
    print("\(test): seed \(seed) (rerun with \(environmentVariable)=\(seed))")
    return seed
  }

  /// `text` as a seed: decimal, or hexadecimal after `0x`.
  public static func parse(_ text: String) -> UInt64? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") {
      return UInt64(trimmed.dropFirst(2).filter { $0 != "_" }, radix: 16)
    }
    return UInt64(trimmed)
  }
}
