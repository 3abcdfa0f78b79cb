/// Where each key sits in an array of keys: an open-addressing hash table of positions, keyed
/// by the keys' UTF-8 bytes. The one table behind the read models' entities (`EntityTable`) and
/// the writer's streams (`StreamTable`).
///
/// The caller keeps the keys in an array (the key at each position) and passes it to every
/// call; the table holds only positions. `Dictionary<Key, Int>` would cost a SipHash of the key
/// and touch three arrays before the caller even reaches its value, and would make a `String`
/// for a key read from a log line. Here a slot is 8 bytes, the key's 32-bit hash tag and its
/// position, in one array: a lookup reads one slot (linear probing, at most half full) and
/// compares bytes only when the tag matches. Keys are found by their bytes straight from a line
/// (`position(ofBytes:in:)`) as well as by key.
///
/// - Note: The hash is a fixed, unkeyed mix of the bytes, eight at a time. A log crafted to
///   collide could make lookups slow (never wrong); the engine reads its own logs, so speed won
///   over a per-process seed.
/// - Note: SPI (`@_spi(Tables) import Events`), not `package`: Swift 6.0 neither inlines nor
///   specializes an `@inlinable package` method in another module, and unspecialized lookups
///   cost replay 6 % more instructions an event.
@_spi(Tables)
public struct ByteKeyedTable<Key: UTF8Identifier>: Sendable {
  @usableFromInline var slots: [ByteKeyedSlot]
  @usableFromInline var mask: Int
  @usableFromInline var recorded: Int

  /// The number of keys recorded.
  @inlinable public var count: Int { recorded }

  /// An empty table with room for `minimumCapacity` keys before it grows.
  @inlinable
  public init(minimumCapacity: Int = 0) {
    var capacity = 16
    while capacity < minimumCapacity * 2 { capacity *= 2 }
    slots = HugePages.array(repeating: ByteKeyedSlot.empty, count: capacity)
    mask = capacity - 1
    recorded = 0
  }

