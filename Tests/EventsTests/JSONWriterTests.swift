import Testing

@testable import Events

@Suite struct JSONWriterTests {
  static func encoded(_ value: String) -> String {
    var writer = JSONWriter()
    writer.string(value)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// Strings that have broken JSON code somewhere: non-ASCII of every UTF-8 length, emoji
  /// sequences, line breaks, NUL, the BOM, the characters JSON escapes, JavaScript's line breaks.
  static let trickyStrings = [
    "",
    "中文文本，含标点。",
    "😀",
    "👩\u{200D}👩\u{200D}👧\u{200D}👦 family, 👍🏽 skin tone",
    "🇫🇷🇯🇵🏳️‍🌈 flags",
    "line one\r\nline two\n",
    "nul \u{0} inside",
    "\u{FEFF}starts with a byte-order mark",
    "ends with a byte-order mark\u{FEFF}",
    "quote \" backslash \\ both \\\"",
    "a/b </script>",
    "js line breaks \u{2028} and \u{2029}",
    "e\u{301} decomposed and \u{E9} precomposed",
    "\u{7F}\u{80}\u{9F} DEL and C1",
    "last scalar \u{10FFFF}, replacement \u{FFFD}",
  ]

  @Test(arguments: trickyStrings)
  func stringRoundTripsThroughCursorAndValueParser(text: String) throws {
    var writer = JSONWriter()
    writer.string(text)
    let decoded = try withCursor(over: writer.bytes) { cursor in
      let string = try cursor.readString()
      try cursor.expectEnd()
      return string
    }
    // Compare scalars: `String`'s `==` would forgive a change of normalization.
    #expect(Array(decoded.unicodeScalars) == Array(text.unicodeScalars))
    let value = try JSONValue.parse(writer.bytes)
    #expect(value.stringValue.map { Array($0.unicodeScalars) } == Array(text.unicodeScalars))
    #expect(value.compactBytes == writer.bytes)
  }

  @Test(arguments: trickyStrings)
  func stringRoundTripsAsObjectKey(text: String) throws {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key(text)
    writer.integer(1)
    writer.endObject()
    let value = try JSONValue.parse(writer.bytes)
    #expect(
      value.objectValue?.keys.map { Array($0.unicodeScalars) } == [Array(text.unicodeScalars)])
    #expect(value.compactBytes == writer.bytes)
  }

  @Test func escapesOnlyQuoteBackslashAndControlCharacters() {
    #expect(Self.encoded("a\"b\\c/d") == #""a\"b\\c/d""#)
    #expect(Self.encoded("\r\n\t\u{8}\u{C}") == #""\r\n\t\b\f""#)
    #expect(Self.encoded("中😀\u{2028}\u{FEFF}\u{7F}") == "\"中😀\u{2028}\u{FEFF}\u{7F}\"")
  }

