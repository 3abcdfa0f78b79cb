import Events
import Testing

@testable import Postgres

/// `CopyText.appendJSONString` does in one pass what JSON's escaping then COPY's does.
struct CopyTextTests {
  /// The two steps done apart: JSON's escaping, then COPY's.
  static func reference(_ utf8: [UInt8]) -> [UInt8] {
    var json: [UInt8] = []
    utf8.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &json) }
    var row: [UInt8] = []
    json.withUnsafeBytes { CopyText.append($0, to: &row) }
    return row
  }

  @Test func everyByteIsEscapedAsJSONThenCOPYWouldEscapeIt() {
    for byte in UInt8(0)...UInt8(0x7F) {
      let value: [UInt8] = [0x61, byte, byte, 0x62]
      var row: [UInt8] = [0x7C]
      value.withUnsafeBytes { CopyText.appendJSONString($0, to: &row) }
      #expect(row == [0x7C] + Self.reference(value), "byte \(byte)")
    }
  }

  @Test(arguments: [
    "", "plain", #"{"id":"1","name":"Ana \"Jo\"","path":"C:\\tmp"}"#, "tab\there\nand\r\u{1}",
    "台北市立動物園 \u{1F43C}", String(repeating: #"\""#, count: 300),
  ])
  func aStringIsEscapedAsJSONThenCOPYWouldEscapeIt(text: String) {
    var row: [UInt8] = []
    CopyText.appendJSONString(text, to: &row)
    #expect(row == [0x22] + Self.reference(Array(text.utf8)) + [0x22])
  }
}
