import Events

// What every read model kept in an `EntityTable` does the same way: its entries for diffs and
// audits, and its checkpoint's list of entities (a count, then each id and what follows it).
extension EntityTable {
  /// Every entity's entry, keyed by id: a model's `entries`.
  /// - Parameter entry: the entry of the entity at a position.
  func entries(_ entry: (_ position: Int) -> ReadModelEntry) -> [EntityKey: ReadModelEntry] {
    var entries: [EntityKey: ReadModelEntry] = [:]
    entries.reserveCapacity(count)
    for (position, key) in keys.enumerated() {
      entries[EntityKey(key.rawValue)] = entry(position)
    }
    return entries
  }

  /// The value of the entity whose id is `text`, or `nil` when `text` is not a valid id
  /// (`makeKey` throws) or no entity has it: a model's `entry(forID:)`.
  func value(forID text: String, _ makeKey: (String) throws(EventsError) -> Key) -> Value? {
    guard let key = try? makeKey(text) else { return nil }
    return self[key]
  }

  /// Writes the entities as a checkpoint lists them: their count, then each id as a string
  /// followed by what `write` writes of its value.
  func write(to writer: inout BinaryWriter, _ write: (Value, inout BinaryWriter) -> Void) {
    writer.writeCount(count)
    for (key, value) in zip(keys, values) {
      writer.writeString(key.rawValue)
      write(value, &writer)
    }
  }
}

extension BinaryReader {
  /// The error for an id a checkpoint lists a second time, at `offset`.
  /// - Parameters:
  ///   - what: what the id is (`a location id`).
  ///   - expected: what the list must hold (`each id once`).
  func repeated(
    _ what: String, _ id: some CustomStringConvertible, expected: String = "each id once",
    at offset: Int
  ) -> ProjectionsError {
    invalid(what, expected: expected, found: "'\(id)' again", at: offset)
  }
}
