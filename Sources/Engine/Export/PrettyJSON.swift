/// Indents compact JSON for people: two spaces a level, one member or element a line, a space
/// after each colon, empty containers as `{}` and `[]`, and a final newline (the layout of the
/// apps' source files).
enum PrettyJSON {
  /// `compact` (JSON without whitespace between tokens, as `JSONWriter` writes it) indented.
  /// - Complexity: O(n), one pass over the bytes.
  static func format(_ compact: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(compact.count * 2)
    var depth = 0
    var isInString = false
    var isEscaped = false
    func newLine() {
      output.append(0x0A)
      output.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }
    var index = 0
    while index < compact.count {
      let byte = compact[index]
      index += 1
      if isInString {
        output.append(byte)
        if isEscaped {
          isEscaped = false
        } else if byte == 0x5C {
          isEscaped = true
        } else if byte == 0x22 {
          isInString = false
        }
        continue
      }
      switch byte {
      case 0x22:
        isInString = true
        output.append(byte)
      case 0x7B, 0x5B:
        output.append(byte)
        // `{` + 2 is `}`, `[` + 2 is `]`.
        if index < compact.count, compact[index] == byte + 2 {
          output.append(byte + 2)
          index += 1
        } else {
          depth += 1
          newLine()
        }
      case 0x7D, 0x5D:
        depth -= 1
        newLine()
        output.append(byte)
      case 0x2C:
        output.append(byte)
        newLine()
      case 0x3A:
        output.append(contentsOf: [0x3A, 0x20])
      default:
        output.append(byte)
      }
    }
    output.append(0x0A)
    return output
  }
}
