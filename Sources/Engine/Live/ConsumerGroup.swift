/// One member of a consumer group: `size` followers split the streams between them, each
/// stream's events all going to one member, chosen as Message DB's `get_category_messages`
/// chooses it with `consumer_group_member` and `consumer_group_size`.
///
/// A stream belongs to member `|hash_64(cardinal_id(stream))| mod size`, where
/// - the cardinal id is the stream name's part after its first `-`, up to its first `+`
///   (`account-1+2` has the cardinal id `1`, so compound streams go with their entity);
/// - `hash_64` is the first 64 bits of the MD5 digest of the cardinal id's UTF-8 bytes, read
///   big-endian as a signed integer (Message DB's `left('x' || md5(value), 17)::bit(64)::bigint`).
///
/// A stream with no id (no `-` in its name, which Message DB's readers never return for a
/// category) belongs to member 0, so that the members together still see every event.
///
/// ```swift
/// let second = try #require(ConsumerGroup("1/3"))
/// let follower = LogFollower(path: "app.jsonl", filter: EventFilter(categories: ["contact"], group: second))
/// ```
public struct ConsumerGroup: Sendable, Equatable, CustomStringConvertible {
  /// This member, from 0.
  public let member: Int64
  /// The members of the group.
  public let size: Int64

  /// nil unless `size` ≥ 1 and 0 ≤ `member` < `size`.
  public init?(member: Int64, size: Int64) {
    guard size >= 1, member >= 0, member < size else { return nil }
    self.member = member
    self.size = size
  }

  /// Parses `<member>/<size>` such as `0/3`; nil for anything else or values out of range.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let member = Int64(parts[0]), let size = Int64(parts[1]) else {
      return nil
    }
    self.init(member: member, size: size)
  }

  /// `<member>/<size>`.
  public var description: String { "\(member)/\(size)" }

  /// Whether the stream named by `stream` (its UTF-8 bytes) belongs to this member.
  public func contains(stream: some Collection<UInt8>) -> Bool {
    Self.member(of: stream, size: size) == member
  }

  /// The member of a group of `size` that the stream named by `stream` belongs to.
  public static func member(of stream: some Collection<UInt8>, size: Int64) -> Int64 {
    guard let dash = stream.firstIndex(of: 0x2D) else { return 0 }
    let id = stream[stream.index(after: dash)...]
    let cardinal = id.prefix(while: { $0 != 0x2B })
    return Int64(hash64(Array(cardinal)).magnitude % UInt64(size))
  }

  /// Message DB's `hash_64`: the first 8 bytes of the MD5 digest of `bytes`, big-endian, as a
  /// signed integer.
  public static func hash64(_ bytes: [UInt8]) -> Int64 {
    let digest = MD5.digest(bytes)
    var value: UInt64 = 0
    for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
    return Int64(bitPattern: value)
  }
}

/// MD5 (RFC 1321), only as Message DB's `hash_64` uses it: to spread streams over a consumer
/// group's members, never for security.
enum MD5 {
  private static let shifts: [UInt32] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
  ]

  /// `floor(abs(sin(i + 1)) * 2^32)` for i in 0..<64.
  private static let constants: [UInt32] = [
    0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613,
    0xfd46_9501, 0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193,
    0xa679_438e, 0x49b4_0821, 0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d,
    0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8, 0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed,
    0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a, 0xfffa_3942, 0x8771_f681, 0x6d9d_6122,
    0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70, 0x289b_7ec6, 0xeaa1_27fa,
    0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665, 0xf429_2244,
    0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
    0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb,
    0xeb86_d391,
  ]

  /// The 16-byte digest of `message`.
  static func digest(_ message: [UInt8]) -> [UInt8] {
    var bytes = message
    let bitLength = UInt64(message.count) &* 8
    bytes.append(0x80)
    while bytes.count % 64 != 56 { bytes.append(0) }
    for shift in stride(from: 0, to: 64, by: 8) {
      bytes.append(UInt8(truncatingIfNeeded: bitLength >> shift))
    }
    var state: (UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476
    )
    var words = [UInt32](repeating: 0, count: 16)
    for block in stride(from: 0, to: bytes.count, by: 64) {
      for index in 0..<16 {
        let at = block + index * 4
        words[index] =
          UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
          | UInt32(bytes[at + 3]) << 24
      }
      var (a, b, c, d) = state
      for step in 0..<64 {
        var mixed: UInt32
        let word: Int
        switch step {
        case 0..<16:
          mixed = (b & c) | (~b & d)
          word = step
        case 16..<32:
          mixed = (d & b) | (~d & c)
          word = (5 * step + 1) % 16
        case 32..<48:
          mixed = b ^ c ^ d
          word = (3 * step + 5) % 16
        default:
          mixed = c ^ (b | ~d)
          word = (7 * step) % 16
        }
        mixed = mixed &+ a &+ constants[step] &+ words[word]
        a = d
        d = c
        c = b
        let shift = shifts[step]
        b = b &+ (mixed << shift | mixed >> (32 - shift))
      }
      state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
    var digest: [UInt8] = []
    digest.reserveCapacity(16)
    for word in [state.0, state.1, state.2, state.3] {
      for shift in stride(from: 0, to: 32, by: 8) {
        digest.append(UInt8(truncatingIfNeeded: word >> shift))
      }
    }
    return digest
  }
}
