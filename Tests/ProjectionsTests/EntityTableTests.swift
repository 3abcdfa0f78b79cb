import Testing

@testable import Projections

@Suite struct EntityTableTests {
  @Test func randomOperationsMatchADictionary() {
    let seed = TestRandom.seed(for: "EntityTableTests", fallback: 0xE7_7AB1E)
    var random = TestRandom(seed: seed)
    var table = EntityTable<String, String>()
    var reference: [String: String] = [:]
    for step in 0..<40_000 {
      // A pool that grows, then mostly churns: growth, long probe runs and removals in them.
      let poolSize = step < 20_000 ? 3_000 : 300
      let key = "key \(Int.random(in: 0..<poolSize, using: &random))"
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
    var table = EntityTable<String, Int>()
    let keys = (1..<100).map { String(repeating: "é", count: $0) } + ["", "a", "大貓熊", "⭐️"]
    for (value, key) in keys.enumerated() { table.set(key, value) }
    table.checkInvariants()
    for (value, key) in keys.enumerated() { #expect(table[key] == value) }
    #expect(table["b"] == nil)
  }

  @Test func equalityIgnoresOrder() {
    var first = EntityTable<String, Int>()
    first.set("a", 1)
    first.set("b", 2)
    var second = EntityTable<String, Int>()
    second.set("b", 2)
    second.set("a", 1)
    #expect(first == second)
    second.set("a", 3)
    #expect(first != second)
    second.remove("a")
    #expect(first != second)
  }

  @Test func decodedEntitiesMustBeUnique() {
    var table = EntityTable<String, Int>()
    let first = table.appendDecoded("a", 1)
    let second = table.appendDecoded("a", 2)
    #expect(first)
    #expect(!second)
    #expect(table["a"] == 1)
    #expect(table.count == 1)
  }
}
