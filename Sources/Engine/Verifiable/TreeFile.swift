import Events

/// The `<log>.tree` sidecar: what the log's Merkle tree needs to answer `head` and `prove`
/// without rehashing the log. A cache, bound to its log and rebuilt when it does not match.
///
/// Layout (integers unsigned little-endian 64-bit, hashes 32 bytes):
///
/// | bytes | field |
/// |---|---|
/// | 8 | magic `RPTREE03` |
/// | 8 | the device of the log file it was made from |
/// | 8 | the inode of that file (`LogFileIdentity`) |
/// | 8 | `size`: events covered |
/// | 8 | `end`: the log's byte offset just past line `size`'s `\n` |
/// | 32 | the leaf hash of line `size` (zeros when `size` is 0) |
/// | 32 | SHA-256 of the log's first min(`end`, 4096) bytes |
/// | 32 | the root of the tree of `size` leaves |
/// | 8 | `tiles` = ⌈size / 256⌉ |
/// | 8 × tiles | the byte offset in the log of the first line of each tile (seq 256·t + 1) |
/// | 32 × ⌊size / 256^k⌋ for k = 1, 2, … while non-zero | level 8k: the hash of each perfect subtree of 256^k leaves, in order |
/// | 4 | CRC-32C of every byte before it |
///
/// Leaf hashes themselves are not kept: a proof reads the ≤ 256 lines of one tile from the log
/// (at the tile's offset) and hashes them. The trailing checksum finds a damaged file (a cache
/// is not a proof: nothing in it is trusted beyond what the log's binding checks), at a tenth
/// of a millisecond for the 1.5 MB of a 10 M-event tree, where a SHA-256 of it cost ~1 ms.
struct TreeFile: Equatable {
  static let magic: [UInt8] = Array("RPTREE03".utf8)
  /// Leaves per tile, and hashes per tile at every stored level: 2^8.
  static let tileHeight = 8
  static let tileWidth: Int64 = 1 << 8
  /// How much of the log's start `firstBytesHash` covers.
  static let firstBytesCount: Int64 = 4096

  /// The log file it was made from.
  var log = LogFileIdentity(device: 0, inode: 0)
  var size: Int64 = 0
  var end: Int64 = 0
  var lastLeafHash = [UInt8](repeating: 0, count: 32)
  var firstBytesHash = [UInt8](repeating: 0, count: 32)
  var root = MerkleTree.emptyRoot
  /// The offset of the first line of each tile.
  var tileOffsets: [Int64] = []
  /// `levels[k - 1]` holds the level-8k hashes, 32 bytes each, side by side (one allocation
  /// per level, not one per hash: 39,000 of them for 10 M events).
  var levels: [[UInt8]] = []

  /// `<log>.tree`.
  static func path(forLog logPath: String) -> String { LogFiles(logPath: logPath).treePath }

  var bytes: [UInt8] {
    var output = Self.magic
    func append(_ value: Int64) {
      withUnsafeBytes(of: UInt64(value).littleEndian) { output.append(contentsOf: $0) }
    }
    for word in [log.device, log.inode] {
      withUnsafeBytes(of: word.littleEndian) { output.append(contentsOf: $0) }
    }
    append(size)
    append(end)
    output += lastLeafHash + firstBytesHash + root
    append(Int64(tileOffsets.count))
    for offset in tileOffsets { append(offset) }
    for level in levels { output += level }
    withUnsafeBytes(of: CRC32C.checksum(of: output).littleEndian) {
      output.append(contentsOf: $0)
    }
    return output
  }

  /// Parses a sidecar; `nil` when it is not one, is damaged, or does not add up.
  init?(bytes: [UInt8]) {
    let count = bytes.count
    let trailer = 4
    guard count >= 144 + trailer, Array(bytes[0..<8]) == Self.magic else { return nil }
    let stated = bytes[(count - trailer)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    guard CRC32C.checksum(of: bytes[..<(count - trailer)]) == stated else { return nil }
    var position = 8
    func word() -> UInt64? {
      guard position + 8 <= count - trailer else { return nil }
      var value: UInt64 = 0
      for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[position + index]) }
      position += 8
      return value
    }
    guard let device = word(), let inode = word() else { return nil }
    self.log = LogFileIdentity(device: device, inode: inode)
    func integer() -> Int64? {
      guard let value = word(), value <= UInt64(Int64.max) else { return nil }
      return Int64(value)
    }
    func hash() -> [UInt8]? {
      guard position + 32 <= count - trailer else { return nil }
      defer { position += 32 }
      return Array(bytes[position..<position + 32])
    }
    guard let size = integer(), let end = integer(), let last = hash(), let first = hash(),
      let root = hash(), let tiles = integer(),
      tiles == (size + Self.tileWidth - 1) / Self.tileWidth,
      tiles <= Int64(count / 8)
    else { return nil }
    self.size = size
    self.end = end
    self.lastLeafHash = last
    self.firstBytesHash = first
    self.root = root
    for _ in 0..<tiles {
      guard let offset = integer() else { return nil }
      tileOffsets.append(offset)
    }
    var levelCount = size >> Self.tileHeight
    while levelCount > 0 {
      let byteCount = Int(levelCount) * MerkleTree.hashByteCount
      guard position + byteCount <= count - trailer else { return nil }
      levels.append(Array(bytes[position..<position + byteCount]))
      position += byteCount
      levelCount >>= Self.tileHeight
    }
    guard position == count - trailer else { return nil }
  }

  init() {}
}
