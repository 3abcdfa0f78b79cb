@_spi(Tables) import Events

/// A read model's entities by id, in the order they were first seen: the storage every model
/// folds into.
///
/// Values live in one `PagedArray` (growing never copies them), found through a
/// `ByteKeyedTable`, so `apply` costs one hash lookup and changes a value in place, and encoding
/// walks the values in a deterministic order (the same log always gives the same order, and the
/// same checkpoint bytes). Removal moves the last entity into the hole, which is deterministic
/// too.
///
/// Two tables are equal when they map the same ids to equal values, whatever their order: order
/// is storage, not state (views sort).
///
/// **Values left in a checkpoint.** A model may load its entities with ``beginStored(bytes:read:)``
/// and ``appendStored(_:placeholder:offset:)``: the ids go into the table, each value stays as
/// bytes in the checkpoint (already checked by the model's load) and is read out only when
/// something asks for it. `update` and `set` read it out (or replace it) first, so folding
/// an event costs what it did; `value(at:)` reads it without keeping it. A `state` or
/// `--at` that loads 20 000 contacts and looks at one then builds one record's `String`s, not
/// 20 000.
struct EntityTable<Key: UTF8Identifier & Sendable, Value: Sendable & Equatable>: Sendable,
  Equatable
{
  /// The ids, by position.
  private(set) var keys: [Key] = []
  /// The values, by position; a placeholder where `stored` still holds the value.
  private var storage = PagedArray<Value>()
  /// Each id's position.
  private var positions = ByteKeyedTable<Key>()
  /// The values still in a checkpoint's bytes, when the table was loaded that way.
  private var stored: StoredValues<Key, Value>?

  /// The values, by position, each read when asked for (values still in a checkpoint are read
  /// out, not kept): for walking them once. A view that reads them more than once (a sort)
  /// makes an array of them first.
  var values: LazyMapCollection<Range<Int>, Value> {
    (0..<keys.count).lazy.map { value(at: $0) }
  }

  /// The value at `position`.
  func value(at position: Int) -> Value {
    if let stored, let value = stored.value(at: position, key: keys[position]) { return value }
    return storage[position]
  }

  init() {}

  /// An empty table with room for `capacity` entities.
  init(minimumCapacity capacity: Int) {
    // Large tables (a checkpoint's 200 000 contacts) are filled at once: see `HugePages`.
    keys = HugePages.reserved(capacity: capacity)
    positions = ByteKeyedTable(minimumCapacity: capacity)
  }

  /// The number of entities.
  var count: Int { keys.count }

  /// The value for `key`, if any.
  subscript(key: Key) -> Value? {
    guard let position = positions.position(of: key, in: keys) else { return nil }
    return value(at: position)
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
      storage.append(value)
      stored?.offsets.append(-1)
    } else {
      storage[position] = value
      stored?.offsets[position] = -1
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
    if stored != nil { readOut(position) }
    body(&storage[position])
    return true
  }

  /// Moves the value at `position` out of the checkpoint's bytes into `storage`.
  private mutating func readOut(_ position: Int) {
    guard let value = stored?.value(at: position, key: keys[position]) else { return }
    storage[position] = value
    stored?.offsets[position] = -1
  }

  /// Removes `key`'s value, moving the last entity into its place.
  /// - Returns: the removed value, if there was one.
  @discardableResult
  mutating func remove(_ key: Key) -> Value? {
    guard let position = positions.remove(key, in: keys) else { return nil }
    let removed = value(at: position)
    let last = keys.count - 1
    let lastValue = storage.removeLast()
    if position != last {
      keys[position] = keys[last]
      storage[position] = lastValue
      if let offset = stored?.offsets[last] { stored?.offsets[position] = offset }
      positions.move(keys[position], from: last, to: position)
    }
    keys.removeLast()
    stored?.offsets.removeLast()
    return removed
  }

  /// Appends an entity read from a checkpoint.
  /// - Returns: `false`, changing nothing, when `key` is already there.
  mutating func appendDecoded(_ key: Key, _ value: Value) -> Bool {
    let end = keys.count
    guard positions.position(of: key, in: keys, insertingAt: end) == end else { return false }
    keys.append(key)
    storage.append(value)
    stored?.offsets.append(-1)
    return true
  }

  /// Starts a load whose values stay in `bytes` (the checkpoint's, shared) until used:
  /// `read` reads the value of the entity whose id is given from a reader at the offset
  /// ``appendStored(_:placeholder:offset:)`` recorded. The load must have checked every byte
  /// `read` will read, so that `read` cannot fail.
  /// - Precondition: the table is empty.
  mutating func beginStored(
    bytes: [UInt8],
    read: @escaping @Sendable (Key, inout BinaryReader) throws(ProjectionsError) -> Value
  ) {
    precondition(keys.isEmpty, "a stored load starts empty")
    let offsets = HugePages.reserved(Int.self, capacity: keys.capacity)
    stored = StoredValues(bytes: bytes, offsets: offsets, read: read)
  }

  /// Appends an entity whose value stays at `offset` in the bytes given to `beginStored`;
  /// `placeholder` stands in for it in `storage` and is never shown.
  /// - Returns: `false`, changing nothing, when `key` is already there.
  mutating func appendStored(_ key: Key, placeholder: Value, offset: Int) -> Bool {
    guard appendDecoded(key, placeholder) else { return false }
    stored?.offsets[keys.count - 1] = offset
    return true
  }

  /// The checkpoint bytes and offset the value at `position` is still stored at, or `nil`
  /// once the table's array holds it: a model writing a checkpoint again may copy what it
  /// loaded, unread.
  func storedBytes(at position: Int) -> (bytes: [UInt8], offset: Int)? {
    guard let stored, stored.offsets[position] >= 0 else { return nil }
    return (stored.bytes, stored.offsets[position])
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for (position, key) in lhs.keys.enumerated() where rhs[key] != lhs.value(at: position) {
      return false
    }
    return true
  }

  /// Checks the positions agree with the arrays; for debug builds and tests.
  func checkInvariants() {
    precondition(keys.count == storage.count, "one value a key")
    if let stored { precondition(stored.offsets.count == keys.count, "one offset a key") }
    precondition(positions.count == keys.count, "one position a key")
    positions.checkInvariants(keys: keys)
  }
}

/// The values of an ``EntityTable`` still in a checkpoint's bytes.
struct StoredValues<Key: Sendable, Value: Sendable>: Sendable {
  /// The checkpoint's bytes, shared by the models loaded from it.
  let bytes: [UInt8]
  /// By position: where the value starts in `bytes`, or -1 once the table's array holds it.
  var offsets: [Int]
  /// Reads one value; never fails on bytes the load checked.
  let read: @Sendable (Key, inout BinaryReader) throws(ProjectionsError) -> Value

  /// The value at `position` read out of `bytes`, or `nil` when the table's array holds it.
  func value(at position: Int, key: Key) -> Value? {
    let offset = offsets[position]
    guard offset >= 0 else { return nil }
    var reader = BinaryReader(bytes, range: offset..<bytes.count)
    // The load checked these bytes; were they ever unreadable, the placeholder stands.
    return try? read(key, &reader)
  }
}
