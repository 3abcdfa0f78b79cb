import Testing

@testable import replay

/// What the command line accepts as text and as numbers.
@Suite struct CommandLineTextTests {
  @Test(arguments: [
    ("0", 0.0), ("-34.98", -34.98), ("+1", 1.0), (".5", 0.5), ("5.", 5.0), ("2.5e3", 2500.0),
    ("1E-2", 0.01),
  ])
  func decimalNumbersAreRead(text: String, value: Double) {
    #expect(DecimalNumber.parse(text) == value)
  }

  @Test(arguments: [
    "0x10", "0X1p4", "nan", "NaN", "inf", "-infinity", "", "-", ".", "1e", "1e+", " 1", "1 ",
    "1_000", "1,5", "١٢",
  ])
  func anythingButADecimalNumberIsRefused(text: String) {
    #expect(DecimalNumber.parse(text) == nil)
  }

  @Test func validUTF8ArgumentsAreDecoded() throws {
    let arguments = try RawArguments.decode([
      Array("append".utf8), Array("{\"a\":\"é😀\"}".utf8), [],
    ])
    #expect(arguments == ["append", "{\"a\":\"é😀\"}", ""])
  }

  @Test(arguments: [
    ([0x7B, 0xC0, 0x80, 0x7D], 1, 0xC0),  // an overlong NUL
    ([0x61, 0x62, 0xFF], 2, 0xFF),  // never valid
    ([0xE2, 0x82], 0, 0xE2),  // a truncated sequence
    ([0x61, 0xED, 0xA0, 0x80], 1, 0xED),  // a UTF-16 surrogate
  ])
  func anArgumentThatIsNotUTF8IsRefusedNamingItsFirstBadByte(
    bytes: [UInt8], offset: Int, byte: UInt8
  ) {
    #expect(throws: RawArguments.InvalidArgument(position: 2, offset: offset, byte: byte)) {
      try RawArguments.decode([Array("ok".utf8), bytes])
    }
  }
}
