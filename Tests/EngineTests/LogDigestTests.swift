import Events
import Foundation
import Testing

@testable import Engine

@Suite struct LogDigestTests {
  @Test func theDigestCoversExactlyTheLinesThroughTheEvent() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let bytes = try fileBytes(path)
      let starts = lineStarts(bytes)
      for sequence in 1...6 {
        let digest = try LogDigest.compute(LogReader(path: path), through: Int64(sequence))
        let prefix = Array(bytes[..<starts[sequence]])
        #expect(digest.sha256 == SHA256.hash(prefix), "seq \(sequence)")
        #expect(digest.byteCount == Int64(prefix.count))
        #expect(digest.sequence == Int64(sequence))
      }
      let whole = try LogDigest.compute(LogReader(path: path))
      #expect(whole.sequence == 6)
      #expect(whole.sha256 == SHA256.hash(bytes))
    }
  }

  @Test func aDigestRoundTripsThroughItsTextForm() throws {
    let digest = LogDigest(sequence: 42, sha256: SHA256.hash(Array("abc".utf8)), byteCount: 3)
    #expect(
      digest.description == "42:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let parsed = try #require(LogDigest.parse(digest.description))
    #expect(parsed.sequence == 42 && parsed.sha256 == digest.sha256)
    for bad in [
      "42", "x:ba78", "42:ba78", "-1:" + String(repeating: "0", count: 64),
      "42:" + String(repeating: "g", count: 64),
    ] {
      #expect(LogDigest.parse(bad) == nil, "\(bad)")
    }
  }

  @Test func aLogShorterThanTheDigestIsAnError() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      #expect(
        throws: EngineError.invalidEvent(
          location: path, problem: "the log has 6 events, so it has no prefix through seq 7")
      ) {
        try LogDigest.compute(LogReader(path: path), through: 7)
      }
    }
  }

  @Test func verifyWithADigestCatchesARewrittenLineEvenWithAValidChecksum() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let digest = try LogDigest.compute(LogReader(path: path), through: 4)
      let expected = (sequence: digest.sequence, sha256: digest.sha256)
      #expect(try LogVerifier(path: path, expectedDigest: expected).verify().isValid)
      // Rewrite line 2 with a new payload and a correct checksum: only the digest can tell.
      var lines = String(decoding: try fileBytes(path), as: UTF8.self).components(separatedBy: "\n")
      let body = lines[1].dropLast(18).replacingOccurrences(of: "Zoë", with: "Zoe")
      lines[1] = body + String(format: ",\"crc\":\"%08x\"}", CRC32C.checksum(of: body))
      try writeBytes(Array(lines.joined(separator: "\n").utf8), to: path)
      let plain = try LogVerifier(path: path).verify()
      #expect(plain.isValid)
      let report = try LogVerifier(path: path, expectedDigest: expected).verify()
      #expect(!report.isValid)
      #expect(
        report.problems.first?.message.hasPrefix("lines 1...4 do not match the digest") == true)
      // A later line may change (or be appended) without breaking the digest of the prefix.
      let later = try LogDigest.compute(LogReader(path: path), through: 1)
      #expect(
        try LogVerifier(path: path, expectedDigest: (later.sequence, later.sha256)).verify().isValid
      )
    }
  }
}
