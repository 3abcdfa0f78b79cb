import Events
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads a property list into a `JSONValue`, for the states importer.
///
/// XML property lists are read with `XMLParser`, so a `<dict>` keeps its keys in the order the
/// file writes them (`PropertyListSerialization` returns an unordered dictionary, which would
/// lose the order of a plain state-name → zip-codes dictionary). `<string>`, `<date>` and
/// `<data>` become strings, `<integer>` and `<real>` numbers, `<true/>` and `<false/>` booleans.
/// Comments are skipped.
///
/// Binary property lists (`bplist00`) are read with `PropertyListSerialization`; their
/// dictionaries' keys come out sorted, as the format keeps no order that Foundation exposes.
///
/// Arrays and dictionaries nest at most `maximumDepth` levels deep, as in JSON sources: deeper
/// nesting is an error, never a crash.
enum PropertyListReader {
  /// How deep arrays and dictionaries may nest: the same limit as JSON's
  /// (`JSONCursor.maximumDepth`, 512), so that a source is held to one limit in either format.
  static let maximumDepth = JSONCursor.maximumDepth

  /// Parses an XML property list.
  /// - Throws: `ImportError.notPropertyList` with the line and column `XMLParser` stopped at, or
  ///   of the first byte that is not UTF-8 (property lists are UTF-8; see
  ///   `XMLEncodingDeclaration`).
  static func readXML(_ bytes: [UInt8], source: String) throws(ImportError) -> JSONValue {
    if let declared = XMLEncodingDeclaration(bytes), !declared.isReadable {
      throw ImportError.notPropertyList(
        source: source, line: declared.line, column: declared.column,
        problem:
          "expected the encoding UTF-8 in the XML declaration, found '\(declared.name)'; "
          + "convert the file (iconv -f \(declared.name) -t UTF-8) and declare encoding=\"UTF-8\"")
    }
    if let offset = XMLEncodingDeclaration.firstNonUTF8Offset(bytes) {
      let before = bytes[..<offset]
      throw ImportError.notPropertyList(
        source: source, line: before.count { $0 == 0x0A } + 1,
        column: offset - ((before.lastIndex(of: 0x0A) ?? -1) + 1) + 1,
        problem: bytes[offset] == 0
          ? "expected UTF-8 text, found a NUL byte"
          : "expected UTF-8 text, found a byte sequence that is not UTF-8")
    }
    let parser = XMLParser(data: Data(bytes))
    let builder = Builder()
    parser.delegate = builder
    parser.shouldProcessNamespaces = false
    parser.shouldResolveExternalEntities = false
    let finished = parser.parse()
    if let problem = builder.problem {
      throw ImportError.notPropertyList(
        source: source, line: problem.line, column: problem.column, problem: problem.message)
    }
    guard finished, let root = builder.root else {
      let code = (parser.parserError as NSError?)?.code
      throw ImportError.notPropertyList(
        source: source, line: parser.lineNumber, column: parser.columnNumber,
        problem: code.map(describeXMLError) ?? "it holds no value")
    }
    return root
  }

  /// Parses a binary property list.
  /// - Throws: `ImportError.notPropertyList`.
  static func readBinary(_ bytes: [UInt8], source: String) throws(ImportError) -> JSONValue {
    switch BinaryPropertyListDepth.check(bytes, limit: maximumDepth) {
    case .withinLimit:
      break
    case .tooDeep:
      throw ImportError.notPropertyList(
        source: source, line: nil, column: nil,
        problem: "expected at most \(maximumDepth) levels of nesting, found deeper arrays or "
          + "dictionaries in the binary property list")
    case .malformed(let problem):
      throw ImportError.notPropertyList(
        source: source, line: nil, column: nil,
        problem: "the binary property list cannot be read (\(problem))")
    case .holdsASet(let object):
      throw ImportError.notPropertyList(
        source: source, line: nil, column: nil,
        problem:
          "expected arrays, dictionaries, strings, numbers, booleans, dates and data, found a set (object \(object) of the binary property list)"
      )
    }
    let object: Any
    do {
      object = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
    } catch {
      throw ImportError.notPropertyList(
        source: source, line: nil, column: nil,
        problem: "the binary property list cannot be read (\(error.localizedDescription))")
    }
    return value(of: object)
  }

  /// A Foundation property list object as a `JSONValue`; dictionary keys sorted.
  private static func value(of object: Any) -> JSONValue {
    switch object {
    case let text as String:
      return .string(text)
    case let array as [Any]:
      return .array(array.map(value(of:)))
    case let dictionary as [String: Any]:
      let members = dictionary.keys.sorted().map {
        JSONObject.Member(key: $0, value: value(of: dictionary[$0] ?? ""))
      }
      return .object(JSONObject(members))
    case let date as Date:
      // `Timestamp` holds years 0000...9999; a binary list can hold any `Double` (found by the
      // import fuzz target: the conversion trapped). Others keep their seconds since 1970.
      guard let timestamp = Timestamp(exactly: date) else {
        return .string(String(date.timeIntervalSince1970))
      }
      return .string(timestamp.description)
    case let data as Data:
      return .string(data.base64EncodedString())
    default:
      let text = "\(object)"
      return Double(text) != nil ? .number(text) : .string(text)
    }
  }

