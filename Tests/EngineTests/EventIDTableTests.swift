import Events
import Testing

@testable import Engine

/// `EventIDTable` answers as a `Dictionary` of the same ids would, whatever the ids look like.
@Suite struct EventIDTableTests {
  /// Ids of four shapes: random, counting up in the low half (a user's sequential UUIDs),
  /// counting up in the high half, and many sharing one half.
  func ids(_ count: Int, shape: Int, generator: inout SplitMix64) -> [EventID] {
    (0..<count).map { index in
      let step = UInt64(index)
      switch shape {
      case 0: return EventID(high: generator.next(), low: generator.next())
      case 1: return EventID(high: 0, low: step)
      case 2: return EventID(high: step << 12, low: 0x8000_0000_0000_0000)
      default: return EventID(high: generator.next() % 4, low: generator.next() % 64 << 56)
      }
    }
  }

  @Test func answersAsADictionaryWould() {
    var generator = SplitMix64(seed: TestSeed.make("EventIDTable.answersAsADictionaryWould"))
    for shape in 0..<4 {
      for count in [0, 1, 7, 8, 9, 100, 5000] {
        let ids = ids(count, shape: shape, generator: &generator)
        var table = EventIDTable<Int>()
        var dictionary: [EventID: Int] = [:]
        for (index, id) in ids.enumerated() {
          // Each id set once, some a second time: the old value comes back, the new one stays.
          #expect(table.updateValue(index, forKey: id) == dictionary.updateValue(index, forKey: id))
          if generator.next() % 4 == 0 {
            let again = ids[Int(generator.next() % UInt64(index + 1))]
            #expect(
              table.updateValue(-index, forKey: again)
                == dictionary.updateValue(-index, forKey: again))
          }
        }
        #expect(table.count == dictionary.count)
        for id in ids { #expect(table[id] == dictionary[id]) }
        // Ids not in it.
        for _ in 0..<200 {
          let id = EventID(high: generator.next(), low: generator.next())
          #expect(table[id] == dictionary[id])
        }
        // Kept in the order they came.
        var firstSeen: [EventID] = []
        var seen: Set<EventID> = []
        for id in ids where seen.insert(id).inserted { firstSeen.append(id) }
        #expect(table.ids == firstSeen)
        #expect(table.values == firstSeen.map { dictionary[$0] ?? .min })
      }
    }
  }

  @Test func roomMadeAheadHoldsTheSameAnswers() {
    var generator = SplitMix64(seed: TestSeed.make("EventIDTable.roomMadeAheadHoldsTheSameAnswers"))
    let ids = ids(3000, shape: 0, generator: &generator)
    var table = EventIDTable<Int64>(minimumCapacity: 10)
    for (index, id) in ids.prefix(1000).enumerated() { table.updateValue(Int64(index), forKey: id) }
    table.reserveCapacity(3000)
    for (index, id) in ids.dropFirst(1000).enumerated() {
      #expect(table.updateValue(Int64(index + 1000), forKey: id) == nil)
    }
    #expect(table.count == 3000)
    #expect(ids.indices.allSatisfy { table[ids[$0]] == Int64($0) })
  }
}
