import Foundation

@testable import Events

/// Runs `body` with a cursor over `bytes`.
func withCursor<Result>(
  over bytes: [UInt8], _ body: (inout JSONCursor) throws -> Result
) rethrows -> Result {
  try bytes.withUnsafeBytes { buffer in
    var cursor = JSONCursor(buffer)
    return try body(&cursor)
  }
}

/// Runs `body` with a cursor over the UTF-8 bytes of `text`.
func withCursor<Result>(
  over text: String, _ body: (inout JSONCursor) throws -> Result
) rethrows -> Result {
  try withCursor(over: Array(text.utf8), body)
}

/// The `JSONSyntaxError` that `body` throws, or `nil` if it throws nothing (or something else).
func syntaxError(_ body: () throws -> Void) -> JSONSyntaxError? {
  do {
    try body()
    return nil
  } catch let error as JSONSyntaxError {
    return error
  } catch {
    return nil
  }
}

/// How the cursor-only read path would turn a text into a value: strings decoded by
/// `JSONCursor.readString`, numbers kept as their literal. It skips `JSONValue`'s extra checks.
func readValueWithCursor(_ cursor: inout JSONCursor) throws -> JSONValue {
  switch cursor.peek() {
  case 0x22: return .string(try cursor.readString())
  case 0x7B:
    var members: [JSONObject.Member] = []
    try cursor.readObject { key, cursor in
      // `base` is internal, so decoding a key to a `String` takes `@testable`.
      let name = key.string(base: cursor.base)
      members.append(JSONObject.Member(key: name, value: try readValueWithCursor(&cursor)))
    }
    return .object(JSONObject(members))
  case 0x5B:
    var elements: [JSONValue] = []
    try cursor.readArray { cursor in elements.append(try readValueWithCursor(&cursor)) }
    return .array(elements)
  case 0x74, 0x66: return .bool(try cursor.readBool())
  case 0x6E:
    _ = cursor.readNull()
    return .null
  default:
    let literal = try cursor.readNumberLiteral()
    let bytes = cursor.bytes(from: literal.lowerBound, to: literal.upperBound)
    return .number(String(decoding: bytes, as: UTF8.self))
  }
}

/// Random JSON values for round-trip tests.
enum RandomJSON {
  /// Characters that stress the escaper and the decoders: ASCII, every control character, the
  /// characters JSON escapes, multi-byte scalars of every UTF-8 length, combining marks, ZWJ
  /// emoji parts, flags' regional indicators, U+2028/2029, the BOM and the last scalar.
  static let fullAlphabet: [Unicode.Scalar] =
    Array("abcXYZ019 _-.,:{}[]\"\\/'".unicodeScalars)
    + (0x00...0x1F).compactMap(Unicode.Scalar.init(_:))
    + Array(
      "\u{7F}\u{80}\u{9F}éß中文字😀👩\u{200D}👧\u{1F1EB}\u{1F1F7}\u{301}\u{2028}\u{2029}\u{FEFF}\u{FFFD}\u{E000}\u{10FFFF}"
        .unicodeScalars)

  /// `fullAlphabet` without the scalars Foundation's `JSONSerialization` alters or conflates:
  /// it drops a raw U+FEFF inside strings, and its dictionaries merge keys that are canonically
  /// equivalent (so combining marks go too).
  static let foundationAlphabet: [Unicode.Scalar] = fullAlphabet.filter {
    $0 != "\u{FEFF}" && $0 != "\u{301}"
  }

  static func string(
    using random: inout some RandomNumberGenerator, alphabet: [Unicode.Scalar] = fullAlphabet,
    maximumLength: Int = 12
  ) -> String {
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0...maximumLength, using: &random) {
      scalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)])
    }
    return String(scalars)
  }

  static func numberLiteral(using random: inout some RandomNumberGenerator) -> String {
    switch Int.random(in: 0..<5, using: &random) {
    case 0: return String(Int64.random(in: .min ... .max, using: &random))
    case 1: return String(Int.random(in: -1000...1000, using: &random))
    case 2: return Double.random(in: -180...180, using: &random).description
    case 3:
      // Any finite double, tiny and huge exponents included, in the writer's shortest form.
      var value = Double(bitPattern: random.next())
      while !value.isFinite { value = Double(bitPattern: random.next()) }
      return value.description
    default:
      return ["0", "-0", "1.0", "1E+2", "-0.0e-0", "2.5e10", "1e-7"][
        Int.random(in: 0..<7, using: &random)]
    }
  }

  static func value(
    using random: inout some RandomNumberGenerator, depth: Int = 0,
    alphabet: [Unicode.Scalar] = fullAlphabet
  ) -> JSONValue {
    let containerWeight = max(0, 4 - depth)
    switch Int.random(in: 0..<(5 + containerWeight), using: &random) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &random))
    case 2: return .number(numberLiteral(using: &random))
    case 3, 4: return .string(string(using: &random, alphabet: alphabet))
    default:
      let count = Int.random(in: 0...5, using: &random)
      if Bool.random(using: &random) {
        return .array(
          (0..<count).map { _ in value(using: &random, depth: depth + 1, alphabet: alphabet) })
      }
      var object = JSONObject()
      var keys: Set<String> = []
      for _ in 0..<count {
        let key = string(using: &random, alphabet: alphabet)
        // Unique by `String`'s equality, which is stricter than JSON's (see `foundationAlphabet`).
        guard keys.insert(key).inserted else { continue }
        object.members.append(
          JSONObject.Member(
            key: key, value: value(using: &random, depth: depth + 1, alphabet: alphabet)))
      }
      return .object(object)
    }
  }
}
