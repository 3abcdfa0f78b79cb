import Events
import Foundation
import Testing

@testable import Engine

/// A small log whose lines hold the awkward text the reader must survive.
func makeSampleLog(at path: String) throws -> [RecordedEvent] {
  let log = try EventLog(path: path, configuration: testConfiguration())
  try log.append(
    [proposed("TextNoted", #"{"name":"大貓熊","text":"line one\r\nline two"}"#)], to: "note-1")
  try log.append(
    [
      ProposedEvent(
        type: "PersonNoted",
        data: Array(#"{"name":"Zoë 👩‍👩‍👧 \u0000 \"q\" \\","key":"\#u{FEFF}A_Name_Ch"}"#.utf8),
        metadata: EventMetadata(actor: "ana", reason: "import"))
    ],
    to: "person-7")
  try log.append(
    [
      proposed("CodeNoted", #"{"zip":"90001"}"#), proposed("CodeNoted", #"{"zip":"90002"}"#),
      proposed("CodeNoted", #"{"zip":"90003"}"#),
    ],
    to: "codes-California")
  try log.append(
    [proposed("PointNoted", #"{"latitude":-34.98520411042454,"longitude":149.98458041136354}"#)],
    to: "point-a")
  return try readAll(path)
}

/// Byte offsets where each line starts, plus the file's end.
func lineStarts(_ bytes: [UInt8]) -> [Int] {
  var starts = [0]
  for (index, byte) in bytes.enumerated() where byte == 0x0A { starts.append(index + 1) }
  return starts
}

@Suite struct LogReaderTests {
  @Test func everyReadSizeFromOneTo64BytesGivesTheSameEvents() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let whole = try makeSampleLog(at: path)
      #expect(whole.count == 6)
      for readSize in 1...64 {
        #expect(try readAll(path, readSize: readSize) == whole, "read size \(readSize)")
      }
    }
  }

  @Test func thePipelinedReaderGivesTheSameEventsForEveryChunkSize() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let whole = try makeSampleLog(at: path)
      for chunkSize in 1...64 {
        #expect(
          try readAll(path, readSize: chunkSize, pipelined: true) == whole,
          "chunk size \(chunkSize)")
      }
      #expect(try readAll(path, readSize: 1 << 20, pipelined: true) == whole)
    }
  }

  @Test func thePipelinedReaderReportsABadLineAfterHandingOutTheGoodOnes() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let whole = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      let starts = lineStarts(bytes)
      bytes[starts[3] + 5] ^= 0x01
      try writeBytes(bytes, to: path)
      for chunkSize in [7, 64, 1 << 20] {
        var reader = LogReader(path: path, readSize: chunkSize)
        reader.pipelineThreshold = 0
        var seen: [RecordedEvent] = []
        #expect {
          try reader.forEachEvent { line in
            seen.append(line.recordedEvent())
            return true
          }
        } throws: { error in
          guard case .corruptLine(_, let line, let offset, _) = error as? EngineError else {
            return false
          }
          return line == 4 && offset == Int64(starts[3])
        }
        #expect(seen == Array(whole.prefix(3)), "chunk size \(chunkSize)")
      }
    }
  }

  @Test func thePipelinedReaderStopsWhenTheBodySaysSo() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var reader = LogReader(path: path, readSize: 16)
      reader.pipelineThreshold = 0
      var count = 0
      let summary = try reader.forEachEvent { _ in
        count += 1
        return count < 2
      }
      #expect(count == 2)
      #expect(summary.stoppedEarly)
      #expect(summary.lastSequence == 2)
    }
  }

  @Test func eventsRoundTripThroughTheFile() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let events = try makeSampleLog(at: path)
      #expect(events[0].dataText == #"{"name":"大貓熊","text":"line one\r\nline two"}"#)
      #expect(events[1].metadata == EventMetadata(actor: "ana", reason: "import"))
      #expect(events[1].dataText.contains("\u{FEFF}A_Name_Ch"))
      #expect(events[2].batch == 3...5)
      #expect(events[5].stream == "point-a")
    }
  }

  @Test func corruptingAnyByteOfAMiddleLineIsReportedWithItsLineNumber() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let original = try fileBytes(path)
      let starts = lineStarts(original)
      // Line 2 (the contact) is in the middle.
      for offset in starts[1]..<starts[2] {
        var bytes = original
        bytes[offset] ^= 0x20
        if bytes[offset] == original[offset] { continue }
        try writeBytes(bytes, to: path)
        do {
          _ = try readAll(path)
          Issue.record("a change at byte \(offset) went unnoticed")
        } catch let error as EngineError {
          guard case .corruptLine(_, let line, _, _) = error else {
            Issue.record("unexpected \(error)")
            continue
          }
          // A changed newline merges line 2 into line 3 (or splits it): still line 2 or 3.
          #expect(
            line == 2 || (offset == starts[2] - 1 && line == 2), "byte \(offset): line \(line)")
        }
      }
    }
  }

  @Test func aDamagedCompleteLastLineIsAnErrorForReaders() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      bytes[bytes.count - 30] ^= 0x01
      try writeBytes(bytes, to: path)
      #expect {
        _ = try readAll(path)
      } throws: { error in
        guard case EngineError.corruptLine(_, let line, _, _) = error else { return false }
        return line == 6
      }
    }
  }
}

