#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Every stream's line offsets, looked up by the stream name's bytes.
///
/// The writer's index records a stream for every line of the log when it opens one; a
/// `Dictionary<String, …>` would make a `String` and a SipHash per line. This table hashes the
/// name's bytes straight from the line and makes a `String` only for a stream it has not seen.
/// Open addressing with linear probing; the slot array doubles at 50 % load.
struct StreamTable {
  /// One stream: its name and its lines' offsets in version order.
  struct Entry {
    var name: String
    var offsets: [Int64]
  }

  /// The streams, in the order they first appeared.
  private(set) var entries: [Entry] = []
  /// Per slot: the entry's index + 1 (0 for an empty slot).
  private var slots: [Int32] = Array(repeating: 0, count: 1024)
  /// Per slot: the name's hash, to skip most name comparisons.
  private var hashes: [UInt64] = Array(repeating: 0, count: 1024)

  /// The number of streams.
  var count: Int { entries.count }

  /// A stream's offsets, or `nil` when it has no events.
  func offsets(of name: String) -> [Int64]? {
    var name = name
    return name.withUTF8 { bytes in
      find(bytes, hash: Self.hash(bytes)).map { entries[$0].offsets }
    }
  }

  /// The stream's version: how many events it has.
  func version(of name: String) -> Int64 {
    Int64(offsets(of: name)?.count ?? 0)
  }

  /// Appends `offset` to the stream named by `bytes` (valid UTF-8, unescaped), creating it
  /// with `name()` when it is new; returns the stream's version before the append.
  @discardableResult
  mutating func append(
    _ offset: Int64, toStreamNamed bytes: UnsafeBufferPointer<UInt8>, name: () -> String
  ) -> Int64 {
    let hash = Self.hash(bytes)
    if let index = find(bytes, hash: hash) {
      let previous = Int64(entries[index].offsets.count)
      entries[index].offsets.append(offset)
      return previous
    }
    if (entries.count + 1) * 2 > slots.count { grow() }
    entries.append(Entry(name: name(), offsets: [offset]))
    insert(entryIndex: entries.count - 1, hash: hash)
    return 0
  }

  /// Appends `offset` to the stream `name`.
  mutating func append(_ offset: Int64, toStream name: String) {
    var utf8 = name
    utf8.withUTF8 { bytes in
      _ = append(offset, toStreamNamed: bytes, name: { name })
    }
  }

  private func find(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int? {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let stored = Int(slots[slot])
      if stored == 0 { return nil }
      if hashes[slot] == hash, Self.equal(entries[stored - 1].name, bytes) { return stored - 1 }
      slot = (slot + 1) & mask
    }
  }

  private mutating func insert(entryIndex: Int, hash: UInt64) {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] != 0 { slot = (slot + 1) & mask }
    slots[slot] = Int32(entryIndex + 1)
    hashes[slot] = hash
  }

  private mutating func grow() {
    let capacity = slots.count * 2
    slots = Array(repeating: 0, count: capacity)
    hashes = Array(repeating: 0, count: capacity)
    for index in entries.indices {
      var name = entries[index].name
      let hash = name.withUTF8 { Self.hash($0) }
      insert(entryIndex: index, hash: hash)
    }
  }

  private static func equal(_ name: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var name = name
    return name.withUTF8 { stored in
      guard stored.count == bytes.count else { return false }
      guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }
      return memcmp(left, right, bytes.count) == 0
    }
  }

  /// FNV-1a over eight bytes at a time, then a final mix.
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    var index = 0
    if let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      while index + 8 <= bytes.count {
        hash = (hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x100_0000_01B3
        index += 8
      }
    }
    while index < bytes.count {
      hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01B3
      index += 1
    }
    hash ^= hash >> 32
    hash &*= 0xD6E8_FEB8_6659_FD93
    return hash ^ (hash >> 32)
  }
}
