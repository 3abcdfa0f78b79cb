/// Values in the text format of PostgreSQL's `COPY`: columns separated by a tab, rows ended by
/// a line feed, and in a value a backslash, tab, line feed or carriage return written as
/// `\\`, `\t`, `\n` or `\r` (every other byte as itself).
enum CopyText {
  static let tab = UInt8(ascii: "\t")
  static let newline = UInt8(ascii: "\n")

  /// Appends `value`'s bytes to `row`, escaped.
  /// - Complexity: O(n); a value without the four bytes is copied whole.
  static func append(_ value: UnsafeRawBufferPointer, to row: inout [UInt8]) {
    var start = 0
    for index in 0..<value.count {
      let escaped: UInt8
      switch value[index] {
      case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
      case tab: escaped = UInt8(ascii: "t")
      case newline: escaped = UInt8(ascii: "n")
      case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
      default: continue
      }
      row.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[start..<index]))
      row.append(UInt8(ascii: "\\"))
      row.append(escaped)
      start = index + 1
    }
    row.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[start...]))
  }

  /// Appends one of a log line's strings to `row`, escaped: `unescaped` when the line's JSON
  /// escapes any of its characters, and otherwise its `bytes` as they stand in the line.
  static func append(
    _ bytes: UnsafeBufferPointer<UInt8>, unescaped: String?, to row: inout [UInt8]
  ) {
    if let unescaped {
      append(unescaped, to: &row)
    } else {
      append(UnsafeRawBufferPointer(bytes), to: &row)
    }
  }

  /// Appends `value`'s UTF-8 bytes to `row`, escaped.
  static func append(_ value: String, to row: inout [UInt8]) {
    var value = value
    value.withUTF8 { append(UnsafeRawBufferPointer($0), to: &row) }
  }
}
