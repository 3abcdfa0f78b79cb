import Testing

@testable import Projections

@Suite struct BinaryReaderTests {
  @Test func integersRoundTripLittleEndian() throws {
    var writer = BinaryWriter()
    writer.writeInteger(UInt8(0xAB))
    writer.writeInteger(UInt16(0x1234))
    writer.writeInteger(UInt32(0xDEAD_BEEF))
    writer.writeInteger(Int64.min)
    writer.writeInteger(Int64(-2))
    writer.writeInteger(UInt64.max)
    #expect(
      writer.bytes == [
        0xAB, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xFE, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
      ])
    var reader = BinaryReader(writer.bytes)
    #expect(try reader.readInteger(UInt8.self) == 0xAB)
    #expect(try reader.readInteger(UInt16.self) == 0x1234)
    #expect(try reader.readInteger(UInt32.self) == 0xDEAD_BEEF)
    #expect(try reader.readInteger(Int64.self) == Int64.min)
    #expect(try reader.readInteger(Int64.self) == -2)
    #expect(try reader.readInteger(UInt64.self) == UInt64.max)
    #expect(reader.isAtEnd)
    try reader.expectEnd()
  }

  @Test(
    arguments: [
      0.0, -0.0, 1.5, -1e-308, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
      Double.infinity, -Double.infinity, Double.nan, Double(nan: 0x1234, signaling: false),
    ])
  func doublesRoundTripBitForBit(value: Double) throws {
    var writer = BinaryWriter()
    writer.writeDouble(value)
    #expect(writer.bytes.count == 8)
    var reader = BinaryReader(writer.bytes)
    #expect(try reader.readDouble().bitPattern == value.bitPattern)
  }

  static let varints: [(UInt64, [UInt8])] = [
    (0, [0]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]), (16_383, [0xFF, 0x7F]),
    (16_384, [0x80, 0x80, 0x01]),
    (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
  ]

  @Test(arguments: varints)
  func varintsAreLEB128(value: UInt64, bytes: [UInt8]) throws {
    var writer = BinaryWriter()
    writer.writeVarint(value)
    #expect(writer.bytes == bytes)
    var reader = BinaryReader(bytes)
    #expect(try reader.readVarint() == value)
    #expect(reader.isAtEnd)
  }

  @Test func aVarintPastSixtyFourBitsIsInvalid() {
    for bytes: [UInt8] in [
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
      [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
    ] {
      var reader = BinaryReader(bytes)
      #expect(throws: ProjectionsError.self) { try reader.readVarint() }
    }
    var truncated = BinaryReader([0x80, 0x80])
    #expect(
      throws: ProjectionsError.truncatedCheckpoint(
        what: "a varint", offset: 0, needed: 3, available: 2)
    ) { try truncated.readVarint() }
  }

  @Test(arguments: [
    "", "a", "Zoë", "大貓熊", "⭐️ Harry", "line\r\nbreak", String(repeating: "é", count: 200),
  ])
  func stringsRoundTrip(text: String) throws {
    var writer = BinaryWriter()
    writer.writeString(text)
    writer.writeString(text)
    var reader = BinaryReader(writer.bytes)
    #expect(try reader.readString() == text)
    #expect(try reader.readString() == text)
    #expect(reader.isAtEnd)
  }

  @Test(
    arguments: [
      [UInt8(0xFF)], [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
      [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xE2, 0x82],
    ])
  func invalidUTF8IsAnError(utf8: [UInt8]) {
    var reader = BinaryReader([UInt8(utf8.count)] + utf8)
    #expect(throws: ProjectionsError.self) { try reader.readString() }
    var skipping = BinaryReader([UInt8(utf8.count)] + utf8)
    #expect(throws: ProjectionsError.self) { try skipping.skipString() }
  }

  @Test func skippingAStringChecksWhatReadingItChecks() throws {
    for text in ["", "a", "Harry Potter", "大貓熊館", "Émile Zola", String(repeating: "x", count: 300)]
    {
      var writer = BinaryWriter()
      writer.writeString(text)
      writer.writeInteger(UInt8(7))
      var reader = BinaryReader(writer.bytes)
      #expect(try reader.skipString() == text.utf8.count)
      #expect(try reader.readInteger(UInt8.self) == 7, "the skip ends where the string does")
      #expect(reader.isAtEnd)
      let cut = Array(writer.bytes.dropLast(2))
      var short = BinaryReader(cut)
      if !text.isEmpty {
        #expect(throws: ProjectionsError.self) { try short.skipString() }
      }
    }
  }

  @Test func readsPastTheEndThrowAndSayWhere() {
    var reader = BinaryReader([1, 2, 3])
    #expect(
      throws: ProjectionsError.truncatedCheckpoint(
        what: "an integer", offset: 0, needed: 4, available: 3)
    ) { try reader.readInteger(UInt32.self) }
    var string = BinaryReader([5, 0x61, 0x62])
    #expect(
      throws: ProjectionsError.truncatedCheckpoint(
        what: "a string", offset: 0, needed: 5, available: 2)
    ) { try string.readString() }
    var empty = BinaryReader([])
    #expect(throws: ProjectionsError.self) { try empty.readBool() }
    #expect(throws: ProjectionsError.self) { try empty.readDouble() }
    #expect(throws: ProjectionsError.self) { try empty.readBytes(count: 1) }
  }

  @Test func aBoolIsZeroOrOne() throws {
    var reader = BinaryReader([0, 1, 2])
    #expect(try reader.readBool() == false)
    #expect(try reader.readBool() == true)
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: "a Bool", offset: 2, expected: "0 or 1", found: "2")
    ) { try reader.readBool() }
  }

  @Test func aCountCannotAskForMoreThanTheBytesLeft() throws {
    var reader = BinaryReader([0x80, 0x80, 0x04, 1, 2, 3])
    #expect(throws: ProjectionsError.self) { try reader.readCount() }
    var fits = BinaryReader([3, 1, 2, 3])
    #expect(try fits.readCount() == 3)
    var tooBig = BinaryReader([2, 1, 2, 3])
    #expect(throws: ProjectionsError.self) { try tooBig.readCount(minimumSize: 2) }
  }

  @Test func aReaderOfARangeKeepsTheWholeBuffersOffsets() throws {
    let bytes: [UInt8] = [9, 9, 2, 0x68, 0x69, 9]
    var reader = BinaryReader(bytes, range: 2..<5)
    #expect(reader.offset == 2)
    #expect(try reader.readString() == "hi")
    #expect(reader.isAtEnd)
    #expect(
      throws: ProjectionsError.truncatedCheckpoint(
        what: "an integer", offset: 5, needed: 1, available: 0)
    ) {
      try reader.readInteger(UInt8.self)
    }
  }

  @Test func expectEndNamesTheBytesLeft() {
    let reader = BinaryReader([1, 2])
    #expect(
      throws: ProjectionsError.invalidCheckpoint(
        what: "the checkpoint", offset: 0, expected: "the end", found: "2 more bytes")
    ) { try reader.expectEnd() }
  }

  @Test func overwritingFillsInALength() {
    var writer = BinaryWriter()
    writer.writeInteger(UInt32(0))
    writer.writeBytes([7, 7])
    writer.overwriteInteger(UInt32(2), at: 0)
    #expect(writer.bytes == [2, 0, 0, 0, 7, 7])
  }

  @Test func errorsSayWhatWhereAndTheFix() {
    #expect(
      ProjectionsError.truncatedCheckpoint(what: "a string", offset: 12, needed: 5, available: 2)
        .description
        == "checkpoint byte 12: expected 5 bytes for a string, found 2 (the checkpoint is truncated); "
        + "delete the checkpoint; it is rebuilt from the log")
    #expect(
      ProjectionsError.checkpointChecksumMismatch(stored: 0xAB, computed: 0x1234_5678).description
        == "checkpoint checksum mismatch: stored 000000ab, computed 12345678 (the checkpoint is "
        + "damaged); delete the checkpoint; it is rebuilt from the log")
    #expect(
      ProjectionsError.modelNotInCheckpoint(name: "contacts", available: ["animals"]).description
        == "checkpoint holds no model 'contacts' (it holds 'animals'); delete the checkpoint; it is "
        + "rebuilt from the log")
  }
}
