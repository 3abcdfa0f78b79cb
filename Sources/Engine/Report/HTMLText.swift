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

  /// `text` with `&`, `<`, `>`, `"` and `'` as character references, and control characters
  /// (which a log may hold, escaped, in any text) shown as `\u{…}`.
  static func escaped(_ text: String) -> String {
    guard
      text.utf8.contains(where: {
        $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 < 0x20
          || $0 == 0x7F
      })
    else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      case "\n": result += " "
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          result += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
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
