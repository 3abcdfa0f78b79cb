import Events
import Foundation
import Testing

@testable import Engine

/// Lines the `line` fuzz target (Fuzz/Sources/FuzzLine) found the log's readers handle wrongly,
/// read through the public read path so that the tests outlive a rewrite of the decoder.
@Suite struct LogLineFuzzFindingsTests {
  /// `body` completed with its correct `,"crc":"…"}`: a line made by hand, not damaged.
  static func line(_ body: String) -> String {
    let crc = CRC32C.checksum(of: body)
    let hex = String(crc, radix: 16)
    return body + ",\"crc\":\"" + String(repeating: "0", count: 8 - hex.count) + hex + "\"}"
  }

  /// Reads a log holding `line` and returns the error the reader throws, or `nil`.
  static func readError(_ line: String) throws -> String? {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: path))
      do {
        try LogReader(path: path).forEachEvent { _ in true }
        return nil
      } catch {
        return "\(error)"
      }
    }
  }

  static let envelope =
    #"{"seq":1,"id":"6d154061-883d-8615-8f0e-75ece3f41e20","stream":"contact-9","version":1,"#
    + #""type":"ContactFavorited","schema":1,"at":"2026-11-07T12:00:00.000Z","#

  @Test func aWellFormedLineIsRead() throws {
    #expect(try Self.readError(Self.line(Self.envelope + #""data":{"id":"9"}"#)) == nil)
  }

  /// Found by the fuzzer: the old writer-layout path took everything from `"data":{` to the
  /// checksum as the payload without checking it, so a member after `data` (here one without a
  /// value) was swallowed into the payload and the line was read, though it is not JSON and
  /// FORMAT.md puts `crc` right after `data`. The one envelope decoder checks data's extent.
  @Test
  func aMemberAfterDataIsRejected() throws {
    let line = Self.line(Self.envelope + #""data":{"id":"9"},"b187ac7""#)
    let error = try #require(try Self.readError(line))
    #expect(error.contains("log.jsonl:1: unknown envelope member"))
  }

  @Test
  func aPayloadThatIsNotJSONIsRejected() throws {
    let line = Self.line(Self.envelope + #""data":{"id":"9",,}"#)
    #expect(try Self.readError(line) != nil)
  }
}
