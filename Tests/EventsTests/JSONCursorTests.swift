import Testing

@testable import Events

@Suite struct JSONCursorTests {
  @Test(arguments: [
    ("0", 0 as Int64), ("-0", 0), ("7", 7), ("-42", -42), (" \t\r\n123 ", 123),
    ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
    ("1000000000000000000", 1_000_000_000_000_000_000),
  ])
  func readInt64AcceptsEveryInt64(text: String, expected: Int64) throws {
    #expect(try withCursor(over: text) { try $0.readInt64() } == expected)
  }

  @Test(arguments: [
    ("9223372036854775808", "expected an integer within 64 bits, found '9' at byte 0"),
    ("-9223372036854775809", "expected an integer within 64 bits, found '-' at byte 0"),
    ("99999999999999999999", "expected an integer within 64 bits, found '9' at byte 0"),
    ("01", "expected an integer without leading zeros, found '0' at byte 0"),
    ("-01", "expected an integer without leading zeros, found '-' at byte 0"),
    ("1.0", "expected an integer (no fraction or exponent), found '1' at byte 0"),
    ("1e3", "expected an integer (no fraction or exponent), found '1' at byte 0"),
    ("-", "expected an integer, found '-' at byte 0"),
    ("\"1\"", "expected an integer, found '\"' at byte 0"),
    ("", "expected an integer, found end of input at byte 0"),
  ])
  func readInt64RejectsWhatIsNotAnInt64(text: String, message: String) {
    let error = syntaxError { _ = try withCursor(over: text) { try $0.readInt64() } }
    #expect(error?.description == message)
  }

  @Test(arguments: [
    ("149.98458041136354", 149.984_580_411_363_54), ("-33.86785", -33.867_85), ("0", 0),
    ("-0.0", -0.0), ("1E2", 100), ("2.5e-3", 0.0025), ("1e-400", 0),
    ("1.7976931348623157e308", Double.greatestFiniteMagnitude),
  ])
  func readDoubleReadsTheCorrectlyRoundedValue(text: String, expected: Double) throws {
    let value = try withCursor(over: text) { try $0.readDouble() }
    #expect(value.bitPattern == expected.bitPattern)
  }

  @Test(arguments: [
    ("1e400", "expected a finite number, found '1' at byte 0"),
    ("-1e400", "expected a finite number, found '-' at byte 0"),
    ("1.8e308", "expected a finite number, found '1' at byte 0"),
    ("true", "expected a number, found 't' at byte 0"),
    ("1.", "expected a digit after the decimal point, found end of input at byte 2"),
  ])
  func readDoubleRejectsWhatIsNotAFiniteNumber(text: String, message: String) {
    let error = syntaxError { _ = try withCursor(over: text) { try $0.readDouble() } }
    #expect(error?.description == message)
  }

  @Test func coordinatesRoundTripExactlyThroughWriterAndReadDouble() throws {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<2000 {
      let value =
        Bool.random(using: &random)
        ? Double.random(in: -180...180, using: &random)
        : Double(bitPattern: random.next())
      guard value.isFinite else { continue }
      var writer = JSONWriter()
      writer.number(value)
      let readBack = try withCursor(over: writer.bytes) { try $0.readDouble() }
      #expect(readBack.bitPattern == value.bitPattern, "\(value), seed \(seed)")
    }
  }

  // Each value is followed by `,"next"` so that skipping must stop exactly at its end.
  @Test(arguments: [
    "null", "true", "false", "0", "-12.5e-3", #""""#, #""a\"\\\u00e9\ud83d\ude00 ] } ,""#,
    "[]", "{}", "[1,[2,[3,{}]],\"]\"]", #"{"a":{"b":[null,{"c":"}"}]},"d":-0}"#,
    " \n\t [ 1 , { \"k\" : \"v\" } ] ",
  ])
  func skipValueSkipsExactlyOneValueOfAnyKind(value: String) throws {
    let text = value + #","next""#
    let (range, next) = try withCursor(over: text) { cursor in
      let range = try cursor.skipValue()
      try cursor.expect(0x2C, "','")
      return (range, try cursor.readString())
    }
    let leading = value.utf8.prefix { [0x20, 0x0A, 0x09].contains($0) }.count
    let trailing = value.utf8.reversed().prefix { [0x20, 0x0A, 0x09].contains($0) }.count
    #expect(range == leading..<(value.utf8.count - trailing))
    #expect(next == "next")
  }

