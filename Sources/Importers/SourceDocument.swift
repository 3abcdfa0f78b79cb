import Events

/// Turns a source's bytes into a `JSONValue`: JSON for every kind, and for states an XML or
/// binary property list as well (read into the same tree, so one parser serves both).
enum SourceDocument {
  /// The source's bytes without a leading UTF-8 byte-order mark (`EF BB BF`), which some
  /// exporters write and JSON does not allow.
  static func withoutByteOrderMark(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
    bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
  }

  /// Parses the source as JSON, keeping members in source order.
  /// - Throws: `ImportError.notJSON` with the line and column of the first problem.
  static func json(
    _ bytes: [UInt8], source: String, isRemote: Bool
  ) throws(ImportError) -> JSONValue {
    let text = withoutByteOrderMark(bytes)
    do throws(JSONSyntaxError) {
      return try JSONValue.parse(text)
    } catch {
      let position = error.lineAndColumn(in: text)
      throw ImportError.notJSON(
        source: source, isRemote: isRemote, line: position.line, column: position.column,
        syntax: error)
    }
  }

  /// Parses the source as JSON when it starts with `{` or `[`, and as a property list when it
  /// starts with `<` (XML) or `bplist` (binary).
  /// - Throws: `ImportError.notJSON`, `.notPropertyList` or `.unrecognizedFormat`.
  static func jsonOrPropertyList(
    _ bytes: [UInt8], source: String, isRemote: Bool
  ) throws(ImportError) -> JSONValue {
    let text = withoutByteOrderMark(bytes)
    if text.starts(with: Array("bplist".utf8)) {
      return try PropertyListReader.readBinary(Array(text), source: source)
    }
    let first = text.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    switch first {
    case 0x3C:
      return try PropertyListReader.readXML(Array(text), source: source)
    case 0x7B, 0x5B, nil:
      return try json(bytes, source: source, isRemote: isRemote)
    default:
      let start = text.firstIndex { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } ?? text.startIndex
      let snippet = String(decoding: text[start...].prefix(12), as: UTF8.self)
      throw ImportError.unrecognizedFormat(source: source, found: "'\(snippet)'")
    }
  }

  /// How a JSON value's kind and keys are shown when the layout is wrong:
  /// `an object with keys 'status', 'items'`.
  static func describeLayout(_ value: JSONValue) -> String {
    guard case .object(let object) = value else { return value.kindDescription }
    guard !object.members.isEmpty else { return "an empty object" }
    let keys = object.keys.prefix(6).map { "'\($0)'" }.joined(separator: ", ")
    return "an object with keys \(keys)\(object.members.count > 6 ? ", ..." : "")"
  }
}
