import Foundation
import Testing

@testable import Events

@Suite struct EventIDTests {
  @Test func parsesAndFormatsTheTextForm() throws {
    let id = try #require(EventID("123e4567-e89b-12d3-a456-426614174000"))
    #expect(id.high == 0x123E_4567_E89B_12D3)
    #expect(id.low == 0xA456_4266_1417_4000)
    #expect(id.description == "123e4567-e89b-12d3-a456-426614174000")
    var bytes = Array("id=".utf8)
    id.appendText(to: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == "id=123e4567-e89b-12d3-a456-426614174000")
  }

  @Test func acceptsUppercaseAndPrintsLowercase() throws {
    let id = try #require(EventID("ABCDEF01-2345-6789-ABCD-EF0123456789"))
    #expect(id.description == "abcdef01-2345-6789-abcd-ef0123456789")
    #expect(EventID("abcdef01-2345-6789-abcd-ef0123456789") == id)
    #expect(EventID("AbCdEf01-2345-6789-aBcD-eF0123456789") == id)
  }

  @Test(arguments: [
    "", "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740000",
    "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a4564-26614174000",
    "123e456-7e89b-12d3-a456-426614174000", "123e4567_e89b_12d3_a456_426614174000",
    "123e4567-e89b-12d3-a456-42661417400g", "{23e4567-e89b-12d3-a456-42661417400}",
    " 23e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400 ",
    "123e4567-e89b-12d3-a456-42661417400é", "１23e4567-e89b-12d3-a456-4266141740",
    "urn:uuid:123e4567-e89b-12d3-a456-426614174000", "+23e4567-e89b-12d3-a456-426614174000",
  ])
  func rejectsTextThatIsNotTheThirtySixCharacterForm(text: String) {
    #expect(EventID(text) == nil)
  }

