/// The `encoding` an XML document names in its declaration (`<?xml version="1.0"
/// encoding="UTF-8"?>`), read before the document goes to `XMLParser`.
///
/// libxml2 (which `XMLParser` uses on Linux) converts other encodings through iconv, and a byte
/// that does not convert crashes it (SIGSEGV: found by the `import` fuzz target with
/// `encoding="UTF-7"`, and the same with Shift_JIS, EUC-JP, GB18030, Big5, UCS-4,
/// ISO-2022-JP). Property lists are UTF-8, so only the encodings libxml2 reads by itself are let
/// through.
struct XMLEncodingDeclaration {
  /// The name as written, e.g. `UTF-7`.
  let name: String
  /// Where the name starts, from 1.
  let line: Int
  let column: Int

  /// The encodings libxml2 decodes without iconv, uppercased.
  static let readable: Set<String> = ["UTF-8", "UTF8", "US-ASCII", "ASCII", "ISO-8859-1"]

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

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }
}
