/// Word wrapping for help text, the same way swift-argument-parser wraps it.
enum TextWrapping {
  /// Wraps text to a width, indenting every non-empty line.
  ///
  /// Each line takes at most `width - indent` characters of text, broken at the last space
  /// within them; a word longer than that stays whole on its own line. Existing line breaks
  /// are kept, and empty lines are not indented.
  ///
  /// - Note: This mirrors `wrapped(to:wrappingIndent:)` in swift-argument-parser's
  ///   `StringExtensions.swift` so our help text breaks where its help text would: a line
  ///   that is broken never uses its last column.
  ///
  /// - Parameters:
  ///   - text: The text to wrap.
  ///   - width: The screen width, such as 80.
  ///   - indent: The spaces before each line; the text then gets `width - indent` columns.
  /// - Returns: The wrapped lines joined by line breaks, without a trailing line break.
  static func wrap(_ text: String, width: Int, indent: Int = 0) -> String {
    let columns = width - indent
    precondition(columns > 0, "the indent \(indent) leaves no room within \(width) columns")
    var lines: [Substring] = []
    var rest = text[...]
    while true {
      let chunk = rest.prefix(columns)
      if let lastBreak = chunk.lastIndex(of: "\n") {
        lines += rest[..<lastBreak].split(separator: "\n", omittingEmptySubsequences: false)
        rest = rest[rest.index(after: lastBreak)...]
      } else if chunk.endIndex == rest.endIndex {
        lines.append(rest)
        break
      } else if let lastSpace = chunk.lastIndex(of: " ") {
        lines.append(rest[..<lastSpace])
        rest = rest[rest.index(after: lastSpace)...]
      } else if let nextSpace = rest.firstIndex(of: " ") {
        lines.append(rest[..<nextSpace])
        rest = rest[rest.index(after: nextSpace)...]
      } else {
        lines.append(rest)
        break
      }
    }
    let margin = String(repeating: " ", count: indent)
    return lines.map { $0.isEmpty ? "" : margin + $0 }.joined(separator: "\n")
  }
}
