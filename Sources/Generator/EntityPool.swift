import Engine

/// The live entities of one kind, by number (their index in the generator's table of that kind):
/// adding one, picking one at random and removing one all take constant time.
struct EntityPool {
  /// The live entities, in no particular order.
  private var members: [Int32] = []
  /// Each entity's place in `members`, or -1 once removed; indexed by entity number.
  private var positions: [Int32] = []

  /// How many entities are live.
  var count: Int { members.count }

  /// Whether no entity is live.
  var isEmpty: Bool { members.isEmpty }

  /// Adds entity `number`, which must not be live.
  mutating func insert(_ number: Int) {
    if number >= positions.count {
      positions.append(contentsOf: repeatElement(-1, count: number + 1 - positions.count))
    }
    precondition(positions[number] < 0, "entity \(number) added twice")
    positions[number] = Int32(members.count)
    members.append(Int32(number))
  }

  /// Whether entity `number` is live.
  func contains(_ number: Int) -> Bool {
    number < positions.count && positions[number] >= 0
  }

  /// Removes entity `number`, which must be live.
  mutating func remove(_ number: Int) {
    let position = Int(positions[number])
    precondition(position >= 0, "entity \(number) removed twice")
    let last = members.removeLast()
    if Int(last) != number {
      members[position] = last
      positions[Int(last)] = Int32(position)
    }
    positions[number] = -1
  }

  /// A live entity chosen at random, or `nil` when there is none.
  func randomMember(using random: inout GeneratorRandom) -> Int? {
    isEmpty ? nil : Int(members[random.below(members.count)])
  }
}
