import Events

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

  /// Appends `utf8` as the inside of a JSON string (no quotes), escaped for JSON and then for
  /// COPY, writing each byte once: JSON leaves no tab, line feed or carriage return unescaped,
  /// so COPY only doubles the backslashes of JSON's escape sequences (`"` becomes `\\"`, a
  /// backslash four). `CopyTextTests` checks every byte against the two steps done apart.
  /// - Complexity: O(n): one pass to size the output, one to write it.
  static func appendJSONString(_ utf8: UnsafeRawBufferPointer, to row: inout [UInt8]) {
    var length = utf8.count
    for byte in utf8 {
      // The sequence and one more backslash a backslash in it, less the byte counted.
      if let sequence = JSONWriter.escapeSequence(for: byte) {
        length += sequence.count + (byte == 0x5C ? 1 : 0)
      }
    }
    let start = row.count
    row.append(contentsOf: repeatElement(0, count: length))
    row.withUnsafeMutableBufferPointer { row in
      var at = start
      for byte in utf8 {
        guard let sequence = JSONWriter.escapeSequence(for: byte) else {
          row[at] = byte
          at += 1
          continue
        }
        // The sequence, each of its backslashes doubled for COPY.
        var word = sequence.bytes
        for _ in 0..<sequence.count {
          let escaped = UInt8(truncatingIfNeeded: word)
          if escaped == 0x5C {
            row[at] = 0x5C
            at += 1
          }
          row[at] = escaped
          at += 1
          word >>= 8
        }
      }
    }
  }

  /// Appends `value` as a JSON string (quoted), escaped for JSON and then for COPY.
  static func appendJSONString(_ value: String, to row: inout [UInt8]) {
    row.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0), to: &row) }
    row.append(UInt8(ascii: "\""))
  }
}