  @Test func skipValueAcceptsNestingUpToTheLimitOnly() {
    let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(syntaxError { _ = try withCursor(over: deepest) { try $0.skipValue() } } == nil)
    let tooDeep = "[" + deepest + "]"
    let error = syntaxError { _ = try withCursor(over: tooDeep) { try $0.skipValue() } }
    #expect(error?.description == "expected at most 512 levels of nesting, found '[' at byte 512")
  }

  @Test func sliceEqualsComparesRawContentExactly() throws {
    let text = #"{"name":1,"nam":2,"names":3,"":4,"n\u0061me":5,"Name":6,"名前":7}"#
    let matches = try withCursor(over: text) { cursor in
      var matches: [(isName: Bool, isEmpty: Bool, isJapanese: Bool)] = []
      try cursor.readObject { key, cursor in
        matches.append(
          (
            cursor.slice(key, equals: "name"), cursor.slice(key, equals: ""),
            cursor.slice(key, equals: "名前")
          ))
        try cursor.skipValue()
      }
      return matches
    }
    #expect(matches.map(\.isName) == [true, false, false, false, false, false, false])
    #expect(matches.map(\.isEmpty) == [false, false, false, true, false, false, false])
    #expect(matches.map(\.isJapanese) == [false, false, false, false, false, false, true])
  }

  @Test func escapedKeyNeverEqualsALiteral() throws {
    // Keys are compared undecoded; the log's writer never escapes a plain key, so this only
    // matters for hand-written input, which goes through `JSONValue`.
    let isName = try withCursor(over: #"{"n\u0061me":1}"#) { cursor in
      var isName = true
      try cursor.readObject { key, cursor in
        isName = cursor.slice(key, equals: "name")
        #expect(key.hasEscapes)
        #expect(key.string(base: cursor.base) == "name")
        try cursor.skipValue()
      }
      return isName
    }
    #expect(!isName)
  }

  @Test func decodesATypedPayloadSkippingUnknownMembers() throws {
    struct Payload: Equatable {
      var latitude = 0.0
      var longitude = 0.0
      var name = ""
      var tags: [String] = []
      var count: Int64 = 0
      var isFavorite = false
    }
    let text =
      #"{"lat":-33.86785,"unknown":{"deep":[1,{"x":null}],"s":"}"},"lon":151.20732,"#
      + #""name":"Café \"Opera\"","tags":["a","b"],"count":-3,"favorite":true,"note":null}"#
    let payload = try withCursor(over: text) { cursor in
      var payload = Payload()
      try cursor.readObject { key, cursor in
        if cursor.slice(key, equals: "lat") {
          payload.latitude = try cursor.readDouble()
        } else if cursor.slice(key, equals: "lon") {
          payload.longitude = try cursor.readDouble()
        } else if cursor.slice(key, equals: "name") {
          payload.name = try cursor.readString()
        } else if cursor.slice(key, equals: "tags") {
          try cursor.readArray { cursor in payload.tags.append(try cursor.readString()) }
        } else if cursor.slice(key, equals: "count") {
          payload.count = try cursor.readInt64()
        } else if cursor.slice(key, equals: "favorite") {
          payload.isFavorite = try cursor.readBool()
        } else {
          try cursor.skipValue()
        }
      }
      try cursor.expectEnd()
      return payload
    }
    #expect(
      payload
        == Payload(
          latitude: -33.867_85, longitude: 151.207_32, name: "Café \"Opera\"", tags: ["a", "b"],
          count: -3, isFavorite: true))
  }

  @Test func readNullConsumesOnlyNull() throws {
    let (first, second, position) = withCursor(over: "null nul") { cursor in
      (cursor.readNull(), cursor.readNull(), cursor.position)
    }
    #expect(first)
    #expect(!second)
    #expect(position == 5)
  }

  @Test func readBoolReadsBothLiterals() throws {
    let values = try withCursor(over: "[true,false]") { cursor in
      var values: [Bool] = []
      try cursor.readArray { cursor in values.append(try cursor.readBool()) }
      return values
    }
    #expect(values == [true, false])
  }

  @Test func peekAndIsAtEndSkipWhitespaceOnly() {
    withCursor(over: " \r\n\t{ ") { cursor in
      let next = cursor.peek()
      #expect(next == 0x7B)
      #expect(cursor.position == 4)
      let isAtEndBeforeBrace = cursor.isAtEnd()
      #expect(!isAtEndBeforeBrace)
      cursor.position += 1
      let isAtEndAfterBrace = cursor.isAtEnd()
      #expect(isAtEndAfterBrace)
      let nextAfterBrace = cursor.peek()
      #expect(nextAfterBrace == nil)
      #expect(cursor.position == 6)
    }
  }

  @Test func emptyBufferIsAtEnd() {
    let buffer = UnsafeRawBufferPointer(start: nil, count: 0)
    var cursor = JSONCursor(buffer)
    let isAtEnd = cursor.isAtEnd()
    #expect(isAtEnd)
    let error = syntaxError { try cursor.skipValue() }
    #expect(error?.description == "expected a value, found end of input at byte 0")
  }

  @Test func bytesOfSliceAreTheRawEscapedContent() throws {
    let raw = try withCursor(over: #"  "a\nb""#) { cursor in
      let slice = try cursor.readStringSlice()
      #expect(slice == JSONStringSlice(start: 3, end: 7, hasEscapes: true))
      return Array(cursor.bytes(of: slice))
    }
    #expect(raw == Array(#"a\nb"#.utf8))
  }

  @Test func decodingRepairsWhatOnlyTheValueParserRejects() throws {
    // Documented leniency of the hot path: lone surrogates and bad UTF-8 become U+FFFD.
    #expect(try withCursor(over: #""a\ud800b""#) { try $0.readString() } == "a\u{FFFD}b")
    #expect(try withCursor(over: #""\udc00""#) { try $0.readString() } == "\u{FFFD}")
    #expect(try withCursor(over: [0x22, 0x61, 0xFF, 0x22]) { try $0.readString() } == "a\u{FFFD}")
  }
}

