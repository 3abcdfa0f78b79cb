import Events
import Testing

@testable import Projections

@Suite struct EntityTableTests {
  @Test func randomOperationsMatchADictionary() {
    let seed = TestRandom.seed(for: "EntityTableTests", fallback: 0xE7_7AB1E)
    var random = TestRandom(seed: seed)
    var table = EntityTable<EntityKey, String>()
    var reference: [EntityKey: String] = [:]
    for step in 0..<40_000 {
      // A pool that grows, then mostly churns: growth, long probe runs and removals in them.
      let poolSize = step < 20_000 ? 3_000 : 300
      let key = EntityKey("key \(Int.random(in: 0..<poolSize, using: &random))")
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        table.set(key, "set \(step)")
        reference[key] = "set \(step)"
      case 1:
        let found = table.update(key) { $0 += "+" }
        #expect(found == (reference[key] != nil))
        reference[key]? += "+"
      case 2:
        #expect(table.remove(key) == reference.removeValue(forKey: key))
      default:
        #expect(table[key] == reference[key])
        #expect(table.contains(key) == (reference[key] != nil))
      }
      if step % 5_000 == 0 { table.checkInvariants() }
    }
    table.checkInvariants()
    #expect(table.count == reference.count)
    #expect(Dictionary(uniqueKeysWithValues: zip(table.keys, table.values)) == reference)
  }

  @Test func keysOfEveryLengthAreFound() {
    var table = EntityTable<EntityKey, Int>()
    let keys = (1..<100).map { String(repeating: "é", count: $0) } + ["", "a", "大貓熊", "⭐️"]
    for (value, key) in keys.enumerated() { table.set(EntityKey(key), value) }
    table.checkInvariants()
    for (value, key) in keys.enumerated() { #expect(table[EntityKey(key)] == value) }
    #expect(table["b"] == nil)
  }

  @Test func lookupByBytesFindsWhatLookupByKeyFinds() {
    let seed = TestRandom.seed(for: "EntityTableTests.bytes", fallback: 0xB17E5)
    var random = TestRandom(seed: seed)
    // Canonically equivalent spellings ("é" composed and decomposed, "K" and the Kelvin sign)
    // are different keys: keys are bytes.
    let pool =
      (0..<400).map { "contact \($0)" } + ["", "1", "é", "e\u{301}", "K", "\u{212A}", "大貓熊"]
      + (1..<40).map { String(repeating: "x", count: $0) }
    var table = EntityTable<EntityKey, Int>()
    for step in 0..<6_000 {
      let key = pool.randomElement(using: &random) ?? ""
      switch Int.random(in: 0..<3, using: &random) {
      case 0: table.set(EntityKey(key), step)
      case 1: table.remove(EntityKey(key))
      default: break
      }
      let probe = pool.randomElement(using: &random) ?? ""
      var text = probe
      let found = text.withUTF8 { table.position(ofUTF8: $0) }
      #expect(found == table.position(of: EntityKey(probe)), "seed \(seed): \(probe)")
    }
  }

  @Test func equalityIgnoresOrder() {
    var first = EntityTable<EntityKey, Int>()
    first.set("a", 1)
    first.set("b", 2)
    var second = EntityTable<EntityKey, Int>()
    second.set("b", 2)
    second.set("a", 1)
    #expect(first == second)
    second.set("a", 3)
    #expect(first != second)
    second.remove("a")
    #expect(first != second)
  }

  @Test func decodedEntitiesMustBeUnique() {
    var table = EntityTable<EntityKey, Int>()
    let first = table.appendDecoded("a", 1)
    let second = table.appendDecoded("a", 2)
    #expect(first)
    #expect(!second)
    #expect(table["a"] == 1)
    #expect(table.count == 1)
  }

  /// Values of 512 bytes: 128 to a page of the table's storage, so growth, updates in place and
  /// removals that move the last value into a hole all cross pages.
  @Test func wideValuesAcrossManyPagesMatchADictionary() {
    struct Wide: Equatable, Sendable {
      var text: String
      var padding = InlineArray<31, SIMD2<UInt64>>(repeating: .zero)

      static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }
    }
    let seed = TestRandom.seed(for: "EntityTableTests.wide", fallback: 0x51DE)
    var random = TestRandom(seed: seed)
    var table = EntityTable<EntityKey, Wide>()
    var reference: [EntityKey: String] = [:]
    for step in 0..<12_000 {
      let poolSize = step < 6_000 ? 2_000 : 700
      let key = EntityKey("key \(Int.random(in: 0..<poolSize, using: &random))")
      switch Int.random(in: 0..<4, using: &random) {
      case 0, 1:
        table.set(key, Wide(text: "set \(step)"))
        reference[key] = "set \(step)"
      case 2:
        #expect(table.remove(key)?.text == reference.removeValue(forKey: key), "seed \(seed)")
      default:
        let found = table.update(key) { $0.text += "+" }
        #expect(found == (reference[key] != nil))
        reference[key]? += "+"
      }
    }
    table.checkInvariants()
    #expect(table.count > 256)
    #expect(
      Dictionary(uniqueKeysWithValues: zip(table.keys, table.values.map(\.text))) == reference,
      "seed \(seed)")
  }
}
