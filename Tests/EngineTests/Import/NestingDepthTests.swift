import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

/// Sources nested far deeper than any real one: every parser stops at its documented limit
/// (512 levels, `JSONCursor.maximumDepth` and `PropertyListReader.maximumDepth`) with an error
/// naming the limit, instead of overflowing the stack.
@Suite struct NestingDepthTests {
  static let hostileDepth = 100_000

  /// `depth` arrays, one inside the other, as JSON.
  static func nestedJSON(_ depth: Int, prefix: String = "", suffix: String = "") -> [UInt8] {
    Array(prefix.utf8) + [UInt8](repeating: 0x5B, count: depth)
      + [UInt8](repeating: 0x5D, count: depth) + Array(suffix.utf8)
  }

  /// `depth` arrays, one inside the other, as an XML property list.
  static func nestedXML(_ depth: Int) -> [UInt8] {
    Array(
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">"
        + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        + "</plist>\n").utf8)
  }

  /// `depth` arrays, one inside the other, as a binary property list: object `i` is an array
  /// holding object `i + 1`, and the last one is empty.
  static func nestedBinary(_ depth: Int, lastRefersTo last: Int? = nil) -> [UInt8] {
    let referenceSize = 4
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    func appendInteger(_ value: Int, size: Int) {
      for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: value >> shift))
      }
    }
    for index in 0..<depth {
      offsets.append(bytes.count)
      let child = index + 1 < depth ? index + 1 : last
      if let child {
        bytes.append(0xA1)
        appendInteger(child, size: referenceSize)
      } else {
        bytes.append(0xA0)
      }
    }
    let tableOffset = bytes.count
    for offset in offsets { appendInteger(offset, size: 4) }
    bytes += [UInt8](repeating: 0, count: 6) + [4, UInt8(referenceSize)]
    appendInteger(depth, size: 8)
    appendInteger(0, size: 8)
    appendInteger(tableOffset, size: 8)
    return bytes
  }

  /// The message of the error parsing `bytes` as `kind` throws, or `nil` if it parses.
  static func parseError(_ bytes: [UInt8], _ kind: ImportKind) -> String? {
    do {
      _ = try SourceParser.parse(bytes, kind: kind, sourceName: "deep")
      return nil
    } catch {
      return error.description
    }
  }

  @Test(arguments: ImportKind.allCases)
  func jsonNestedOneHundredThousandDeepIsRejectedAtTheLimit(kind: ImportKind) {
    let message = Self.parseError(Self.nestedJSON(Self.hostileDepth), kind)
    #expect(
      message
        == "'deep' is not valid JSON: line 1, column 513: expected at most 512 levels of nesting, "
        + "found '['")
  }

  @Test func geoJSONFeaturesNestedOneHundredThousandDeepAreRejectedAtTheLimit() {
    let prefix = #"{"type":"FeatureCollection","features":"#
    let bytes = Self.nestedJSON(Self.hostileDepth, prefix: prefix, suffix: "}")
    let message = Self.parseError(bytes, .locations)
    #expect(
      message
        == "'deep' is not valid JSON: line 1, column \(prefix.count + 512): expected at most 512 "
        + "levels of nesting, found '['")
  }

  @Test func xmlPropertyListNestedOneHundredThousandDeepIsRejectedAtTheLimit() throws {
    let message = try #require(Self.parseError(Self.nestedXML(Self.hostileDepth), .states))
    #expect(message.hasPrefix("'deep' is not a valid property list: line 2, column "))
    #expect(
      message.hasSuffix(
        "expected at most 512 levels of nesting, found a deeper <array>"))
  }

  @Test func xmlPropertyListAtTheLimitIsReadAndOneDeeperIsNot() throws {
    let atLimit = try PropertyListReader.readXML(Self.nestedXML(512), source: "deep")
    var depth = 0
    var value = atLimit
    while case .array(let elements) = value {
      depth += 1
      value = elements.first ?? .null
    }
    #expect(depth == 512)
    // (Not `#expect(throws:)`: without the limit it would print all 513 levels.)
    let deeper = try? PropertyListReader.readXML(Self.nestedXML(513), source: "deep")
    #expect(deeper == nil)
  }

  @Test func binaryPropertyListNestedOneHundredThousandDeepIsRejectedAtTheLimit() {
    let message = Self.parseError(Self.nestedBinary(Self.hostileDepth), .states)
    #expect(
      message
        == "'deep' is not a valid property list: expected at most 512 levels of nesting, found "
        + "deeper arrays or dictionaries in the binary property list")
  }

  @Test func binaryPropertyListAtTheLimitIsReadAndOneDeeperIsNot() throws {
    let atLimit = try PropertyListReader.readBinary(Self.nestedBinary(512), source: "deep")
    #expect(atLimit.arrayValue?.count == 1)
    #expect(BinaryPropertyListDepth.check(Self.nestedBinary(512), limit: 512) == .withinLimit)
    #expect(BinaryPropertyListDepth.check(Self.nestedBinary(513), limit: 512) == .tooDeep)
  }

  @Test func binaryPropertyListThatHoldsItselfIsTooDeep() {
    #expect(
      BinaryPropertyListDepth.check(Self.nestedBinary(3, lastRefersTo: 0), limit: 512) == .tooDeep)
  }

  @Test func sharedObjectsAreMeasuredThroughEveryPath() throws {
    // A dictionary whose two values are one 300-deep chain: within 512; two such levels are not.
    let list: [String: Any] = ["a": Self.nestedArray(300), "b": Self.nestedArray(300)]
    let data = try PropertyListSerialization.data(
      fromPropertyList: list, format: .binary, options: 0)
    #expect(BinaryPropertyListDepth.check(Array(data), limit: 512) == .withinLimit)
    #expect(BinaryPropertyListDepth.check(Array(data), limit: 300) == .tooDeep)
    #expect(BinaryPropertyListDepth.check(Array(data), limit: 301) == .withinLimit)
  }

  @Test func foundationsBinaryPropertyListsAreReadAsBefore() throws {
    let list: [String: Any] = ["States": [["Name": "Ohio", "ZipCodes": ["43001", "43002"]]]]
    let data = try PropertyListSerialization.data(
      fromPropertyList: list, format: .binary, options: 0)
    #expect(BinaryPropertyListDepth.check(Array(data), limit: 512) == .withinLimit)
    let parsed = try SourceParser.parse(Array(data), kind: .states, sourceName: "s.plist")
    #expect(parsed.stateRecords.map(\.zipCodes) == [["43001", "43002"]])
  }

  @Test func truncatedBinaryPropertyListsAreMalformedNotCrashes() {
    let whole = Self.nestedBinary(4)
    for length in 0..<whole.count {
      let outcome = BinaryPropertyListDepth.check(Array(whole.prefix(length)), limit: 512)
      #expect(outcome != .withinLimit, "prefix of \(length) bytes")
    }
  }

  /// `depth` Foundation arrays, one inside the other.
  static func nestedArray(_ depth: Int) -> Any {
    var value: Any = [Any]()
    for _ in 1..<depth { value = [value] }
    return value
  }
}