@Suite struct JSONSyntaxErrorTests {
  @Test func lineAndColumnCountLinesAndCharacters() throws {
    let text = "[1,\n  \"é\", x]"
    let error = try #require(syntaxError { _ = try JSONValue.parse(text) })
    #expect(error.offset == 12)
    let position = error.lineAndColumn(in: Array(text.utf8))
    #expect(position.line == 2)
    #expect(position.column == 8)
  }

  @Test func descriptionNamesExpectedFoundAndOffset() {
    #expect(
      JSONSyntaxError(offset: 3, expected: "a value", found: "'x'").description
        == "expected a value, found 'x' at byte 3")
  }

  @Test(
    arguments: [
      ([], "end of input"), ([0x0A], "a line break"), ([0x0D], "a carriage return"),
      ([0x09], "a tab"), ([0x20], "a space"), ([0x78], "'x'"), ([0x00], "byte 0x00"),
      ([0x1B], "byte 0x1B"), ([0x7F], "byte 0x7F"), ([0x80], "byte 0x80"),
      ([0xC3, 0xA9], "'é'"), ([0xF0, 0x9F, 0x98, 0x80], "'😀'"), ([0xC3], "byte 0xC3"),
      ([0xE4, 0xB8, 0x41], "byte 0xE4"), ([0xFF], "byte 0xFF"),
    ] as [([UInt8], String)])
  func foundRendersTheByteAtTheOffsetReadably(bytes: [UInt8], expected: String) {
    // A spare byte past `end` shows that rendering never reads beyond it.
    let storage = bytes + [0xA9]
    let found = storage.withUnsafeBufferPointer { buffer in
      JSONSyntaxError.describe(buffer.baseAddress.unsafelyUnwrapped, at: 0, end: bytes.count)
    }
    #expect(found == expected)
  }
}

/// `JSONStringSlice.unescape` against the straightforward decoder it replaced.
@Suite struct JSONUnescapeTests {
  /// The reference: byte by byte into an array, then `String(decoding:)`.
  static func reference(_ raw: [UInt8]) -> String {
    var output: [UInt8] = []
    var index = 0
    func hex4(_ at: Int) -> UInt32 {
      var value: UInt32 = 0
      for offset in 0..<4 { value = value << 4 | (JSONCursor.hexValue(raw[at + offset]) ?? 0) }
      return value
    }
    while index < raw.count {
      let byte = raw[index]
      guard byte == 0x5C, index + 1 < raw.count else {
        output.append(byte)
        index += 1
        continue
      }
      let escaped = raw[index + 1]
      index += 2
      switch escaped {
      case 0x62: output.append(0x08)
      case 0x66: output.append(0x0C)
      case 0x6E: output.append(0x0A)
      case 0x72: output.append(0x0D)
      case 0x74: output.append(0x09)
      case 0x75 where index + 4 <= raw.count:
        var scalar = hex4(index)
        index += 4
        if (0xD800..<0xDC00).contains(scalar), index + 6 <= raw.count, raw[index] == 0x5C,
          raw[index + 1] == 0x75
        {
          let low = hex4(index + 2)
          if (0xDC00..<0xE000).contains(low) {
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            index += 6
          }
        }
        output.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
      default: output.append(escaped)
      }
    }
    return String(decoding: output, as: UTF8.self)
  }