  // Every control character, with the escape the writer must choose for it.
  @Test(
    arguments: zip(
      0x00...0x1F,
      [
        #"\u0000"#, #"\u0001"#, #"\u0002"#, #"\u0003"#, #"\u0004"#, #"\u0005"#, #"\u0006"#,
        #"\u0007"#, #"\b"#, #"\t"#, #"\n"#, #"\u000b"#, #"\f"#, #"\r"#, #"\u000e"#, #"\u000f"#,
        #"\u0010"#, #"\u0011"#, #"\u0012"#, #"\u0013"#, #"\u0014"#, #"\u0015"#, #"\u0016"#,
        #"\u0017"#, #"\u0018"#, #"\u0019"#, #"\u001a"#, #"\u001b"#, #"\u001c"#, #"\u001d"#,
        #"\u001e"#, #"\u001f"#,
      ]))
  func controlCharacterIsEscapedAndReadBack(codePoint: Int, escape: String) throws {
    let text = "<" + String(Character(Unicode.Scalar(UInt8(codePoint)))) + ">"
    let encoded = Self.encoded(text)
    #expect(encoded == "\"<" + escape + ">\"")
    let decoded = try withCursor(over: encoded) { try $0.readString() }
    #expect(Array(decoded.unicodeScalars) == Array(text.unicodeScalars))
    #expect(
      try JSONValue.parse(encoded).stringValue.map { Array($0.unicodeScalars) }
        == Array(text.unicodeScalars))
  }

  @Test func byteOrderMarkInKeyIsPartOfTheKey() throws {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("\u{FEFF}A_Name_Ch")
    writer.string("\u{FEFF}value")
    writer.endObject()
    #expect(writer.bytes == Array("{\"\u{FEFF}A_Name_Ch\":\"\u{FEFF}value\"}".utf8))
    #expect(writer.bytes.prefix(5) == [0x7B, 0x22, 0xEF, 0xBB, 0xBF])

    let value = try JSONValue.parse(writer.bytes)
    #expect(value["\u{FEFF}A_Name_Ch"] == .string("\u{FEFF}value"))
    #expect(value["A_Name_Ch"] == nil)

    let (matchesWithMark, matchesWithout) = try withCursor(over: writer.bytes) { cursor in
      var result = (false, false)
      try cursor.readObject { key, cursor in
        result = (
          cursor.slice(key, equals: "\u{FEFF}A_Name_Ch"), cursor.slice(key, equals: "A_Name_Ch")
        )
        try cursor.skipValue()
      }
      return result
    }
    #expect(matchesWithMark)
    #expect(!matchesWithout)
  }

  @Test(arguments: [
    #""\ud83d\ude00""#, #""\uD83D\uDE00""#, "\"\\ud83d\\uDE00\"",
  ])
  func surrogatePairEscapeReadsBackAsOneScalar(json: String) throws {
    #expect(try withCursor(over: json) { try $0.readString() } == "😀")
    #expect(try JSONValue.parse(json) == .string("😀"))
    #expect(try JSONValue.parse(json).compactBytes == Array("\"😀\"".utf8))
  }

  @Test func everyEscapeDecodes() throws {
    let json = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u4e2d\ud83c\uddeb\ud83c\uddf7""#
    let expected = "\"\\/\u{8}\u{C}\n\r\tAé中🇫🇷"
    #expect(try withCursor(over: json) { try $0.readString() } == expected)
    #expect(try JSONValue.parse(json) == .string(expected))
  }

  @Test func writesCompactJSONWithCommasPlacedAutomatically() {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("a")
    writer.beginArray()
    writer.integer(1)
    writer.bool(true)
    writer.null()
    writer.beginObject()
    writer.key("b")
    writer.string("c")
    writer.endObject()
    writer.beginArray()
    writer.endArray()
    writer.endArray()
    writer.key("min")
    writer.integer(Int64.min)
    writer.key("max")
    writer.integer(Int64.max)
    writer.key("x")
    writer.number(149.984_580_411_363_54)
    writer.key("raw")
    writer.rawValue(Array(#"{"z":false}"#.utf8))
    writer.key("empty")
    writer.beginObject()
    writer.endObject()
    writer.endObject()
    #expect(
      String(decoding: writer.bytes, as: UTF8.self)
        == #"{"a":[1,true,null,{"b":"c"},[]],"min":-9223372036854775808,"max":9223372036854775807,"x":149.98458041136354,"raw":{"z":false},"empty":{}}"#
    )
  }

  @Test(arguments: [
    (5.0, "5.0"), (-0.0, "-0.0"), (0.1, "0.1"), (1e-5, "1e-05"), (1.5e300, "1.5e+300"),
    (123_456_789_012_345_680, "1.2345678901234568e+17"), (Double.leastNonzeroMagnitude, "5e-324"),
    (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
  ])
  func numberIsWrittenInShortestFormThatReadsBackExactly(value: Double, literal: String) throws {
    var writer = JSONWriter()
    writer.number(value)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == literal)
    let readBack = try withCursor(over: writer.bytes) { try $0.readDouble() }
    #expect(readBack.bitPattern == value.bitPattern)
  }

  @Test(arguments: [0, 7, -7, 10, -10, 1_234_567_890, Int64.max, Int64.min, Int64.min + 1])
  func integerIsWrittenInDecimalAndReadsBack(value: Int64) throws {
    var writer = JSONWriter()
    writer.integer(value)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    #expect(try withCursor(over: writer.bytes) { try $0.readInt64() } == value)
  }

  @Test func appendingWriterKeepsExistingBytes() {
    var writer = JSONWriter(appendingTo: Array("prefix ".utf8))
    writer.beginArray()
    writer.integer(1)
    writer.integer(2)
    writer.endArray()
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "prefix [1,2]")
  }

  @Test func randomValuesRoundTripThroughValueParserAndCursor() throws {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<(slowTestsEnabled ? 20_000 : 500) {
      let value = RandomJSON.value(using: &random)
      let bytes = value.compactBytes
      let parsed = try JSONValue.parse(bytes)
      #expect(parsed == value, "seed \(seed)")
      // Byte equality also catches a change of normalization, which `==` on strings forgives.
      #expect(parsed.compactBytes == bytes, "seed \(seed)")
      let read = try withCursor(over: bytes) { cursor in
        let value = try readValueWithCursor(&cursor)
        try cursor.expectEnd()
        return value
      }
      #expect(read.compactBytes == bytes, "seed \(seed)")
    }
  }
}