@Suite struct RecoveryTests {
  @Test func truncatingTheLastLineAtEveryOffsetReopensWithTheEarlierEvents() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let events = try makeSampleLog(at: path)
      let original = try fileBytes(path)
      let starts = lineStarts(original)
      let lastStart = starts[starts.count - 2]
      for cut in lastStart..<(original.count) {
        try writeBytes(Array(original[..<cut]), to: path)
        // Readers see the earlier events without any recovery.
        #expect(try readAll(path) == Array(events.dropLast()), "cut at \(cut)")
        let reports = ReportCollector()
        let log = try EventLog(path: path, configuration: testConfiguration(reports: reports))
        #expect(log.lastSequence == 5)
        #expect(try fileBytes(path) == Array(original[..<lastStart]), "cut at \(cut)")
        if cut > lastStart {
          #expect(reports.messages.count == 1)
          #expect(
            reports.messages.first?.contains(
              "\(cut - lastStart) bytes from byte \(lastStart) after seq 5") == true,
            "\(reports.messages)")
        } else {
          #expect(reports.messages.isEmpty)
        }
      }
    }
  }

  @Test func anUnfinishedMultiEventWriteIsCutWhole() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let events = try makeSampleLog(at: path)
      let original = try fileBytes(path)
      let starts = lineStarts(original)
      // Lines 3...5 are one write; keep lines 1...4 whole (line 6 dropped too) and cut into line 5.
      let batchStart = starts[2]
      for cut in starts[3]..<starts[5] {
        try writeBytes(Array(original[..<cut]), to: path)
        #expect(try readAll(path) == Array(events.prefix(2)), "cut at \(cut)")
        let reports = ReportCollector()
        let log = try EventLog(path: path, configuration: testConfiguration(reports: reports))
        #expect(log.lastSequence == 2)
        #expect(try fileBytes(path) == Array(original[..<batchStart]), "cut at \(cut)")
        #expect(
          reports.messages.first?.contains("an unfinished write of events 3...5") == true,
          "\(reports.messages)")
      }
    }
  }

  @Test func aBadLineBeforeTheEndIsAnErrorAndIsNeverCut() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      let starts = lineStarts(bytes)
      bytes[starts[1] + 10] ^= 0x01
      try writeBytes(bytes, to: path)
      #expect {
        _ = try EventLog(path: path, configuration: testConfiguration())
      } throws: { error in
        guard case .corruptLine(_, let line, let offset, let problem) = error as? EngineError else {
          return false
        }
        return line == 2 && offset == Int64(starts[1]) && problem.hasPrefix("checksum mismatch")
      }
      #expect(try fileBytes(path) == bytes)
    }
  }

  @Test func appendingAfterRecoveryContinuesTheSequence() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      bytes.removeLast(7)
      try writeBytes(bytes, to: path)
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [proposed("PointNoted", #"{"latitude":1.0,"longitude":2.0}"#)], to: "point-a")
      let events = try readAll(path)
      #expect(events.map(\.sequence) == [1, 2, 3, 4, 5, 6])
      #expect(events.last?.version == 1)
    }
  }
}

@Suite struct ReadingThroughTests {
  @Test(arguments: [false, true])
  func readingThroughASeqDeliversExactlyThePrefix(pipelined: Bool) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let whole = try makeSampleLog(at: path)
      for last in 1...Int64(whole.count + 1) {
        var reader = LogReader(path: path, readSize: 16)
        if pipelined { reader.pipelineThreshold = 0 }
        var seen: [RecordedEvent] = []
        let summary = try reader.forEachEvent(through: last) { line in
          seen.append(line.recordedEvent())
          return true
        }
        let expected = Array(whole.prefix(Int(last)))
        #expect(seen == expected, "through \(last)")
        #expect(summary.lastSequence == Int64(expected.count))
        #expect(!summary.stoppedEarly)
      }
    }
  }
}
