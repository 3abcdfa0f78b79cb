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

@Suite struct LogVerifierSchemaTests {
  /// A payload of a newer schema than this engine decodes is not counted, on either path,
  /// even when the verifier was not told that type's newest version (and so lists nothing).
  @Test(arguments: [Int64.max, 0])
  func aPayloadOfANewerSchemaIsNotCounted(pipelineThreshold: Int64) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("ContactFavorited", #"{"id":"13"}"#)], to: "contact-13")
      try log.append(
        [
          ProposedEvent(
            type: "ContactFavorited", schemaVersion: 7, data: Array(#"{"id":"14"}"#.utf8))
        ], to: "contact-14")
      var verifier = LogVerifier(path: path, newestSchemaVersions: [:])
      verifier.pipelineThreshold = pipelineThreshold
      let report = try verifier.verify()
      #expect(report.problems.isEmpty)
      #expect(report.eventCount == 1)
    }
  }
}

@Suite struct LogVerifierConcurrentPayloadTests {
  /// Payloads checked on a thread of their own give the report a check on one thread gives:
  /// the same problems in the same order (a line's payload problem after its other ones,
  /// checkpoint problems at their lines), across several batches, and the same count.
  @Test func payloadsCheckedBesideTheLinesGiveTheSameReport() throws {
    try withTemporaryDirectory { directory in
      let path = try makeCheckpointedLog(in: directory, seed: "verifier-payloads")
      var lines = String(decoding: try fileBytes(path), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      // Rewritten with valid checksums: favourite toggles whose payload does not fit, one of
      // them also with a version gap (two problems on one line); one line with a bad checksum.
      var tampered: [Int] = []
      for from in [700, 4500, 8200, 11_000] {
        guard
          let index = lines.indices.dropFirst(from).first(where: {
            lines[$0].contains(#""type":"ContactFavorited""#)
          })
        else { continue }
        var body = String(lines[index].dropLast(18)).replacingOccurrences(
          of: #""data":{"id":"#, with: #""data":{"idx":"#)
        if from == 4500 {
          body = body.replacingOccurrences(of: #""version":"#, with: #""version":9"#)
        }
        lines[index] = body + String(format: ",\"crc\":\"%08x\"}", CRC32C.checksum(of: body))
        tampered.append(index + 1)
      }
      #expect(tampered.count == 4)
      var bytes = Array(lines.joined(separator: "\n").utf8)
      bytes[lineStarts(bytes)[6000] + 10] ^= 0x01
      try writeBytes(bytes, to: path)
      var verifier = LogVerifier(path: path)
      verifier.pipelineThreshold = .max
      let alone = try verifier.verify()
      verifier.pipelineThreshold = 0
      let beside = try verifier.verify()
      #expect(beside == alone)
      let payloadLines = beside.problems.filter { $0.message.hasPrefix("data does not fit") }
        .map(\.line)
      #expect(payloadLines == tampered)
      let both = beside.problems.filter { $0.line == tampered[1] }.map(\.message)
      #expect(both.count == 2)
      #expect(both.first?.contains("goes from version") == true)
      #expect(both.last?.hasPrefix("data does not fit") == true)
      #expect(beside.problems.contains { $0.line == 6001 && $0.message.hasPrefix("checksum") })
      #expect(beside.problems.contains { $0.message.contains("differ from these") })
      let numbered = beside.problems.map(\.line).filter { $0 > 0 }
      #expect(numbered == numbered.sorted())
      #expect(beside.eventCount < 12_000)
    }
  }
}

@Suite struct LogVerifierPrefixTests {
  /// The prefixes (an expected digest's, every checkpoint's) are hashed on another thread while
  /// the lines are checked: each checkpoint's problem must still be listed at its own line, in
  /// line order with the others, and a log of several hashing blocks must check whole.
  @Test func checkpointsAndTheDigestAreCheckedInLineOrderAcrossBlocks() throws {
    try withTemporaryDirectory { directory in
      let path = try makeCheckpointedLog(in: directory, seed: "verifier-prefixes")
      let expected = try LogDigest.compute(LogReader(path: path), through: 7000)
      var verifier = LogVerifier(path: path, expectedDigest: (7000, expected.sha256))
      let sound = try verifier.verify()
      #expect(sound.isValid, "\(sound.problems)")
      #expect(sound.checkpointsChecked == 12)
      #expect(sound.digest == expected)
      var bytes = try fileBytes(path)
      #expect(bytes.count > 3 * PrefixHasher.blockSize)
      // One byte of line 5500 changed: that line's checksum, then every checkpoint from seq
      // 6000 on, in line order, then the digest (listed after the lines).
      let starts = lineStarts(bytes)
      bytes[starts[5499] + 10] ^= 0x01
      // And line 9500, between two checkpoints' lines: listed between them.
      bytes[starts[9499] + 10] ^= 0x01
      try writeBytes(bytes, to: path)
      verifier = LogVerifier(path: path, expectedDigest: (7000, expected.sha256))
      let report = try verifier.verify()
      // (The stream of line 5500 then also shows a gap further on.)
      let lines = report.problems.map(\.line)
      #expect(lines.first == 5500)
      #expect(report.problems[0].message.hasPrefix("checksum mismatch"))
      #expect(lines.contains(9500))
      #expect(Array(lines.dropLast()) == lines.dropLast().sorted(), "\(lines)")
      #expect(
        report.problems.filter { $0.message.contains("differ from these") }.map(\.line)
          == (6...12).map { $0 * 1000 })
      #expect(lines.last == 0)
      #expect(report.problems.last?.message.contains("do not match the digest") == true)
      #expect(report.checkpointsChecked == 5)
    }
  }
}

/// A generated log of 12 000 events with a checkpoint every 1 000.
private func makeCheckpointedLog(in directory: String, seed: String) throws -> String {
  let path = try makeGeneratedLog(in: directory, count: 12_000, seed: seed)
  _ = try Replayer(reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path))
    .readModels(at: .end, saveEvery: 1000)
  return path
}
