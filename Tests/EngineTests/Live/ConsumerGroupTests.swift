import Engine
import Events
import Testing

/// `ConsumerGroup`: Message DB's `hash_64` (MD5's first 64 bits, big-endian, signed) and its
/// split of streams by cardinal id; `PostgresFollowTests` checks it against the server's own.
@Suite struct ConsumerGroupTests {
  @Test func hash64IsMD5sFirstEightBytes() {
    // RFC 1321's test suite, first 8 bytes of each digest.
    let vectors: [(String, UInt64)] = [
      ("", 0xd41d_8cd9_8f00_b204),
      ("a", 0x0cc1_75b9_c0f1_b6a8),
      ("abc", 0x9001_5098_3cd2_4fb0),
      ("message digest", 0xf96b_697d_7cb7_938d),
      ("abcdefghijklmnopqrstuvwxyz", 0xc3fc_d3d7_6192_e400),
      (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        0x57ed_f4a2_2be3_c955
      ),
    ]
    for (text, expected) in vectors {
      #expect(ConsumerGroup.hash64(Array(text.utf8)) == Int64(bitPattern: expected), "\(text)")
    }
  }

  @Test func aStreamGoesToOneMemberByItsCardinalID() throws {
    let size: Int64 = 3
    let members = (0..<size).compactMap { ConsumerGroup(member: $0, size: size) }
    #expect(members.count == 3)
    for stream in ["contact-13", "contact-13+x", "account-1+2", "a-b-c", "contact-", "nodash"] {
      let owners = members.filter { $0.contains(stream: Array(stream.utf8)) }
      #expect(owners.count == 1, "\(stream)")
    }
    // A compound stream goes with its entity: the id before the '+'.
    #expect(
      ConsumerGroup.member(of: Array("account-1+2".utf8), size: 7)
        == ConsumerGroup.member(of: Array("account-1".utf8), size: 7))
    // The magnitude of the hash modulo the size, as the SQL's mod(@hash, size).
    let hash = ConsumerGroup.hash64(Array("13".utf8))
    #expect(
      ConsumerGroup.member(of: Array("contact-13".utf8), size: 5)
        == Int64(hash.magnitude % 5))
  }

  @Test func badGroupsAreRefused() {
    #expect(ConsumerGroup(member: 0, size: 0) == nil)
    #expect(ConsumerGroup(member: 2, size: 2) == nil)
    #expect(ConsumerGroup(member: -1, size: 2) == nil)
    #expect(ConsumerGroup("1/2") == ConsumerGroup(member: 1, size: 2))
    #expect(ConsumerGroup("x") == nil)
    #expect(ConsumerGroup("1/2/3") == nil)
    #expect(ConsumerGroup("2/2") == nil)
  }

  @Test func theFilterKeepsOnlyTheMembersStreams() throws {
    let group = try #require(ConsumerGroup(member: 1, size: 2))
    let filter = EventFilter(categories: ["contact"], group: group)
    #expect(!filter.isEmpty)
    #expect(!EventFilter(group: group).isEmpty)
  }

  @Test func followersOfEachMemberTogetherSeeEveryEventOnce() throws {
    var all: [(Int64, String)] = []
    try LogReader(path: RepositoryFiles.sampleLog).forEachEvent(
      matching: EventFilter(categories: ["contact"])
    ) { line in
      all.append((line.sequence, line.stream))
      return true
    }
    #expect(all.count > 20)
    var seen: [Int64] = []
    var owners: [String: Int64] = [:]
    for member in Int64(0)..<3 {
      let group = try #require(ConsumerGroup(member: member, size: 3))
      let follower = LogFollower(
        path: RepositoryFiles.sampleLog, filter: EventFilter(categories: ["contact"], group: group))
      try follower.follow(through: 147) { line in
        seen.append(line.sequence)
        #expect(owners[line.stream, default: member] == member, "\(line.stream)")
        owners[line.stream] = member
        return true
      }
    }
    #expect(seen.sorted() == all.map(\.0))
    #expect(Set(owners.values).count == 3)
  }
}