  /// What an `XMLParser` error code means, for the common ones.
  static func describeXMLError(_ code: Int) -> String {
    switch code {
    case 4: "the document is empty"
    case 5: "the document ends too early (an element is not closed)"
    case 9: "a character that XML does not allow"
    case 38, 39, 40, 41: "a malformed attribute"
    case 64: "an element name is missing"
    case 73, 76: "a closing tag does not match its opening tag"
    case 85: "the elements are not properly nested"
    case 111: "the property list ends too early"
    default: "malformed XML (XMLParser error \(code))"
    }
  }

  /// An `XMLParser` delegate that builds the value tree.
  ///
  /// Not `Sendable`: it lives on the stack of `readXML` and `XMLParser` calls it synchronously.
  private final class Builder: NSObject, XMLParserDelegate {
    struct Problem {
      var line: Int
      var column: Int
      var message: String
    }

    private enum Container {
      case array([JSONValue])
      case dictionary([JSONObject.Member], pendingKey: String?)
    }

    private(set) var root: JSONValue?
    private(set) var problem: Problem?
    private var stack: [Container] = []
    private var text = ""
    private var sawRootElement = false

    private static let scalarElements: Set = [
      "key", "string", "integer", "real", "date", "data",
    ]

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      if !sawRootElement {
        sawRootElement = true
        guard elementName == "plist" else {
          fail(parser, "expected <plist> as the root element, found <\(elementName)>")
          return
        }
      }
      switch elementName {
      case "plist", "true", "false":
        break
      case "dict", "array":
        guard stack.count < PropertyListReader.maximumDepth else {
          fail(
            parser,
            "expected at most \(PropertyListReader.maximumDepth) levels of nesting, "
              + "found a deeper <\(elementName)>")
          return
        }
        stack.append(elementName == "dict" ? .dictionary([], pendingKey: nil) : .array([]))
      case _ where Self.scalarElements.contains(elementName):
        text = ""
      default:
        fail(parser, "expected a property list element, found <\(elementName)>")
      }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
      // Reported here, where the parser still stands at the problem: libxml2 recovers from some
      // errors and reads on, so its position at the end says nothing.
      fail(parser, PropertyListReader.describeXMLError((parseError as NSError).code))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
      text += String(decoding: block, as: UTF8.self)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      guard problem == nil else { return }
      switch elementName {
      case "plist":
        break
      case "dict":
        guard case .dictionary(let members, let pendingKey)? = stack.popLast() else { return }
        if let pendingKey {
          fail(parser, "the key '\(pendingKey)' has no value")
          return
        }
        add(.object(JSONObject(members)), parser)
      case "array":
        guard case .array(let elements)? = stack.popLast() else { return }
        add(.array(elements), parser)
      case "key":
        guard case .dictionary(let members, let pendingKey)? = stack.last else {
          fail(parser, "a <key> outside a <dict>")
          return
        }
        if let pendingKey {
          fail(parser, "the key '\(pendingKey)' has no value")
          return
        }
        stack[stack.count - 1] = .dictionary(members, pendingKey: text)
      case "string", "date", "data":
        add(.string(text), parser)
      case "integer", "real":
        let literal = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (try? JSONValue.parse(literal))?.doubleValue != nil else {
          fail(parser, "expected a number in <\(elementName)>, found '\(literal)'")
          return
        }
        add(.number(literal), parser)
      case "true":
        add(.bool(true), parser)
      case "false":
        add(.bool(false), parser)
      default:
        break
      }
    }

    private func add(_ value: JSONValue, _ parser: XMLParser) {
      guard let top = stack.popLast() else {
        if root == nil {
          root = value
        } else {
          fail(parser, "a second value after the property list's root")
        }
        return
      }
      switch top {
      case .array(var elements):
        elements.append(value)
        stack.append(.array(elements))
      case .dictionary(var members, let pendingKey):
        guard let pendingKey else {
          stack.append(top)
          fail(parser, "a value without a <key> in a <dict>")
          return
        }
        members.append(JSONObject.Member(key: pendingKey, value: value))
        stack.append(.dictionary(members, pendingKey: nil))
      }
    }

    private func fail(_ parser: XMLParser, _ message: String) {
      guard problem == nil else { return }
      problem = Problem(line: parser.lineNumber, column: parser.columnNumber, message: message)
      parser.abortParsing()
    }
  }
}
