import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

/// Dates in binary property lists: any `Double` of seconds, while `Timestamp` holds years
/// 0000...9999. A date out of that range trapped (found by the `import` fuzz target).
@Suite struct PropertyListDateTests {
  static func binaryList(_ date: Date) throws -> [UInt8] {
    let list: [String: Any] = ["Ohio": [date]]
    return Array(
      try PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0))
  }

  @Test(arguments: [1e300, -1e300, 1e15, -1e15, Double.infinity])
  func aDateOutsideTheYears0000To9999IsTextNotATrap(seconds: Double) throws {
    let date = Date(timeIntervalSince1970: seconds)
    let value = try PropertyListReader.readBinary(Self.binaryList(date), source: "s.plist")
    #expect(value == .object(JSONObject(["Ohio": .array([.string(String(seconds))])])))
  }

  @Test func aDateInRangeIsTheLogsTextForm() throws {
    let date = Date(timeIntervalSince1970: 1_497_463_200)
    let value = try PropertyListReader.readBinary(Self.binaryList(date), source: "s.plist")
    #expect(value["Ohio"] == .array([.string("2017-06-14T18:00:00.000Z")]))
  }
}
