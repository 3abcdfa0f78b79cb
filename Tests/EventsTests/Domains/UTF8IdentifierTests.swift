import Testing

@testable import Events

@Suite struct UTF8IdentifierTests {
  static let composed = "\u{E9}"
  static let decomposed = "e\u{301}"

  @Test func canonicallyEquivalentIdsAreTwoIds() throws {
    // `String` calls them equal; the log has them as two streams, and so do ids.
    #expect(Self.composed == Self.decomposed)
    try check(ContactID(Self.composed), ContactID(Self.decomposed))
    try check(StateName(Self.composed), StateName(Self.decomposed))
    try check(LocationID(Self.composed), LocationID(Self.decomposed))
    try check(ContactID("K"), ContactID("\u{212A}"))
  }

  private func check<ID: UTF8Identifier>(_ first: ID, _ second: ID) {
    #expect(first != second)
    #expect(Set([first, second]).count == 2)
    #expect([first: 1, second: 2].count == 2)
    // Exactly one of <, > and == holds: the order is consistent with equality.
    #expect((first < second) != (second < first))
  }

  @Test func idsWithTheSameBytesAreEqualAndHashAlike() throws {
    let direct = try ContactID("Zoë 13")
    let rebuilt = try ContactID(String(decoding: Array("Zoë 13".utf8), as: UTF8.self))
    let sliced = try ContactID(String("x Zoë 13".dropFirst(2)))
    #expect(direct == rebuilt && rebuilt == sliced)
    #expect(Set([direct, rebuilt, sliced]).count == 1)
    #expect(direct.hashValue == sliced.hashValue)
  }

  @Test func idsSortByTheirBytes() throws {
    let ids = try ["é", "b", "e\u{301}", "a", "B", "ab", "大"].map { try ContactID($0) }
    #expect(ids.sorted().map(\.rawValue) == ["B", "a", "ab", "b", "e\u{301}", "é", "大"])
  }

  @Test func asciiIdsSortAsTheirText() throws {
    let texts = ["13", "2", "100", "zoo", "Zoo", "a-b", "a b", "~"]
    let ids = try texts.map { try StateName($0) }
    #expect(ids.sorted().map(\.rawValue) == texts.sorted())
  }
}
