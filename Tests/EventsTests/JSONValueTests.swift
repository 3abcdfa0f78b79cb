import Foundation
import ReplayTestSupport
import Testing

@testable import Events

/// A text that must not parse, and the exact error it must produce.
struct Rejection: Sendable, CustomTestStringConvertible {
  var bytes: [UInt8]
  var message: String
  /// Whether `JSONCursor` rejects it too, rather than only `JSONValue`'s stricter checks.
  var isRejectedByCursor = true

  init(_ text: String, _ message: String, isRejectedByCursor: Bool = true) {
    self.init(bytes: Array(text.utf8), message, isRejectedByCursor: isRejectedByCursor)
  }

  init(bytes: [UInt8], _ message: String, isRejectedByCursor: Bool = true) {
    self.bytes = bytes
    self.message = message
    self.isRejectedByCursor = isRejectedByCursor
  }

  var testDescription: String { String(decoding: bytes, as: UTF8.self).debugDescription }
}

@Suite struct JSONValueTests {
  static let rejections: [Rejection] = [
    Rejection("", "expected a value, found end of input at byte 0"),
    Rejection("  \n ", "expected a value, found end of input at byte 4"),
    Rejection(
      "[1,]",
      "expected a value (object, array, string, number, true, false or null), found ']' at byte 3"),
    Rejection(#"{"a":1,}"#, "expected a string, found '}' at byte 7"),
    Rejection("[1 2]", "expected ',' or ']' after an array element, found '2' at byte 3"),
    Rejection(
      #"{"a":1 "b":2}"#, "expected ',' or '}' after an object member, found '\"' at byte 7"),
    Rejection(#"{"a" 1}"#, "expected ':' after an object key, found '1' at byte 5"),
    Rejection("{1:2}", "expected a string, found '1' at byte 1"),
    Rejection("[1", "expected ',' or ']' after an array element, found end of input at byte 2"),
    Rejection("01", "expected a number without leading zeros, found '0' at byte 0"),
    Rejection("[-007]", "expected a number without leading zeros, found '-' at byte 1"),
    Rejection("-", "expected a digit after '-', found end of input at byte 1"),
    Rejection("-a", "expected a digit after '-', found 'a' at byte 1"),
    Rejection("1.", "expected a digit after the decimal point, found end of input at byte 2"),
    Rejection("1.e5", "expected a digit after the decimal point, found 'e' at byte 2"),
    Rejection("1e", "expected a digit in the exponent, found end of input at byte 2"),
    Rejection("1E+", "expected a digit in the exponent, found end of input at byte 3"),
    Rejection(
      "+1",
      "expected a value (object, array, string, number, true, false or null), found '+' at byte 0"),
    Rejection(
      ".5",
      "expected a value (object, array, string, number, true, false or null), found '.' at byte 0"),
    Rejection(
      "NaN",
      "expected a value (object, array, string, number, true, false or null), found 'N' at byte 0"),
    Rejection(
      "'a'",
      "expected a value (object, array, string, number, true, false or null), found ''' at byte 0"),
    Rejection(
      "// comment\n1",
      "expected a value (object, array, string, number, true, false or null), found '/' at byte 0"),
    Rejection(
      "tru",
      "expected a value (object, array, string, number, true, false or null), found 't' at byte 0"),
    Rejection(
      "nul",
      "expected a value (object, array, string, number, true, false or null), found 'n' at byte 0"),
    Rejection(
      "\"a\u{1}b\"",
      "expected control characters to be escaped inside a string, found byte 0x01 at byte 2"),
    Rejection(
      "\"a\tb\"", "expected control characters to be escaped inside a string, found a tab at byte 2"
    ),
    Rejection(
      "\"line\nbreak\"",
      "expected control characters to be escaped inside a string, found a line break at byte 5"),
    Rejection(#""abc"#, "expected '\"' to close the string, found end of input at byte 4"),
    Rejection(#"["abc]"#, "expected '\"' to close the string, found end of input at byte 6"),
    Rejection(#""\x""#, #"expected one of '"\/bfnrtu' after '\', found 'x' at byte 2"#),
    Rejection(#""\u12""#, #"expected four hex digits after '\u', found '"' at byte 5"#),
    Rejection(#""\u12G4""#, #"expected four hex digits after '\u', found 'G' at byte 5"#),
    Rejection("\"\\", #"expected an escape character after '\', found end of input at byte 2"#),
    Rejection("{} x", "expected end of input, found 'x' at byte 3"),
    Rejection("1 2", "expected end of input, found '2' at byte 2"),
    Rejection("truex", "expected end of input, found 'x' at byte 4"),
    Rejection("[]]", "expected end of input, found ']' at byte 2"),
    Rejection(
      "\u{FEFF}{}",
      "expected a value (object, array, string, number, true, false or null), found '\u{FEFF}' at byte 0"
    ),
    Rejection(
      bytes: [0xFF],
      "expected a value (object, array, string, number, true, false or null), found byte 0xFF at byte 0"
    ),
    Rejection(
      String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
      "expected at most 512 levels of nesting, found '[' at byte 512"),
    Rejection(
      String(repeating: #"{"a":"#, count: 513) + "1" + String(repeating: "}", count: 513),
      "expected at most 512 levels of nesting, found '{' at byte 2560"),
    // Only `JSONValue` checks what follows: surrogates, duplicate keys, UTF-8.
    Rejection(
      #""\ud800""#,
      "expected a low surrogate after a high one, found a lone high surrogate at byte 1",
      isRejectedByCursor: false),
    Rejection(
      #""ab\ud83dx""#,
      "expected a low surrogate after a high one, found a lone high surrogate at byte 3",
      isRejectedByCursor: false),
    Rejection(
      #""\ud83d\u0041""#,
      "expected a low surrogate after a high one, found a lone high surrogate at byte 1",
      isRejectedByCursor: false),
    Rejection(
      #""\ud83d\ud83d""#,
      "expected a low surrogate after a high one, found a lone high surrogate at byte 1",
      isRejectedByCursor: false),
    Rejection(
      #""\udc00""#,
      "expected a high surrogate before a low one, found a lone low surrogate at byte 1",
      isRejectedByCursor: false),
    Rejection(
      #"{"a":1,"b":2,"a":3}"#, "expected each key once in an object, found a second 'a' at byte 13",
      isRejectedByCursor: false),
    Rejection(
      #"{"x":{"\u0061":1,"a":2}}"#,
      "expected each key once in an object, found a second 'a' at byte 17",
      isRejectedByCursor: false),
    Rejection(
      bytes: [0x22, 0x61, 0xFF, 0x22],
      "expected valid UTF-8, found an invalid byte sequence at byte 2",
      isRejectedByCursor: false),
    // An overlong encoding of '/', a UTF-8-encoded surrogate, a truncated sequence.
    Rejection(
      bytes: [0x22, 0xC0, 0xAF, 0x22],
      "expected valid UTF-8, found an invalid byte sequence at byte 1",
      isRejectedByCursor: false),
    Rejection(
      bytes: [0x22, 0x61, 0x62, 0xED, 0xA0, 0x80, 0x22],
      "expected valid UTF-8, found an invalid byte sequence at byte 3", isRejectedByCursor: false),
    Rejection(
      bytes: [0x22, 0xE4, 0xB8, 0x22],
      "expected valid UTF-8, found an invalid byte sequence at byte 1", isRejectedByCursor: false),
    // In a string with escapes too, the offset is that of the bad byte.
    Rejection(
      bytes: Array(#""\n\u00e9"#.utf8) + [0xC3, 0x28, 0x22],
      "expected valid UTF-8, found an invalid byte sequence at byte 9", isRejectedByCursor: false),
    Rejection(
      bytes: Array(#"{"ok":1,"#.utf8) + [0x22, 0x6B, 0x80, 0x22] + Array(":2}".utf8),
      "expected valid UTF-8, found an invalid byte sequence at byte 10", isRejectedByCursor: false),
  ]

  @Test(arguments: rejections)
  func parseRejectsWithExactOffsetAndMessage(rejection: Rejection) {
    let error = syntaxError { _ = try JSONValue.parse(rejection.bytes) }
    #expect(error?.description == rejection.message)
  }

  @Test(arguments: rejections)
  func cursorRejectsWhatItChecksAndAcceptsTheRest(rejection: Rejection) {
    let error = syntaxError {
      try withCursor(over: rejection.bytes) { cursor in
        try cursor.skipValue()
        try cursor.expectEnd()
      }
    }
    if rejection.isRejectedByCursor {
      #expect(error?.description == rejection.message)
    } else {
      #expect(error == nil)
    }
  }

  @Test func parsesNestedValuesKeepingOrderAndLiterals() throws {
    let value = try JSONValue.parse(
      " {\"b\" : [1, 2.50, -0, 1E+2, true, false, null],\r\n\t\"a\": {\"\": \"x\"}} ")
    let expected = JSONValue.object(
      JSONObject([
        "b": .array([
          .number("1"), .number("2.50"), .number("-0"), .number("1E+2"), .bool(true),
          .bool(false), .null,
        ]),
        "a": .object(JSONObject(["": .string("x")])),
      ]))
    #expect(value == expected)
    #expect(value.objectValue?.keys == ["b", "a"])
    #expect(
      String(decoding: value.compactBytes, as: UTF8.self)
        == #"{"b":[1,2.50,-0,1E+2,true,false,null],"a":{"":"x"}}"#)
  }

  @Test func acceptsNestingUpToTheLimit() throws {
    let arrays = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(try JSONValue.parse(arrays).compactBytes == Array(arrays.utf8))
    let objects =
      String(repeating: #"{"a":"#, count: 511) + "{}" + String(repeating: "}", count: 511)
    #expect(try JSONValue.parse(objects).compactBytes == Array(objects.utf8))
  }

  @Test func canonicallyEquivalentKeysAreDistinctKeys() throws {
    // RFC 8259 compares names code unit by code unit: "é" and "e" + U+0301 are two keys.
    let value = try JSONValue.parse("{\"\u{E9}\":1,\"e\u{301}\":2}")
    #expect(value.objectValue?.members.count == 2)
    #expect(value["\u{E9}"] == .number("1"))
    #expect(value["e\u{301}"] == .number("2"))
  }

  @Test func objectSubscriptSetsReplacesAndRemovesMembers() {
    var object = JSONObject(["a": .number("1"), "b": .number("2")])
    object["a"] = .string("x")
    object["c"] = .null
    object["b"] = nil
    object["missing"] = nil
    #expect(object.keys == ["a", "c"])
    #expect(object["a"] == .string("x"))
    #expect(object["c"] == .null)
    #expect(object["b"] == nil)
  }

  @Test func accessorsReturnValuesOfTheirKindOnly() throws {
    let value = try JSONValue.parse(
      #"{"i":-9223372036854775808,"big":9223372036854775808,"f":1.5,"e":1e400,"s":"t","b":true,"n":null,"a":[1]}"#
    )
    #expect(value["i"]?.int64Value == Int64.min)
    #expect(value["big"]?.int64Value == nil)
    #expect(value["f"]?.int64Value == nil)
    #expect(value["f"]?.doubleValue == 1.5)
    #expect(value["e"]?.doubleValue == nil)
    #expect(value["s"]?.stringValue == "t")
    #expect(value["s"]?.doubleValue == nil)
    #expect(value["b"]?.boolValue == true)
    #expect(value["n"] == .null)
    #expect(value["a"]?.arrayValue == [.number("1")])
    #expect(value["missing"] == nil)
    #expect(value["a"]?["x"] == nil)
    #expect(value["n"]?.kindDescription == "null")
    #expect(value["a"]?.kindDescription == "an array")
    #expect(value.kindDescription == "an object")
  }

  @Test func snippetCutsLongValues() {
    #expect(JSONValue.string("short").snippet == #""short""#)
    let long = JSONValue.array(Array(repeating: .number("12345"), count: 20))
    #expect(long.snippet == "[12345,12345,12345,12345,12345,12345,12345,12345,12345,12...")
    #expect(long.snippet.count == 60)
  }

  @Test func parseOfStringMatchesParseOfBytes() throws {
    let text = #"{"k":["v",1]}"#
    #expect(try JSONValue.parse(text) == JSONValue.parse(Array(text.utf8)))
  }

  /// Where `value` (ours) and `object` (Foundation's) differ, or `nil` when they agree.
  static func difference(_ value: JSONValue, _ object: Any, path: String = "$") -> String? {
    switch value {
    case .null:
      return object is NSNull ? nil : "\(path): null vs \(object)"
    case .bool(let bool):
      guard let number = object as? NSNumber, String(cString: number.objCType) == "c",
        number.boolValue == bool
      else { return "\(path): \(bool) vs \(object)" }
      return nil
    case .number(let literal):
      guard let number = object as? NSNumber, String(cString: number.objCType) != "c",
        let expected = Double(literal)
      else { return "\(path): \(literal) vs \(object)" }
      if let integer = Int64(literal) {
        return number.int64Value == integer ? nil : "\(path): \(literal) vs \(number)"
      }
      // Foundation reads long literals into an NSDecimalNumber, whose `doubleValue` can be a few
      // units in the last place off the correctly rounded double; plain NSNumbers must be exact.
      let tolerance = number is NSDecimalNumber ? 1e-14 * abs(expected) : 0
      return abs(number.doubleValue - expected) <= tolerance
        ? nil : "\(path): \(literal) vs \(number.doubleValue)"
    case .string(let string):
      guard let other = object as? String,
        Array(other.unicodeScalars) == Array(string.unicodeScalars)
      else { return "\(path): \(string.debugDescription) vs \(object)" }
      return nil
    case .array(let elements):
      guard let others = object as? [Any], others.count == elements.count else {
        return "\(path): \(value.snippet) vs \(object)"
      }
      for (index, (element, other)) in zip(elements, others).enumerated() {
        if let difference = difference(element, other, path: "\(path)[\(index)]") {
          return difference
        }
      }
      return nil
    case .object(let members):
      guard let others = object as? [String: Any], others.count == members.members.count else {
        return "\(path): \(value.snippet) vs \(object)"
      }
      for member in members.members {
        guard let other = others[member.key] else {
          return "\(path): no key \(member.key.debugDescription) in \(object)"
        }
        if let difference = difference(
          member.value, other, path: "\(path).\(member.key.debugDescription)")
        {
          return difference
        }
      }
      return nil
    }
  }

  @Test func parsingAgreesWithFoundationOnRandomTexts() throws {
    let seed = TestSeed.make()
    var random = SplitMix64(seed: seed)
    for _ in 0..<(slowTestsEnabled ? 20_000 : 500) {
      let value = RandomJSON.value(using: &random, alphabet: RandomJSON.foundationAlphabet)
      // Sprinkle insignificant whitespace so both parsers skip it.
      var text = value.compactBytes
      if Bool.random(using: &random) { text = Array(" \r\n\t".utf8) + text + Array("\n".utf8) }
      let ours = try JSONValue.parse(text)
      let foundation = try JSONSerialization.jsonObject(
        with: Data(text), options: [.fragmentsAllowed])
      let difference = Self.difference(ours, foundation)
      #expect(difference == nil, "\(String(decoding: text, as: UTF8.self)), seed \(seed)")
    }
  }
}

/// The writers' scan for bytes to escape goes a word at a time: it must find exactly what a
/// byte-by-byte application of the escape rule finds, wherever the bytes fall in a word.
@Suite struct JSONEscapingScanTests {
  /// The rule applied one byte at a time: the oracle.
  private func escapedByteByByte(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    for byte in bytes {
      if let escape = JSONWriter.escapeSequence(for: byte) {
        var word = escape.bytes
        for _ in 0..<escape.count {
          out.append(UInt8(truncatingIfNeeded: word))
          word >>= 8
        }
      } else {
        out.append(byte)
      }
    }
    return out
  }

  private func escaped(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    bytes.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &out) }
    return out
  }

  @Test func everySpecialByteAtEveryPositionOfShortTexts() {
    let special: [UInt8] = Array(0..<0x20) + [0x22, 0x5C, 0x7F, 0x80, 0xE6, 0x2F, 0x41]
    for length in 1...40 {
      for position in 0..<length {
        for byte in special {
          var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
          bytes[position] = byte
          #expect(escaped(bytes) == escapedByteByByte(bytes), "\(byte) at \(position) of \(length)")
          // And a second one further on, in the same word or the next.
          if position + 3 < length {
            bytes[position + 3] = 0x22
            #expect(
              escaped(bytes) == escapedByteByByte(bytes), "\(byte) at \(position) of \(length)")
          }
        }
      }
    }
    #expect(escaped([]) == [])
  }

  @Test func randomTextsOfUTF8AndEscapes() {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x4553_4341))
    let pieces: [[UInt8]] = [
      Array("a".utf8), Array("漢字".utf8), Array("é".utf8), [0x22], [0x5C], [0x0A], [0x01], [0x1F],
      Array("plain text ".utf8),
    ]
    for _ in 0..<2000 {
      var bytes: [UInt8] = []
      for _ in 0..<Int.random(in: 0...30, using: &generator) {
        bytes += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
      }
      #expect(escaped(bytes) == escapedByteByByte(bytes))
      let first = bytes.firstIndex { JSONWriter.escapeSequence(for: $0) != nil } ?? bytes.count
      #expect(bytes.withUnsafeBytes { JSONWriter.nextEscape(in: $0, from: 0) } == first)
    }
  }

  /// The scan from every start, in texts of 0 to 20 bytes with one or two bytes that need an
  /// escape: the last few bytes are read in one word (the text's last eight shifted past those
  /// already scanned), and an escape just before the start must not flag the byte after it.
  @Test func theScanFromAnyStartFindsTheNextEscape() {
    let special: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, 0x22, 0x5C]
    let plain: [UInt8] = [0x20, 0x21, 0x23, 0x41, 0x5B, 0x5D, 0x7F, 0x80, 0xE6, 0xFF]
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5343_414E))
    for length in 0...20 {
      for _ in 0..<60 {
        var bytes = (0..<length).map { _ in plain[Int(generator.next() % UInt64(plain.count))] }
        for _ in 0..<Int(generator.next() % 3) where length > 0 {
          bytes[Int(generator.next() % UInt64(length))] =
            special[Int(generator.next() % UInt64(special.count))]
        }
        for start in 0...length {
          let expected =
            bytes[start...].firstIndex { JSONWriter.escapeSequence(for: $0) != nil } ?? length
          let found = bytes.withUnsafeBytes { JSONWriter.nextEscape(in: $0, from: start) }
          #expect(found == expected, "\(bytes) from \(start)")
        }
      }
    }
  }
}

/// Repeated keys are found by a search of the keys before while an object is small, and by a
/// set once it is large: both must refuse a repeat, and neither may take canonically
/// equivalent keys for the same.
@Suite struct JSONRepeatedKeyTests {
  private func object(_ keys: [String]) -> [UInt8] {
    Array(("{" + keys.map { "\"\($0)\":1" }.joined(separator: ",") + "}").utf8)
  }

  @Test(arguments: [2, 15, 16, 17, 40])
  func aRepeatedKeyIsRefusedInObjectsOfAnySize(size: Int) {
    let keys = (0..<size).map { "k\($0)" }
    #expect((try? JSONValue.parse(object(keys))) != nil)
    for repeated in [0, size / 2, size - 1] {
      let text = object(keys + [keys[repeated]])
      #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }
    // Equivalent, not equal: "é" and "e" + U+0301 are two keys.
    let equivalent = object(keys + ["\u{E9}", "e\u{301}"])
    let parsed = try? JSONValue.parse(equivalent)
    #expect(parsed?.objectValue?.members.count == size + 2)
    #expect(parsed?["e\u{301}"] == .number("1"))
  }
}
