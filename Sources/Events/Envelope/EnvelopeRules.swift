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
    func isLetter(_ byte: UInt8) -> Bool {
      (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
    guard isLetter(first) else {
      return "event type '\(type)' must start with a letter (A-Z or a-z)"
    }
    for byte in type.utf8
    where !(isLetter(byte) || (0x30...0x39).contains(byte) || byte == 0x5F || byte == 0x2E) {
      return "event type '\(type)' may hold only letters, digits, '_' and '.'"
    }
    return nil
  }

  /// A stream's category: what comes before its first `-` (`contact-13` → `contact`), or the
  /// whole name when it has none.
  public static func category(ofStream stream: String) -> Substring {
    stream.prefix { $0 != "-" }
  }
}