  /// The hash of `bytes`, a key's UTF-8 bytes: FNV-1a over eight bytes at a time (the last
  /// few packed into one word), then a final mix so that both the slot (low bits) and the tag
  /// (high bits) depend on every byte.
  @inlinable
  public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash =
        (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01B3
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      var shift: UInt64 = 0
      while offset < bytes.count {
        tail |= UInt64(bytes[offset]) << shift
        shift += 8
        offset += 1
      }
      hash = (hash ^ tail) &* 0x100_0000_01B3
    }
    return mix(hash)
  }

  /// The hash of `key`'s bytes.
  @inlinable
  public static func hash(_ key: Key) -> UInt64 {
    var text = key.rawValue
    return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
  }

  /// A 64-bit finaliser (Stafford's variant 13 of MurmurHash3's).
  @inlinable
  static func mix(_ value: UInt64) -> UInt64 {
    var value = value
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// The slot a hash starts probing at, and its tag.
  @inlinable
  func start(_ hash: UInt64) -> (slot: Int, tag: UInt32) {
    (Int(truncatingIfNeeded: hash) & mask, UInt32(truncatingIfNeeded: hash >> 32))
  }

  /// Whether `key`'s bytes are `bytes`.
  @inlinable @inline(__always)
  static func key(_ key: Key, hasBytes bytes: UnsafeRawBufferPointer) -> Bool {
    // In place when the text is stored as UTF-8 (no copy of the key, so no reference count);
    // a bridged string is copied first.
    if let equal = key.rawValue.utf8.withContiguousStorageIfAvailable({
      UTF8Bytes.equal(UnsafeRawBufferPointer($0), bytes)
    }) {
      return equal
    }
    var text = key.rawValue
    return text.withUTF8 { UTF8Bytes.equal(UnsafeRawBufferPointer($0), bytes) }
  }

  /// The position of the key whose bytes are `bytes`, hashed as `hash`.
  @inlinable
  public func position(
    ofBytes bytes: UnsafeRawBufferPointer, hash: UInt64, in keys: [Key]
  ) -> Int? {
    let (first, tag) = start(hash)
    let mask = mask
    return slots.withUnsafeBufferPointer { slots in
      var slot = first
      while true {
        let entry = slots[slot]
        if entry.position < 0 { return nil }
        if entry.tag == tag, Self.key(keys[Int(entry.position)], hasBytes: bytes) {
          return Int(entry.position)
        }
        slot = (slot + 1) & mask
      }
    }
  }

  /// The position of the key whose bytes are `bytes`.
  @inlinable
  public func position(ofBytes bytes: UnsafeRawBufferPointer, in keys: [Key]) -> Int? {
    position(ofBytes: bytes, hash: Self.hash(bytes), in: keys)
  }

  /// The position of `key`, whose keys are `keys` (the key at each position).
  @inlinable
  public func position(of key: Key, in keys: [Key]) -> Int? {
    var text = key.rawValue
    return text.withUTF8 { position(ofBytes: UnsafeRawBufferPointer($0), in: keys) }
  }

  /// The position of the key whose bytes are `bytes`; when it is not there, first records it
  /// at `position`. One probe sequence either way.
  /// - Precondition: when absent, the caller puts the key at `position` of `keys` next.
  @inlinable
  public mutating func position(
    ofBytes bytes: UnsafeRawBufferPointer, hash: UInt64, in keys: [Key],
    insertingAt position: Int
  ) -> Int {
    if (count + 1) * 2 > slots.count { grow(keys: keys) }
    let (first, tag) = start(hash)
    let mask = mask
    let found: Int? = slots.withUnsafeMutableBufferPointer { slots in
      var slot = first
      while true {
        let entry = slots[slot]
        if entry.position < 0 {
          slots[slot] = ByteKeyedSlot(tag: tag, position: Int32(position))
          return nil
        }
        if entry.tag == tag, Self.key(keys[Int(entry.position)], hasBytes: bytes) {
          return Int(entry.position)
        }
        slot = (slot + 1) & mask
      }
    }
    if let found { return found }
    recorded += 1
    return position
  }

  /// The position of `key`; when it is not there, first records it at `position`.
  /// - Precondition: when absent, the caller puts `key` at `position` of `keys` next.
  @inlinable
  public mutating func position(
    of key: Key, in keys: [Key], insertingAt position: Int
  ) -> Int {
    var text = key.rawValue
    return text.withUTF8 { utf8 in
      let bytes = UnsafeRawBufferPointer(utf8)
      return self.position(
        ofBytes: bytes, hash: Self.hash(bytes), in: keys, insertingAt: position)
    }
  }

  /// Records that the key now at `newPosition` moved there from `oldPosition`.
  @inlinable
  public mutating func move(_ key: Key, from oldPosition: Int, to newPosition: Int) {
    var slot = start(Self.hash(key)).slot
    while slots[slot].position != Int32(oldPosition) {
      precondition(slots[slot].position >= 0, "moving a key the table does not hold")
      slot = (slot + 1) & mask
    }
    slots[slot].position = Int32(newPosition)
  }

  /// Forgets `key` and returns its position, if it was there.
  @inlinable
  public mutating func remove(_ key: Key, in keys: [Key]) -> Int? {
    var text = key.rawValue
    let found: Int? = text.withUTF8 { utf8 in
      let bytes = UnsafeRawBufferPointer(utf8)
      let (first, tag) = start(Self.hash(bytes))
      var slot = first
      while true {
        let entry = slots[slot]
        if entry.position < 0 { return nil }
        if entry.tag == tag, Self.key(keys[Int(entry.position)], hasBytes: bytes) { return slot }
        slot = (slot + 1) & mask
      }
    }
    guard let slot = found else { return nil }
    let position = Int(slots[slot].position)
    // Backward-shift deletion: pull later slots of the same run into the hole, so no lookup
    // ever stops early at it.
    var hole = slot
    var next = (slot + 1) & mask
    while slots[next].position >= 0 {
      let home = start(Self.hash(keys[Int(slots[next].position)])).slot
      // Move `next` into the hole unless its home lies cyclically in (hole, next].
      let distanceToNext = (next - home) & mask
      let distanceToHole = (hole - home) & mask
      if distanceToHole < distanceToNext {
        slots[hole] = slots[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    slots[hole] = .empty
    recorded -= 1
    return position
  }

  @usableFromInline
  mutating func grow(keys: [Key]) {
    let old = slots
    slots = HugePages.array(repeating: ByteKeyedSlot.empty, count: old.count * 2)
    mask = slots.count - 1
    for entry in old where entry.position >= 0 {
      var slot = start(Self.hash(keys[Int(entry.position)])).slot
      while slots[slot].position >= 0 { slot = (slot + 1) & mask }
      slots[slot] = entry
    }
  }

  /// Checks every key is found at its position; for tests.
  public func checkInvariants(keys: [Key]) {
    precondition(slots.count >= 2 * count, "more than half full")
    for (position, key) in keys.enumerated() {
      precondition(
        self.position(of: key, in: keys) == position, "'\(key.rawValue)' not at \(position)")
    }
  }
}

/// A slot of a `ByteKeyedTable`.
@usableFromInline
struct ByteKeyedSlot: Sendable {
  /// The key's hash, truncated; any value when empty.
  @usableFromInline var tag: UInt32
  /// The key's position, or -1 for an empty slot.
  @usableFromInline var position: Int32

  @usableFromInline
  init(tag: UInt32, position: Int32) {
    self.tag = tag
    self.position = position
  }

  @usableFromInline static let empty = ByteKeyedSlot(tag: 0, position: -1)
}
