/// The `encoding` an XML document names in its declaration (`<?xml version="1.0"
/// encoding="UTF-8"?>`), read before the document goes to `XMLParser`.
///
/// libxml2 2.9 (which `XMLParser` uses on Linux) crashes (SIGSEGV) when text in another encoding
/// does not convert: found by the `import` fuzz target with `encoding="UTF-7"` and a byte that is
/// not UTF-7; Shift_JIS, EUC-JP, GB18030, Big5, UCS-4, ISO-2022-JP and UTF-16 (which libxml2
/// also detects from the first bytes, `<\0?\0`) do the same. Property lists are UTF-8, so only
/// UTF-8 reaches `XMLParser`: declared UTF-8 (or nothing), and valid UTF-8 without NUL bytes
/// (see `firstNonUTF8Offset`), so that libxml2 never converts anything.
struct XMLEncodingDeclaration {
  /// The name as written, e.g. `UTF-7`.
  let name: String
  /// Where the name starts, from 1.
  let line: Int
  let column: Int

  /// The names of UTF-8, uppercased.
  static let readable: Set<String> = ["UTF-8", "UTF8"]

  /// Whether `XMLParser` can be given the document.
  var isReadable: Bool { Self.readable.contains(name.uppercased()) }

  /// Reads the declaration at the start of `bytes` (after any whitespace); `nil` when there is
  /// none or it names no encoding (XML then means UTF-8).
  init?(_ bytes: [UInt8]) {
    guard var start = bytes.firstIndex(where: { !Self.isSpace($0) }),
      bytes[start...].starts(with: "<?xml".utf8)
    else { return nil }
    let end = bytes[start...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.endIndex
    let key = Array("encoding".utf8)
    while start + key.count <= end, !bytes[start..<(start + key.count)].elementsEqual(key) {
      start += 1
    }
    var index = start + key.count
    while index < end, Self.isSpace(bytes[index]) { index += 1 }
    guard index < end, bytes[index] == UInt8(ascii: "=") else { return nil }
    index += 1
    while index < end, Self.isSpace(bytes[index]) { index += 1 }
    guard index < end, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'")
    else { return nil }
    let quote = bytes[index]
    let nameStart = index + 1
    guard let nameEnd = bytes[nameStart..<end].firstIndex(of: quote) else { return nil }
    name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
    let before = bytes[..<nameStart]
    line = before.count { $0 == 0x0A } + 1
    column = nameStart - ((before.lastIndex(of: 0x0A) ?? -1) + 1) + 1
  }

  /// The offset of the first byte of `bytes` that is not part of valid UTF-8, or is NUL (which
  /// XML does not allow, and from which libxml2 guesses UTF-16 or UCS-4); `nil` if there is none.
  static func firstNonUTF8Offset(_ bytes: [UInt8]) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        if encoded.count == 1, encoded.first == 0 { return offset }
        offset += encoded.count
      case .error:
        return offset
      case .emptyInput:
        return nil
      }
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }
}
