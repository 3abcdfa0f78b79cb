import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

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
    let message = Self.error(Self.plist(encoding: encoding, body: [0x80, 0xFF, 0xFE]))
    #expect(
      message
        == "'s.plist' is not a valid property list: line 1, column 31: expected the encoding UTF-8 "
        + "in the XML declaration, found '\(encoding)'; convert the file (iconv -f \(encoding) -t "
        + "UTF-8) and declare encoding=\"UTF-8\"")
  }

  @Test(arguments: ["UTF-8", "utf-8", "utf8"])
  func utf8IsRead(encoding: String) throws {
    let body = Array("<dict><key>Ohio</key><array><string>43001</string></array></dict>".utf8)
    let parsed = try SourceParser.parse(
      Self.plist(encoding: encoding, body: body), kind: .states, sourceName: "s.plist")
    #expect(parsed.stateRecords.map(\.zipCodes) == [["43001"]])
  }

  /// libxml2 guesses UTF-16 from `<\0?\0` and crashed on a lone surrogate; NUL bytes and
  /// anything else that is not UTF-8 are refused at the first such byte.
  @Test func undeclaredUTF16AndBytesThatAreNotUTF8AreRefusedWhereTheyAre() throws {
    let utf16: [UInt8] = [0x3C, 0, 0x3F, 0, 0x78, 0, 0x6D, 0, 0x6C, 0, 0, 0xD8, 0, 0xD8]
    #expect(
      Self.error(utf16)
        == "'s.plist' is not a valid property list: line 1, column 2: expected UTF-8 text, found "
        + "a NUL byte")
    let latin1 = Array("<plist>\n<array><string>Zoë".utf8.dropLast(2)) + [0xEB]
    #expect(
      Self.error(latin1 + Array("</string></array></plist>".utf8))
        == "'s.plist' is not a valid property list: line 2, column 18: expected UTF-8 text, found "
        + "a byte sequence that is not UTF-8")
    #expect(XMLEncodingDeclaration.firstNonUTF8Offset(Array("<a>é😀</a>".utf8)) == nil)
    #expect(XMLEncodingDeclaration.firstNonUTF8Offset([0x3C, 0xC0, 0x80]) == 1)
    #expect(XMLEncodingDeclaration.firstNonUTF8Offset([0x3C, 0xED, 0xA0, 0x80]) == 1)
  }

  static func error(_ bytes: [UInt8]) -> String? {
    do {
      _ = try SourceParser.parse(bytes, kind: .states, sourceName: "s.plist")
      return nil
    } catch {
      return error.description
    }
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
