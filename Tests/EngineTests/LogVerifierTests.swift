import Events
import Foundation
import Testing

@testable import Engine

@Suite struct LogVerifierTests {
  @Test func aSoundLogPassesWithASummary() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let report = try LogVerifier(path: path).verify()
      #expect(report.isValid)
      #expect(report.eventCount == 6)
      #expect(report.streamCount == 4)
      #expect(report.lastSequence == 6)
      #expect(report.byteCount == Int64(try fileBytes(path).count))
      #expect(report.uncommittedTail == nil)
    }
  }

  @Test func flippingAnyByteOfAMiddleLineIsReportedOnThatLine() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let original = try fileBytes(path)
      let starts = lineStarts(original)
      for offset in starts[3]..<(starts[4] - 1) {
        var bytes = original
        bytes[offset] = bytes[offset] == 0x41 ? 0x42 : 0x41
        try writeBytes(bytes, to: path)
        let report = try LogVerifier(path: path).verify()
        #expect(!report.isValid, "byte \(offset)")
        #expect(report.problems.first?.line == 4, "byte \(offset): \(report.problems)")
        #expect(try fileBytes(path) == bytes, "verify must never repair")
      }
    }
  }

  @Test func everyProblemIsListedNotJustTheFirst() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      let starts = lineStarts(bytes)
      bytes[starts[0] + 3] ^= 0x01
      bytes[starts[4] + 3] ^= 0x01
      try writeBytes(bytes, to: path)
      let report = try LogVerifier(path: path).verify()
      #expect(report.problems.map(\.line) == [1, 5])
      #expect(report.problems.allSatisfy { $0.message.hasPrefix("checksum mismatch") })
    }
  }

  @Test func aTornTailIsNotedButNotAProblem() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      bytes.removeLast(10)
      try writeBytes(bytes, to: path)
      let report = try LogVerifier(path: path).verify()
      #expect(report.isValid)
      #expect(report.eventCount == 5)
      #expect(report.uncommittedTail?.contains("an incomplete line of") == true)
    }
  }
}

@Suite struct LogVerifierPayloadTests {
  @Test func aKnownTypeWhosePayloadDoesNotFitIsAProblem() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("ContactFavorited", #"{"id":"13"}"#)], to: "contact-13")
      try log.append([proposed("ContactFavorited", #"{"name":"13"}"#)], to: "contact-14")
      try log.append([proposed("SomethingElse", #"{"any":"thing"}"#)], to: "other-1")
      let report = try LogVerifier(path: path).verify()
      #expect(report.problems.map(\.line) == [2])
      #expect(
        report.problems.first?.message.hasPrefix("data does not fit 'ContactFavorited': ") == true)
      #expect(report.eventCount == 2)
    }
  }
}
