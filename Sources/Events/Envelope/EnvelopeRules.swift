/// The rules every envelope's names follow, shared by the writer, the reader and `verify`.
public enum EnvelopeRules {
  /// The longest stream name, in UTF-8 bytes.
  public static let maximumStreamNameLength = 256
  /// The longest event type name, in bytes.
  public static let maximumTypeNameLength = 128

  /// Why `stream` cannot name a stream, or `nil` when it can.
  ///
  /// A stream name is 1 to 256 bytes of UTF-8 with no control characters and no leading or
  /// trailing spaces. By convention it is `<category>-<entity id>`, e.g. `contact-13`.
  public static func problem(withStreamName stream: String) -> String? {
    // Fast path for every append: printable ASCII without a space at either end is always a
    // valid name, and deciding it needs no Unicode tables.
    var stream = stream
    let isPlainASCII = stream.withUTF8 { bytes in
      bytes.count > 0 && bytes.count <= maximumStreamNameLength && bytes.first != 0x20
        && bytes.last != 0x20 && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
    if isPlainASCII { return nil }
    if stream.isEmpty { return "a stream name is empty" }
    if stream.utf8.count > maximumStreamNameLength {
      return "a stream name is \(stream.utf8.count) bytes, more than \(maximumStreamNameLength)"
    }
    // C0, DEL and C1 (U+0080-U+009F, which terminals may obey as escape sequences) alike.
    func isControl(_ scalar: Unicode.Scalar) -> Bool {
      scalar.properties.generalCategory == .control
    }
    if stream.unicodeScalars.contains(where: isControl) {
      // Show control characters escaped (`\t`, `\u{0085}`): the message must be safe to print.
      let shown = stream.unicodeScalars.map {
        isControl($0) ? $0.escaped(asASCII: true) : String($0)
      }
      return "stream name '\(shown.joined())' holds a control character"
    }
    // Scalars, not `Character`s: a space followed by a combining mark is one `Character`.
    if stream.unicodeScalars.first == " " || stream.unicodeScalars.last == " " {
      return "stream name '\(stream)' starts or ends with a space"
    }
    return nil
  }

  /// Why `type` cannot name an event type, or `nil` when it can.
  ///
  /// A type name starts with an ASCII letter and continues with letters, digits, `_` or `.`,
  /// at most 128 bytes: `ContactFavorited`, `billing.InvoiceSent`.
  public static func problem(withTypeName type: String) -> String? {
    guard let first = type.utf8.first else { return "an event type name is empty" }
    if type.utf8.count > maximumTypeNameLength {
      return "event type name is \(type.utf8.count) bytes, more than \(maximumTypeNameLength)"
    }
    @inline(__always) func isLetter(_ byte: UInt8) -> Bool {
      byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A
    }
    guard isLetter(first) else {
      return "event type '\(type)' must start with a letter (A-Z or a-z)"
    }
    var type = type
    let isValid = type.withUTF8 { bytes in
      bytes.allSatisfy { isLetter($0) || ($0 &- 0x30) < 10 || $0 == 0x5F || $0 == 0x2E }
    }
    return isValid ? nil : "event type '\(type)' may hold only letters, digits, '_' and '.'"
  }

  /// A stream's category: what comes before its first `-` (`contact-13` → `contact`), or the
  /// whole name when it has none.
  public static func category(ofStream stream: String) -> Substring {
    stream.prefix { $0 != "-" }
  }
}
