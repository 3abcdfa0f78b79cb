import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A key a `PositionIndex` can hash: text, hashed from its UTF-8 bytes. Two keys are equal
/// exactly when their texts are.
protocol IndexKey: Hashable, Sendable {
  /// The text the key is made of (its `rawValue`).
  var indexText: String { get }
}

extension ContactID: IndexKey {
  var indexText: String { rawValue }
}

extension StateName: IndexKey {
  var indexText: String { rawValue }
}

extension ZipCode: IndexKey {
  var indexText: String { rawValue }
}

extension ObservationID: IndexKey {
  var indexText: String { rawValue }
}

extension AnimalID: IndexKey {
  var indexText: String { rawValue }
}

extension LocationID: IndexKey {
  var indexText: String { rawValue }
}

extension String: IndexKey {
  var indexText: String { self }
}

/// Where each key sits in an array of keys: an open-addressing hash table of positions, built
/// for `apply`'s one lookup an event.
///
/// `Dictionary<Key, Int>` costs a SipHash of the key and touches three arrays (occupancy bits,
/// keys, values) before the caller even reaches its value; with string keys it also compares
/// whole strings for every probed slot. Here a slot is 8 bytes, the key's 32-bit hash tag and
/// its position, in one array: a lookup reads one slot (linear probing, at most half full) and
/// compares the key only when the tag matches. The hash is a fixed, unkeyed mix of the key's
/// UTF-8 bytes, eight at a time.
///
/// - Note: An unkeyed hash means a log crafted to collide could make lookups slow (never wrong);
///   the engine reads its own logs, so speed won over a per-process seed.
struct PositionIndex<Key: IndexKey>: Sendable {
  private typealias Slot = PositionSlot

  private var slots: [Slot]
  private var mask: Int
  private(set) var count: Int

  init(minimumCapacity: Int = 0) {
    var capacity = 16
    while capacity < minimumCapacity * 2 { capacity *= 2 }
    slots = [Slot](repeating: .empty, count: capacity)
    mask = capacity - 1
    count = 0
  }

  /// The hash of `key`'s UTF-8 bytes.
  static func hash(_ key: Key) -> UInt64 {
    var text = key.indexText
    return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
  }

  /// The hash of a key whose text is `bytes` (UTF-8).
  static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
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
      hash = mix(hash ^ tail)
    }
    return hash
  }

  /// A 64-bit finaliser (Stafford's variant 13 of MurmurHash3's).
  private static func mix(_ value: UInt64) -> UInt64 {
    var value = value
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// The slot index a hash starts probing at, and its tag.
  private func start(_ hash: UInt64) -> (slot: Int, tag: UInt32) {
    (Int(truncatingIfNeeded: hash) & mask, UInt32(truncatingIfNeeded: hash >> 32))
  }

  /// The position of `key`, whose keys are `keys` (the key at each position).
  func position(of key: Key, in keys: [Key]) -> Int? {
    let (first, tag) = start(Self.hash(key))
    return slots.withUnsafeBufferPointer { slots in
      var slot = first
      while true {
        let entry = slots[slot]
        if entry.position < 0 { return nil }
        if entry.tag == tag, keys[Int(entry.position)] == key { return Int(entry.position) }
        slot = (slot + 1) & mask
      }
    }
  }

  /// The position of the key whose text is `utf8`, found without making the key: the same
  /// answer as `position(of:in:)` for that key.
  func position(ofUTF8 utf8: UnsafeBufferPointer<UInt8>, in keys: [Key]) -> Int? {
    let bytes = UnsafeRawBufferPointer(utf8)
    let (first, tag) = start(Self.hash(bytes))
    return slots.withUnsafeBufferPointer { slots in
      var slot = first
      while true {
        let entry = slots[slot]
        if entry.position < 0 { return nil }
        if entry.tag == tag {
          let position = Int(entry.position)
          var text = keys[position].indexText
          let sameBytes = text.withUTF8 { stored in
            guard let storedBase = stored.baseAddress, let base = utf8.baseAddress else {
              return stored.count == utf8.count
            }
            return stored.count == utf8.count && memcmp(storedBase, base, utf8.count) == 0
          }
          // Text equality is canonical equivalence: bytes that differ may still be equal text.
          if sameBytes || text == String(decoding: utf8, as: UTF8.self) { return position }
        }
        slot = (slot + 1) & mask
      }
    }
  }

  /// The position of `key`; when it is not there, first records it at `position`. One probe
  /// sequence either way.
  /// - Precondition: when absent, `keys` does not hold `key` (the caller appends it next).
  mutating func position(
    of key: Key, in keys: [Key], insertingAt position: Int
  ) -> Int {
    if (count + 1) * 2 > slots.count { grow(keys: keys) }
    let (first, tag) = start(Self.hash(key))
    let mask = mask
    let found: Int? = slots.withUnsafeMutableBufferPointer { slots in
      var slot = first
      while true {
        let entry = slots[slot]
        if entry.position < 0 {
          slots[slot] = Slot(tag: tag, position: Int32(position))
          return nil
        }
        if entry.tag == tag, keys[Int(entry.position)] == key { return Int(entry.position) }
        slot = (slot + 1) & mask
      }
    }
    if let found { return found }
    count += 1
    return position
  }

  /// Records that the key now at `newPosition` moved there from `oldPosition`.
  mutating func move(_ key: Key, from oldPosition: Int, to newPosition: Int) {
    let (first, _) = start(Self.hash(key))
    var slot = first
    while slots[slot].position != Int32(oldPosition) {
      precondition(slots[slot].position >= 0, "moving a key the index does not hold")
      slot = (slot + 1) & mask
    }
    slots[slot].position = Int32(newPosition)
  }

  /// Forgets `key` and returns its position, if it was there.
  mutating func remove(_ key: Key, in keys: [Key]) -> Int? {
    let (first, tag) = start(Self.hash(key))
    var slot = first
    while true {
      let entry = slots[slot]
      if entry.position < 0 { return nil }
      if entry.tag == tag, keys[Int(entry.position)] == key { break }
      slot = (slot + 1) & mask
    }
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
    count -= 1
    return position
  }

  private mutating func grow(keys: [Key]) {
    let old = slots
    slots = [Slot](repeating: .empty, count: old.count * 2)
    mask = slots.count - 1
    for entry in old where entry.position >= 0 {
      let (first, _) = start(Self.hash(keys[Int(entry.position)]))
      var slot = first
      while slots[slot].position >= 0 { slot = (slot + 1) & mask }
      slots[slot] = entry
    }
  }

  /// Checks every key is found at its position; for tests.
  func checkInvariants(keys: [Key]) {
    precondition(count == keys.count, "index count \(count), \(keys.count) keys")
    precondition(slots.count >= 2 * count, "more than half full")
    for (position, key) in keys.enumerated() {
      precondition(self.position(of: key, in: keys) == position, "\(key) not at \(position)")
    }
  }
}

/// A slot of a `PositionIndex`.
private struct PositionSlot: Sendable {
  /// The key's hash, truncated; any value when empty.
  var tag: UInt32
  /// The key's position, or -1 for an empty slot.
  var position: Int32

  static let empty = PositionSlot(tag: 0, position: -1)
}
