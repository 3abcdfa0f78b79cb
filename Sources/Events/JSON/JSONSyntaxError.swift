/// A JSON text that does not follow RFC 8259, with the byte offset where reading stopped.
///
/// The message names what was expected and what was found, e.g.
/// `expected ',' or '}' after an object member, found 'x' at byte 17`.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Zero-based byte offset into the text that was being read.
  public var offset: Int
  /// What the reader expected at `offset` (e.g. `"a string"`, `"',' or '}'"`).
  public var expected: String
  /// A short, printable rendering of what it found instead (e.g. `"'x'"`, `"end of input"`).
  public var found: String

  public init(offset: Int, expected: String, found: String) {
    self.offset = offset
    self.expected = expected
    self.found = found
  }

  public var description: String {
    "expected \(expected), found \(found) at byte \(offset)"
  }

  /// Renders the byte at `offset` of `bytes` for an error message, or `end of input`.
  static func describe(_ base: UnsafePointer<UInt8>, at offset: Int, end: Int) -> String {
    guard offset < end else { return "end of input" }
    let byte = base[offset]
    switch byte {
    case 0x0A: return "a line break"
    case 0x0D: return "a carriage return"
    case 0x09: return "a tab"
    case 0x20: return "a space"
    case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
    default:
      // Show a whole UTF-8 character when one starts here, else the byte in hex.
      var length = 1
      if byte >= 0xC0 {
        length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
      }
      if byte >= 0xC0, offset + length <= end,
        let text = String(
          validating: UnsafeBufferPointer(start: base + offset, count: length), as: UTF8.self)
      {
        return "'\(text)'"
      }
      let hex = String(byte, radix: 16, uppercase: true)
      return "byte 0x" + (byte < 0x10 ? "0" + hex : hex)
    }
  }

  /// Converts the byte offset into a 1-based line and column, for messages about files.
  public func lineAndColumn(in bytes: some Collection<UInt8>) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    for (index, byte) in bytes.enumerated() {
      if index >= offset { break }
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return (line, column)
  }
}
