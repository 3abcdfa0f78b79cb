import Events
import Foundation
import Testing

@testable import Engine

/// XML property lists in encodings libxml2 converts through iconv: a byte that does not convert
/// crashed the importer (SIGSEGV in libxml2), found by the `import` fuzz target.
@Suite struct XMLEncodingDeclarationTests {
  static func plist(encoding: String, body: [UInt8]) -> [UInt8] {
    Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\n<plist>".utf8) + body
      + Array("</plist>\n".utf8)
  }

  /// The fuzzer's input, shrunk: UTF-7 and a byte that is not UTF-7.
  @Test(arguments: ["UTF-7", "SHIFT_JIS", "EUC-JP", "GB18030", "BIG5", "UCS-4", "ISO-2022-JP"])
  func anEncodingThatNeedsIconvIsRefusedBeforeXMLParserSeesIt(encoding: String) throws {
    let bytes = Self.plist(encoding: encoding, body: [0x80, 0xFF, 0xFE])
    var message: String?
    do {
      _ = try SourceParser.parse(bytes, kind: .states, sourceName: "s.plist")
    } catch {
      message = error.description
    }
    #expect(
      message
        == "'s.plist' is not a valid property list: line 1, column 31: expected the encoding UTF-8 "
        + "(or US-ASCII, ISO-8859-1) in the XML declaration, found '\(encoding)'; convert the file "
        + "to UTF-8 (iconv -f \(encoding) -t UTF-8) and declare encoding=\"UTF-8\"")
  }

  @Test(arguments: ["UTF-8", "utf-8", "US-ASCII", "ISO-8859-1"])
  func theEncodingsLibxml2ReadsItselfAreRead(encoding: String) throws {
    let body = Array("<dict><key>Ohio</key><array><string>43001</string></array></dict>".utf8)
    let parsed = try SourceParser.parse(
      Self.plist(encoding: encoding, body: body), kind: .states, sourceName: "s.plist")
    #expect(parsed.stateRecords.map(\.zipCodes) == [["43001"]])
  }

  @Test func theDeclarationIsFoundWithSingleQuotesSpacesAndOnAnyLine() throws {
    let text = "\n  <?xml version='1.0'\n   encoding = 'UTF-7' ?><plist/>"
    let declared = try #require(XMLEncodingDeclaration(Array(text.utf8)))
    #expect(declared.name == "UTF-7")
    #expect(declared.line == 3)
    #expect(declared.column == 16)
    #expect(!declared.isReadable)
  }

  @Test(arguments: [
    "<plist/>", "<?xml version=\"1.0\"?><plist/>", "<?xml version=\"1.0\" encoding=", "<?xml",
    "<?xml encoding=\"UTF-7", "<?xml ?><plist encoding=\"UTF-7\"/>",
  ])
  func noDeclaredEncodingMeansNone(text: String) {
    #expect(XMLEncodingDeclaration(Array(text.utf8)) == nil)
  }
}
