import Events

/// A value for each event id, for the places that meet ids by the hundred thousand: the
/// index's line offsets, a write's check that no id is in it twice, `replay verify`'s check
/// that the log's ids are unique.
///
/// A `Dictionary` keyed by `EventID` hashed every id with `Hasher` (SipHash, about 150
/// instructions) and took about 260 instructions a lookup; an id is 128 bits that are random
/// or a digest, so one multiply-and-mix of its halves spreads them as well. The mix starts
/// from a seed drawn at random, so that ids chosen by an input cannot be lined up to collide
/// (one seed per process). Open addressing, probed linearly, at most half full; each slot
/// holds a tag (the hash's high bits) beside the entry's position, so that a probe past
/// another id rarely reads that id. Entries are kept in insertion order (`ids`, `values`);
/// nothing is ever removed.
struct EventIDTable<Value> {
  /// The ids, in the order they were added.
  private(set) var ids: [EventID] = []
  /// The value of each id in `ids`, at the same position.
  private(set) var values: [Value] = []
  /// 0 for an empty slot, else the tag (high 24 bits) over the entry's position + 1.
  private var slots: [UInt64]
  private var mask: Int
  private let seed: UInt64

  /// An empty table with room for `minimumCapacity` ids before it grows.
  init(minimumCapacity: Int = 0) {
    seed = eventIDTableSeed
    let capacity = Self.slotCount(for: minimumCapacity)
    slots = [UInt64](repeating: 0, count: capacity)
    mask = capacity - 1
  }

  /// The number of ids.
  var count: Int { ids.count }
  var isEmpty: Bool { ids.isEmpty }

  /// The value of `id`, or nil when it is not in the table.
  subscript(id: EventID) -> Value? {
    guard !ids.isEmpty else { return nil }
    let hash = hash(id)
    let tag = hash & ~Self.positionMask
    return slots.withUnsafeBufferPointer { slots in
      var slot = Int(truncatingIfNeeded: hash) & mask
      while true {
        let entry = slots[slot]
        if entry == 0 { return nil }
        if entry & ~Self.positionMask == tag {
          let position = Int(entry & Self.positionMask) - 1
          if ids[position] == id { return values[position] }
        }
        slot = (slot + 1) & mask
      }
    }
  }

  /// Sets the value of `id`; returns the value it had, or nil when it is new.
  @discardableResult
  mutating func updateValue(_ value: Value, forKey id: EventID) -> Value? {
    if (ids.count + 1) * 2 > slots.count { grow(to: slots.count * 2) }
    let hash = hash(id)
    let tag = hash & ~Self.positionMask
    let mask = mask
    let found: Int? = slots.withUnsafeMutableBufferPointer { slots in
      var slot = Int(truncatingIfNeeded: hash) & mask
      while true {
        let entry = slots[slot]
        if entry == 0 {
          slots[slot] = tag | UInt64(ids.count + 1)
          return nil
        }
        if entry & ~Self.positionMask == tag {
          let position = Int(entry & Self.positionMask) - 1
          if ids[position] == id { return position }
        }
        slot = (slot + 1) & mask
      }
    }
    if let found {
      defer { values[found] = value }
      return values[found]
    }
    ids.append(id)
    values.append(value)
    return nil
  }

  /// Makes room for `capacity` ids in all, so that adding them rehashes nothing.
  mutating func reserveCapacity(_ capacity: Int) {
    ids.reserveCapacity(capacity)
    values.reserveCapacity(capacity)
    let needed = Self.slotCount(for: capacity)
    if needed > slots.count { grow(to: needed) }
  }

  // MARK: Parts

  /// The bits of a slot that hold the position + 1 (room for 2^40 entries).
  private static var positionMask: UInt64 { (1 << 40) - 1 }

  /// Slots enough for `count` ids at most half full: a power of two, at least 16.
  private static func slotCount(for count: Int) -> Int {
    var capacity = 16
    while capacity / 2 < count { capacity *= 2 }
    return capacity
  }

  /// Both halves folded into one word from the table's seed, then scrambled
  /// (`GeneratorRandom.mix`, SplitMix64's finaliser): every bit of the id reaches the slot (low
  /// bits) and the tag (high bits).
  @inline(__always)
  private func hash(_ id: EventID) -> UInt64 {
    GeneratorRandom.mix((id.high ^ seed) &* 0x9E37_79B9_7F4A_7C15 ^ id.low)
  }

  /// Rehashes every id into `capacity` slots.
  private mutating func grow(to capacity: Int) {
    var grown = [UInt64](repeating: 0, count: capacity)
    let mask = capacity - 1
    grown.withUnsafeMutableBufferPointer { grown in
      for position in ids.indices {
        let hash = hash(ids[position])
        var slot = Int(truncatingIfNeeded: hash) & mask
        while grown[slot] != 0 { slot = (slot + 1) & mask }
        grown[slot] = hash & ~Self.positionMask | UInt64(position + 1)
      }
    }
    slots = grown
    self.mask = mask
  }
}

extension EventIDTable: Sendable where Value: Sendable {}

/// The seed every `EventIDTable` of this process mixes its ids from, drawn at first use.
private let eventIDTableSeed = UInt64.random(in: .min ... .max)
