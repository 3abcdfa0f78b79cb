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

extension EntityTable {
  /// Loads a checkpoint's list of `count` entities, each an id and then its value, with each
  /// value left in the checkpoint's bytes until it is used (see `beginStored`): every byte is
  /// checked here, but only the ids become `String`s.
  /// - Parameters:
  ///   - reader: at the first id; left after the last value.
  ///   - what: what an id is, for the error when one is listed twice (`an animal id`).
  ///   - readID: reads one id.
  ///   - readValue: reads the value after `id`; without `building`, checks every string and
  ///     skips it without making a `String`, returning a value with empty text that stands in
  ///     until the value is read. The load and the later read are this one function.
  /// - Throws: `ProjectionsError` for bytes that are not such a list.
  mutating func loadStored(
    count: Int, from reader: inout BinaryReader, what: String,
    readID: (inout BinaryReader) throws(ProjectionsError) -> Key,
    readValue:
      @escaping @Sendable (
        _ id: Key, _ reader: inout BinaryReader, _ building: Bool
      ) throws(ProjectionsError) -> Value
  ) throws(ProjectionsError) {
    // The checkpoint's bytes are shared, not copied: the models loaded from one checkpoint
    // keep that one buffer alive between them.
    beginStored(bytes: reader.bytes) { id, reader throws(ProjectionsError) in
      try readValue(id, &reader, true)
    }
    for _ in 0..<count {
      let start = reader.offset
      let id = try readID(&reader)
      let valueStart = reader.offset
      let placeholder = try readValue(id, &reader, false)
      guard appendStored(id, placeholder: placeholder, offset: valueStart) else {
        throw reader.repeated(what, id.rawValue, at: start)
      }
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

/// A read model that keeps one value per entity in an `EntityTable`: its count, its entries
/// (for diffs and audits) and its storage check come from the table, written once here.
protocol EntityTableModel: ReadModel {
  /// The entity's id, checked when made from text.
  associatedtype ID: CheckedIdentifier
  /// What the model keeps for each entity.
  associatedtype Stored: Sendable & Equatable
  /// The model's entities, in the order the log added them.
  var table: EntityTable<ID, Stored> { get }
  /// The named fields of an entity that holds `stored`.
  static func entry(_ stored: Stored) -> ReadModelEntry
}

extension EntityTableModel {
  public var count: Int { table.count }

  public var entries: [EntityKey: ReadModelEntry] {
    table.entries { Self.entry(table.value(at: $0)) }
  }

  public func entry(forID id: String) -> ReadModelEntry? {
    table.value(forID: id, ID.init).map(Self.entry)
  }

  /// Checks the storage's invariants; for tests.
  func checkInvariants() { table.checkInvariants() }
}

/// An entity id made from text that is checked first (`entry(forID:)` reads one).
protocol CheckedIdentifier: UTF8Identifier, Sendable {
  /// Validates `text` as an id.
  init(_ text: String) throws(EventsError)
}

extension LocationID: CheckedIdentifier {}
extension ObservationID: CheckedIdentifier {}
extension StateName: CheckedIdentifier {}
extension AnimalID: CheckedIdentifier {}
