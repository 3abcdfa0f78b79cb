@_spi(Tables) import Events

/// A read model's entities by id, in the order they were first seen: the storage every model
/// folds into.
///
/// Values live in one array, found through a `ByteKeyedTable`, so `apply` costs one hash lookup
/// and changes a value in place, and encoding walks a plain array in a deterministic order
/// (the same log always gives the same order, and the same checkpoint bytes). Removal moves the
/// last entity into the hole, which is deterministic too.
///
/// Two tables are equal when they map the same ids to equal values, whatever their order: order
/// is storage, not state (views sort).
struct EntityTable<Key: UTF8Identifier & Sendable, Value: Sendable & Equatable>: Sendable,
  Equatable
{
  /// The ids, by position.
  private(set) var keys: [Key] = []
  /// The values, by position.
  private(set) var values: [Value] = []
  /// Each id's position.
  private var positions = ByteKeyedTable<Key>()

  init() {}

  /// An empty table with room for `capacity` entities.
  init(minimumCapacity capacity: Int) {
    keys.reserveCapacity(capacity)
    values.reserveCapacity(capacity)
    positions = ByteKeyedTable(minimumCapacity: capacity)
  }

  /// The number of entities.
  var count: Int { keys.count }

  /// The value for `key`, if any.
  subscript(key: Key) -> Value? {
    guard let position = positions.position(of: key, in: keys) else { return nil }
    return values[position]
  }

  /// Whether the table holds `key`.
  func contains(_ key: Key) -> Bool { positions.position(of: key, in: keys) != nil }

  /// Sets the value for `key`, in place when it is already there, at the end otherwise.
  /// - Returns: the value's position.
  @discardableResult
  mutating func set(_ key: Key, _ value: Value) -> Int {
    let end = keys.count
    // One hash lookup: inserts `end` when the key is new, reads its position otherwise.
    let position = positions.position(of: key, in: keys, insertingAt: end)
    if position == end {
      keys.append(key)
      values.append(value)
    } else {
      values[position] = value
    }
    return position
  }

  /// The position of `key`, if the table holds it.
  func position(of key: Key) -> Int? { positions.position(of: key, in: keys) }

  /// The position of the key whose text is `utf8`, if the table holds it.
  func position(ofUTF8 utf8: UnsafeBufferPointer<UInt8>) -> Int? {
    positions.position(ofBytes: UnsafeRawBufferPointer(utf8), in: keys)
  }

  /// Changes the value for `key` in place; does nothing when there is none.
  /// - Returns: whether there was a value.
  @discardableResult
  mutating func update(_ key: Key, _ body: (inout Value) -> Void) -> Bool {
    guard let position = positions.position(of: key, in: keys) else { return false }
    body(&values[position])
    return true
  }

  /// Removes `key`'s value, moving the last entity into its place.
  /// - Returns: the removed value, if there was one.
  @discardableResult
  mutating func remove(_ key: Key) -> Value? {
    guard let position = positions.remove(key, in: keys) else { return nil }
    let removed = values[position]
    let last = keys.count - 1
    if position != last {
      keys[position] = keys[last]
      values[position] = values[last]
      positions.move(keys[position], from: last, to: position)
    }
    keys.removeLast()
    values.removeLast()
    return removed
  }

  /// Appends an entity read from a checkpoint.
  /// - Returns: `false`, changing nothing, when `key` is already there.
  mutating func appendDecoded(_ key: Key, _ value: Value) -> Bool {
    let end = keys.count
    guard positions.position(of: key, in: keys, insertingAt: end) == end else { return false }
    keys.append(key)
    values.append(value)
    return true
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for (key, value) in zip(lhs.keys, lhs.values) where rhs[key] != value {
      return false
    }
    return true
  }

  /// Checks the positions agree with the arrays; for debug builds and tests.
  func checkInvariants() {
    precondition(keys.count == values.count, "one value a key")
    precondition(positions.count == keys.count, "one position a key")
    positions.checkInvariants(keys: keys)
  }
}
