import Events

/// A page of HTML being written: markup appended as is, text escaped.
struct HTMLText {
  private(set) var html = ""

  init(capacity: Int = 1 << 16) {
    html.reserveCapacity(capacity)
  }

  /// Appends markup the report wrote itself (never text from the log).
  mutating func raw(_ markup: String) {
    html += markup
  }

  /// Appends text, escaped for an element's content or a quoted attribute.
  mutating func text(_ text: String) {
    html += Self.escaped(text)
  }

  /// Appends `<tag attributes>text</tag>`, the text escaped.
  mutating func element(_ tag: String, _ attributes: String = "", _ content: String) {
    html += "<" + tag + (attributes.isEmpty ? "" : " " + attributes) + ">"
    text(content)
    html += "</" + tag + ">"
  }

  /// Appends text from the log (a name, a title, an actor, a reason, …) inside the page's
  /// own text, isolated for bidirectional text: `<bdi>text</bdi>`, so that a right-to-left
  /// name cannot reorder the words around it.
  mutating func isolated(_ text: String) {
    html += "<bdi>" + Self.escaped(text) + "</bdi>"
  }

  /// Appends `<tag attributes dir="auto">text</tag>`: an element whose whole content is text
  /// from the log, its direction taken from that text and isolated from what surrounds it.
  mutating func userElement(_ tag: String, _ attributes: String = "", _ content: String) {
    element(tag, attributes.isEmpty ? "dir=\"auto\"" : attributes + " dir=\"auto\"", content)
  }

  /// Text from the log for places that hold plain text only (an attribute's value, an SVG
  /// `<title>` or `<text>`, the page's `<title>`), escaped and isolated between U+2068 FIRST
  /// STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE, the plain-text form of `<bdi>`. Balanced
  /// always: `escaped` shows every isolate and embedding control of the text itself.
  static func isolatedPlainText(_ text: String) -> String {
    "\u{2068}" + escaped(text) + "\u{2069}"
  }

  /// Whether `scalar` is an explicit bidirectional formatting character: an embedding, an
  /// override or an isolate (U+202A–U+202E, U+2066–U+2069), which would reorder the text
  /// after it.
  static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
    (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
  }

  /// `text` with `&`, `<`, `>`, `"` and `'` as character references, and control characters
  /// (which a log may hold, escaped, in any text) and explicit bidirectional formatting
  /// characters (`isBidiControl`: U+202E would show the rest of a line backwards) shown as
  /// `\u{…}`.
  static func escaped(_ text: String) -> String {
    // 0xE2 leads the UTF-8 of every bidirectional formatting character.
    guard
      text.utf8.contains(where: {
        $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 < 0x20
          || $0 == 0x7F || $0 == 0xE2
      })
    else { return text }
    return TextEscaping.replacing(text) { scalar in
      if let reference = TextEscaping.markupReference(scalar) { return reference }
      switch scalar {
      case "\"": return "&quot;"
      case "'": return "&#39;"
      case "\n": return " "
      case _ where scalar.value < 0x20 || scalar.value == 0x7F || isBidiControl(scalar):
        return "\\u{" + String(scalar.value, radix: 16) + "}"
      default: return nil
      }
    }
  }

  /// A number with thousands separators (`12,345`), the same in every locale.
  static func count(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = value < 0 ? "-" : ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result += "," }
      result.append(digit)
    }
    return result
  }

  /// `value` with at most `places` decimals, without a locale (SVG coordinates).
  static func number(_ value: Double, places: Int = 1) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
    return String(rounded)
  }
}