  @Test func textFormRoundTripsRandomIDs() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<1000 {
      let id = EventID(high: random.next(), low: random.next())
      #expect(EventID(id.description) == id, "seed \(seed)")
      #expect(EventID(id.description.uppercased()) == id, "seed \(seed)")
    }
  }

  /// Every byte value at every digit's place: a hex digit of either case is read as its value,
  /// anything else refuses the text (the digits are read eight at a time, as words).
  @Test func everyByteAtEveryDigitIsReadOrRefusedAsOneDigitAtATimeWould() {
    let text = Array("0123abcd-ef45-6789-ABCD-EF0123456789".utf8)
    func reference(_ bytes: [UInt8]) -> EventID? {
      var value: [UInt64] = [0, 0]
      var digit = 0
      for (index, byte) in bytes.enumerated() where ![8, 13, 18, 23].contains(index) {
        let nibble: UInt64
        switch byte {
        case 0x30...0x39: nibble = UInt64(byte - 0x30)
        case 0x61...0x66: nibble = UInt64(byte - 0x61 + 10)
        case 0x41...0x46: nibble = UInt64(byte - 0x41 + 10)
        default: return nil
        }
        value[digit / 16] = value[digit / 16] << 4 | nibble
        digit += 1
      }
      return EventID(high: value[0], low: value[1])
    }
    for place in text.indices where ![8, 13, 18, 23].contains(place) {
      for byte in UInt8.min...UInt8.max {
        var bytes = text
        bytes[place] = byte
        let parsed = bytes.withUnsafeBufferPointer { EventID(utf8: $0) }
        #expect(parsed == reference(bytes), "byte \(byte) at \(place)")
      }
    }
    #expect(reference(text) != nil)
  }

  @Test func textFormMatchesFoundationsFormatting() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let ids =
      [EventID(high: 0, low: 0), EventID(high: .max, low: .max)]
      + (0..<1000).map { _ in EventID(high: random.next(), low: random.next()) }
    for id in ids {
      let digits = String(format: "%016llx%016llx", id.high, id.low)
      let expected = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
        String(digits.dropFirst(range.lowerBound).prefix(range.count))
      }.joined(separator: "-")
      #expect(id.description == expected, "seed \(seed)")
    }
  }

  @Test func hexDigitsAreTheEightLowercaseDigitsFirstDigitFirst() {
    for value: UInt32 in [0, 9, 10, 15, 0x1234_abcd, 0x9fa0_5b6e, .max] {
      let bytes = withUnsafeBytes(of: EventID.hexDigits(value)) { Array($0) }
      #expect(String(decoding: bytes, as: UTF8.self) == String(format: "%08x", value))
    }
  }

  @Test func randomIDsHaveVersionFourAndTheRFCVariant() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    var ids = Set<EventID>()
    for _ in 0..<1000 {
      let id = EventID.random(using: &random)
      #expect((id.high >> 12) & 0xF == 4, "\(id), seed \(seed)")
      #expect(id.low >> 62 == 0b10, "\(id), seed \(seed)")
      let text = Array(id.description)
      #expect(text[14] == "4")
      #expect("89ab".contains(text[19]))
      ids.insert(id)
    }
    #expect(ids.count == 1000)
  }

  @Test func randomIDsFromTheSystemGeneratorDiffer() {
    let first = EventID.random()
    let second = EventID.random()
    #expect(first != second)
    #expect((first.high >> 12) & 0xF == 4)
    #expect(first.low >> 62 == 0b10)
  }

  @Test func randomIDsAreReproducibleFromASeededGenerator() {
    var first = SplitMix64(seed: 42)
    var second = SplitMix64(seed: 42)
    #expect(EventID.random(using: &first) == EventID.random(using: &second))
  }

  // Expected values: SHA-256 of the name (Python's hashlib), first 16 bytes, version and variant
  // bits set as RFC 9562 says for version 8.
  @Test(arguments: [
    ("contact-13", "8d639eb2-d1c4-8e4a-89d1-597cf7d0bf25"),
    ("import:contacts.csv:42", "a09579c9-e294-8298-a931-a17ce9ece7eb"),
    ("", "e3b0c442-98fc-8c14-9afb-f4c8996fb924"),
  ])
  func derivedIDIsStableForAName(name: String, expected: String) {
    let id = EventID.derived(fromName: name)
    #expect(id.description == expected)
    #expect(EventID.derived(fromName: name) == id)
    #expect((id.high >> 12) & 0xF == 8)
    #expect(id.low >> 62 == 0b10)
  }

  @Test func derivedIDsOfDifferentNamesDiffer() {
    #expect(EventID.derived(fromName: "contact-13") != EventID.derived(fromName: "contact-14"))
    // Canonically equivalent names are still different bytes, so different ids.
    #expect(EventID.derived(fromName: "\u{E9}") != EventID.derived(fromName: "e\u{301}"))
  }

  @Test func derivedFromShortDigestPadsWithZeros() {
    #expect(
      EventID.derived(fromDigest: [0xFF]).description == "ff000000-0000-8000-8000-000000000000")
    #expect(
      EventID.derived(fromDigest: [UInt8](repeating: 0xFF, count: 40)).description
        == "ffffffff-ffff-8fff-bfff-ffffffffffff")
  }

  @Test func initFromBytesTakesExactlySixteenBigEndianBytes() throws {
    let id = try #require(EventID(bytes: (0..<16).map { UInt8($0 * 17) }))
    #expect(id.description == "00112233-4455-6677-8899-aabbccddeeff")
    #expect(EventID(bytes: [UInt8](repeating: 0, count: 15)) == nil)
    #expect(EventID(bytes: [UInt8](repeating: 0, count: 17)) == nil)
  }

  @Test func idsOrderByHighThenLowWord() {
    let ids = [
      EventID(high: 1, low: 0), EventID(high: 0, low: .max), EventID(high: 1, low: 1),
      EventID(high: 0, low: 0),
    ]
    #expect(
      ids.sorted() == [
        EventID(high: 0, low: 0), EventID(high: 0, low: .max), EventID(high: 1, low: 0),
        EventID(high: 1, low: 1),
      ])
    // The order is that of the text form.
    #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
  }
}
