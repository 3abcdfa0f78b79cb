/// A plain-text table with aligned columns, for terminal output.
///
///     SEQ  TIME                      STREAM      TYPE
///       1  2026-11-01T09:00:00.000Z  contact-13  ContactAdded
///
/// Widths count terminal columns: East Asian wide characters and emoji take two.
struct TextTable {
  enum Alignment {
    case left
    case right
  }

  struct Column {
    var title: String
    var alignment: Alignment = .left
    /// Longer cells are cut to this many columns, ending in `…`.
    var maximumWidth: Int = 60
  }

  var columns: [Column]
  var rows: [[String]] = []

  init(_ columns: [Column]) {
    self.columns = columns
  }

  mutating func append(_ row: [String]) {
    rows.append(row)
  }

  /// The table as lines (without trailing spaces), header first.
  func render() -> String {
    let cells = ([columns.map(\.title)] + rows).map(cells(of:))
    let widths = Self.widths(of: cells, columns: columns.count)
    return cells.map { line($0, widths: widths) }.joined()
  }

  /// A row's cells as printed: on one line, cut to their column's maximum width.
  func cells(of row: [String]) -> [String] {
    row.enumerated().map { index, cell in
      Self.truncate(Self.singleLine(cell), to: columns[index].maximumWidth)
    }
  }

  /// The widest cell of each column.
  static func widths(of rows: [[String]], columns: Int) -> [Int] {
    var widths = Array(repeating: 0, count: columns)
    for row in rows {
      for (index, cell) in row.enumerated() {
        widths[index] = max(widths[index], displayWidth(cell))
      }
    }
    return widths
  }

  /// One row as a line ending in a line break: cells padded to `widths`, two spaces apart; a
  /// cell wider than its column is printed whole, pushing the rest of its row only.
  func line(_ cells: [String], widths: [Int]) -> String {
    var line = ""
    for (index, cell) in cells.enumerated() {
      let padding = String(repeating: " ", count: max(0, widths[index] - displayWidth(cell)))
      if index > 0 { line += "  " }
      line += columns[index].alignment == .right ? padding + cell : cell + padding
    }
    while line.last == " " { line.removeLast() }
    return line + "\n"
  }

  /// Control characters (line breaks in descriptions) shown as spaces, to keep one row a line.
  static func singleLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.value < 0x20 }) else { return text }
    return String(
      String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
  }

  static func truncate(_ text: String, to width: Int) -> String {
    guard displayWidth(text) > width else { return text }
    var result = ""
    var used = 0
    for character in text {
      let characterWidth = displayWidth(String(character))
      if used + characterWidth > width - 1 { break }
      result.append(character)
      used += characterWidth
    }
    return result + "…"
  }
}

/// How many terminal columns `text` takes: 2 for East Asian wide characters and emoji, 0 for
/// combining marks and joiners, 1 otherwise.
func displayWidth(_ text: String) -> Int {
  // Plain ASCII is one column a byte; tables of thousands of rows are mostly that.
  if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
  var width = 0
  for character in text {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { continue }
    if first.properties.isEmojiPresentation
      || (scalars.count > 1 && scalars.contains { $0.value == 0xFE0F })
    {
      width += 2
      continue
    }
    switch first.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x20000...0x3FFFD:
      width += 2
    case 0x0300...0x036F, 0x200B...0x200F, 0xFEFF:
      break
    default:
      width += 1
    }
  }
  return width
}