  @Test(arguments: [
    #"a\nb\r\n\t\"\\\/\b\f"#, #"\u00e9\u4e2d\ud83d\ude00"#, #"\ud83d"#, #"\ude00x"#,
    #"\ud83dx\u0041"#,
    #"\u12"#, #"end\"#, #"\x"#, "caf\u{E9} \\n 北", "\\u0000",
  ])
  func unescapeMatchesTheReference(_ text: String) {
    let raw = Array(text.utf8)
    let decoded = raw.withUnsafeBufferPointer { JSONStringSlice.unescape($0) }
    #expect(decoded == Self.reference(raw))
  }

  @Test func randomEscapesMatchTheReference() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let pieces = [
      "a", "Z", " ", "é", "北", "😀", "\\n", "\\r", "\\\"", "\\\\", "\\/", "\\t", "\\u00e9",
      "\\ud83d", "\\ude00", "\\uD83D\\uDE00", "\\u4E2D", "\\", "\\u12", "\u{FF}",
    ]
    for _ in 0..<3000 {
      var raw: [UInt8] = []
      for _ in 0..<Int.random(in: 0...30, using: &random) {
        raw += Array((pieces.randomElement(using: &random) ?? "a").utf8)
      }
      if Int.random(in: 0..<8, using: &random) == 0 { raw.append(0xC3) }  // invalid UTF-8
      let decoded = raw.withUnsafeBufferPointer { JSONStringSlice.unescape($0) }
      #expect(decoded == Self.reference(raw), "seed \(seed): \(raw)")
    }
  }
}

/// `JSONCursor.readStringSlice`, which reads a word at a time, against the byte-by-byte reader
/// it replaced: same slice, same position after it, same error, with and without readable
/// slack past the end.
@Suite struct JSONStringScanTests {
  /// The reference: byte by byte, stopping at the first quote, backslash or control character.
  static func reference(_ bytes: [UInt8]) -> (Result<JSONStringSlice, JSONSyntaxError>, Int) {
    func failure(_ expected: String, _ offset: Int) -> (
      Result<JSONStringSlice, JSONSyntaxError>, Int
    ) {
      let found = bytes.withUnsafeBufferPointer { buffer in
        JSONSyntaxError.describe(buffer.baseAddress.unsafelyUnwrapped, at: offset, end: bytes.count)
      }
      return (.failure(JSONSyntaxError(offset: offset, expected: expected, found: found)), offset)
    }
    var position = 0
    while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) {
      position += 1
    }
    guard position < bytes.count, bytes[position] == 0x22 else {
      return failure("a string", position)
    }
    position += 1
    let start = position
    var hasEscapes = false
    while position < bytes.count {
      let byte = bytes[position]
      if byte == 0x22 {
        return (
          .success(JSONStringSlice(start: start, end: position, hasEscapes: hasEscapes)),
          position + 1
        )
      }
      if byte == 0x5C {
        hasEscapes = true
        position += 1
        guard position < bytes.count else {
          return failure("an escape character after '\\'", position)
        }
        switch bytes[position] {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: position += 1
        case 0x75:
          position += 1
          for _ in 0..<4 {
            guard position < bytes.count, JSONCursor.hexValue(bytes[position]) != nil else {
              return failure("four hex digits after '\\u'", position)
            }
            position += 1
          }
        default: return failure("one of '\"\\/bfnrtu' after '\\'", position)
        }
        continue
      }
      if byte < 0x20 {
        return failure("control characters to be escaped inside a string", position)
      }
      position += 1
    }
    return failure("'\"' to close the string", position)
  }

  /// Reads with the cursor over `bytes`, followed by `slack` readable bytes of `filler`.
  static func scan(
    _ bytes: [UInt8], slack: Int, filler: UInt8
  ) -> (Result<JSONStringSlice, JSONSyntaxError>, Int) {
    let padded = bytes + [UInt8](repeating: filler, count: slack)
    return padded.withUnsafeBufferPointer { buffer in
      var cursor = JSONCursor(base: buffer.baseAddress.unsafelyUnwrapped, count: bytes.count)
      cursor.readableSlack = slack
      let result = Result { () throws(JSONSyntaxError) in try cursor.readStringSlice() }
      return (result, cursor.position)
    }
  }

  @Test(arguments: [
    #""""#, #""a""#, #""abcdefg""#, #""abcdefgh""#, #""abcdefghijklmnopqrstuvwxyz0123456789""#,
    #""北京, Zürich""#, #"  "x""#, #""a\"b""#, #""a\\""#, #""\u00e9\n""#, #""unterminated"#,
    #""no end \"#, #""bad \x escape""#, #""short \u12""#, "\"tab\there\"", "\"x\u{7F}\"",
    "\"0123456789abcde\u{1}\"", #"x"#, "",
  ])
  func wordScanMatchesTheByteByByteReader(_ text: String) {
    let bytes = Array(text.utf8)
    for slack in [0, 7, 18] {
      for filler: UInt8 in [0x22, 0x5C, 0x00, 0x61] {
        let (result, position) = Self.scan(bytes, slack: slack, filler: filler)
        let (expected, expectedPosition) = Self.reference(bytes)
        #expect(result == expected, "\(text) with \(slack) bytes of \(filler) after it")
        if case .success = expected {
          #expect(position == expectedPosition, "\(text) with \(slack) bytes after it")
        }
      }
    }
  }

  @Test func randomStringsScanAlikeBothWays() {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    let pieces: [[UInt8]] = [
      Array("a".utf8), Array("Z9 ".utf8), Array("é".utf8), Array("北".utf8), Array("😀".utf8),
      Array("\\n".utf8), Array("\\\"".utf8), Array("\\\\".utf8), Array("\\u00e9".utf8),
      Array("\\u12".utf8), Array("\\x".utf8), [0x5C], [0x22], [0x09], [0x1F], [0x7F], [0xFF],
      [0x80], [0xA2], [0xDC], Array("abcdefgh".utf8),
    ]
    for _ in 0..<5000 {
      var bytes: [UInt8] = Bool.random(using: &random) ? [0x22] : [0x20, 0x22]
      for _ in 0..<Int.random(in: 0...40, using: &random) {
        // Mostly plain text, so that strings run long enough for whole words.
        let piece =
          Int.random(in: 0..<4, using: &random) == 0
          ? pieces.randomElement(using: &random) ?? []
          : pieces[Int.random(in: 0...4, using: &random)]
        bytes += piece
      }
      if Int.random(in: 0..<4, using: &random) != 0 { bytes.append(0x22) }
      let slack = [0, 3, 18].randomElement(using: &random) ?? 0
      let filler = UInt8.random(in: 0...255, using: &random)
      let (result, position) = Self.scan(bytes, slack: slack, filler: filler)
      let (expected, expectedPosition) = Self.reference(bytes)
      #expect(result == expected, "seed \(seed): \(bytes), slack \(slack)")
      if case .success = expected {
        #expect(position == expectedPosition, "seed \(seed): \(bytes)")
      }
    }
  }
}

