import Testing

@_spi(Tables) @testable import Events

/// A key of text, compared by its bytes.
private struct Key: UTF8Identifier, ExpressibleByStringLiteral {
  var rawValue: String

  init(_ rawValue: String) { self.rawValue = rawValue }
  init(stringLiteral value: String) { rawValue = value }
}

@Suite struct ByteKeyedTableTests {
  /// Keys that grow the table and make long probe runs, and keys that are equal as text but
  /// not as bytes: "é" composed and decomposed, "K" and the Kelvin sign, "Å" three ways.
  static let pool: [String] =
    (0..<300).map { "key \($0)" }
    + ["", "1", "é", "e\u{301}", "K", "\u{212A}", "Å", "A\u{30A}", "\u{212B}", "大貓熊", "🐼"]
    + (1..<40).map { String(repeating: "é", count: $0) }
    + (1..<40).map { String(repeating: "e\u{301}", count: $0) }

  /// A table with the caller's arrays beside it, as `EntityTable` keeps them, checked against
  /// a `Dictionary` keyed by the bytes.
  @Test func randomOperationsMatchADictionaryOfBytes() {
    let seed = TestSeed.make(fallback: 0xB7E5_7AB1)
    var random = SplitMix64(seed: seed)
    var table = ByteKeyedTable<Key>()
    var keys: [Key] = []
    var values: [Int] = []
    var reference: [[UInt8]: Int] = [:]
    for step in 0..<30_000 {
      let key = Key(random.pick(Self.pool))
      let bytes = Array(key.rawValue.utf8)
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        let position = table.position(of: key, in: keys, insertingAt: keys.count)
        if position == keys.count {
          keys.append(key)
          values.append(step)
        } else {
          values[position] = step
        }
        reference[bytes] = step
      case 1:
        let removed = table.remove(key, in: keys)
        #expect(removed.map { values[$0] } == reference.removeValue(forKey: bytes), "seed \(seed)")
        if let position = removed {
          let last = keys.count - 1
          if position != last {
            keys[position] = keys[last]
            values[position] = values[last]
            table.move(keys[position], from: last, to: position)
          }
          keys.removeLast()
          values.removeLast()
        }
      default:
        let byKey = table.position(of: key, in: keys)
        let byBytes = bytes.withUnsafeBytes { table.position(ofBytes: $0, in: keys) }
        #expect(byKey == byBytes, "seed \(seed): \(bytes)")
        #expect(byKey.map { values[$0] } == reference[bytes], "seed \(seed): \(bytes)")
      }
      if step % 5_000 == 0 { table.checkInvariants(keys: keys) }
    }
    table.checkInvariants(keys: keys)
    #expect(table.count == reference.count)
    #expect(
      Dictionary(uniqueKeysWithValues: zip(keys.map { Array($0.rawValue.utf8) }, values))
        == reference)
  }

  @Test func canonicallyEquivalentKeysAreTwoKeys() {
    var table = ByteKeyedTable<Key>()
    var keys: [Key] = []
    for key: Key in ["é", "e\u{301}"] {
      #expect(table.position(of: key, in: keys, insertingAt: keys.count) == keys.count)
      keys.append(key)
    }
    #expect(table.count == 2)
    #expect(table.position(of: "é", in: keys) == 0)
    #expect(table.position(of: "e\u{301}", in: keys) == 1)
    #expect(table.remove("é", in: keys) == 0)
    #expect(table.position(of: "e\u{301}", in: keys) == 1)
  }

  @Test func theHashDependsOnEveryByteAndTheLength() {
    func hash(_ bytes: [UInt8]) -> UInt64 {
      bytes.withUnsafeBytes { ByteKeyedTable<Key>.hash($0) }
    }
    #expect(hash(Array("é".utf8)) != hash(Array("e\u{301}".utf8)))
    #expect(hash([]) != hash([0]))
    #expect(hash([0]) != hash([0, 0]))
    #expect(hash(Array("contact-12345678".utf8)) != hash(Array("contact-12345679".utf8)))
  }
}
