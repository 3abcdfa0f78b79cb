import Testing

@testable import Events

@Suite struct DecimalParsingTests {
  static func parse(_ text: String) -> Double? {
    Array(text.utf8).withUnsafeBufferPointer { DecimalParsing.parse($0) }
  }

  @Test(arguments: [
    "0", "-0", "1", "-1", "0.1", "0.2", "0.3", "1e22", "1e23", "1E-22", "9007199254740993",
    "123456789012345678901234567890", "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308",
    "-34.98520411042454", "149.98458041136354", "29.179687499999996", "-130.4296875", "90", "-180",
    "1e400", "0.000000000000000000000000000001", "4.9406564584124654e-324",
  ])
  func agreesWithTheStandardLibrary(text: String) {
    let expected = Double(text)
    let actual = Self.parse(text)
    #expect(actual?.bitPattern == expected?.bitPattern, "\(text)")
  }

  @Test func randomDoublesRoundTripThroughTheirShortestText() {
    let seed = TestSeed.make()
    var generator = SplitMix64(seed: seed)
    for _ in 0..<100_000 {
      let kind = generator.next() % 4
      let value: Double
      switch kind {
      case 0: value = Double.random(in: -90...90, using: &generator)
      case 1: value = Double.random(in: -180...180, using: &generator)
      case 2: value = Double(bitPattern: generator.next())
      default: value = Double(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 1000
      }
      guard value.isFinite else { continue }
      let text = value.description
      #expect(Self.parse(text)?.bitPattern == value.bitPattern, "\(text), seed \(seed)")
    }
  }
}