/// The word-at-a-time byte classifiers of the envelope's name readers, against a byte-by-byte
/// reference: every byte value at every position of a word, among neighbours that are in the
/// class and out of it (an inexact classifier shows as a wrong lowest flag).
@Suite struct NameByteClassifierTests {
  static func isTypeNameByte(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
      || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2E
  }

  static func isPlainPrintableByte(_ byte: UInt8) -> Bool {
    byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C
  }

  /// The flags `classify` must give `bytes`: the high bit of each byte outside the class.
  static func expectedFlags(_ bytes: [UInt8], _ inClass: (UInt8) -> Bool) -> UInt64 {
    var flags: UInt64 = 0
    for (index, byte) in bytes.enumerated() where !inClass(byte) {
      flags |= 0x80 << UInt64(8 * index)
    }
    return flags
  }

  static func check(_ classify: (UInt64) -> UInt64, _ inClass: @escaping (UInt8) -> Bool) {
    let fillers: [UInt8] = [0x61, 0x5F, 0x22, 0x00, 0xFF, 0x7F, 0x20, 0x2E]
    for filler in fillers {
      for position in 0..<8 {
        for value in 0...255 {
          var bytes = [UInt8](repeating: filler, count: 8)
          bytes[position] = UInt8(value)
          var word: UInt64 = 0
          for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << UInt64(8 * index) }
          let found = classify(word)
          let expected = expectedFlags(bytes, inClass)
          if found != expected {
            Issue.record(
              "bytes \(bytes.map { String($0, radix: 16) }): flags \(String(found, radix: 16)), expected \(String(expected, radix: 16))"
            )
            return
          }
        }
      }
    }
  }

  @Test func typeNameBytes() {
    Self.check(JSONCursor.nonTypeNameBytes, Self.isTypeNameByte)
  }

  @Test func printableBytes() {
    Self.check(JSONCursor.nonPrintableOrSpecialBytes, Self.isPlainPrintableByte)
  }
}
