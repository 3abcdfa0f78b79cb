import Events
import Foundation
import Testing

@testable import Engine

/// Whether `body` throws `EngineError.notALog`.
private func throwsNotALog(_ body: () throws -> Void) -> Bool {
  do {
    try body()
    return false
  } catch EngineError.notALog {
    return true
  } catch {
    return false
  }
}

/// The line starting at `start` of `bytes`, without its newline.
private func quarantinedFiles(_ log: String) -> [String] {
  Quarantine.entries(forLog: log).map(\.path)
}

@Suite struct NotALogTests {
  static let foreignContents: [String] = [
    "{\"important\":1}\n",
    "\u{01}\u{02}binary\u{00}\u{FF}garbage\nmore\n",
    "Dear diary,\ntoday I wrote a log.\n",
    "{\"a\":[1,2,3],\"b\":{\"c\":true}}",
    "[{\"seq\":1}]\n",
  ]

  @Test(arguments: foreignContents)
  func aWriterRefusesAFileWhoseFirstLineIsNotALogLineAndLeavesItUntouched(_ content: String)
    throws
  {
    try withTemporaryDirectory { directory in
      let path = directory + "/c.json"
      try writeBytes(Array(content.utf8), to: path)
      #expect(throwsNotALog { _ = try EventLog(path: path, configuration: testConfiguration()) })
      #expect(try fileBytes(path) == Array(content.utf8))
      #expect(quarantinedFiles(path).isEmpty)
      #expect(throwsNotALog { _ = try LogRepair(path: path).apply() })
      #expect(try fileBytes(path) == Array(content.utf8))
    }
  }

  @Test(arguments: ["/dev/zero", "/dev/null", "/dev/full", "/proc/self/status"])
  func readersAndWritersRefuseWhatIsNotARegularFile(_ path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { return }
    #expect(throwsNotALog { _ = try EventLog(path: path, configuration: testConfiguration()) })
    #expect(throwsNotALog { try LogReader(path: path).forEachEvent { _ in true } })
    #expect(throwsNotALog { _ = try LogVerifier(path: path).verify() })
  }

  @Test func aFIFOIsRefusedAtOnceInsteadOfHanging() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/fifo"
      #expect(mkfifo(path, 0o644) == 0)
      #expect(throwsNotALog { _ = try EventLog(path: path, configuration: testConfiguration()) })
      #expect(throwsNotALog { try LogReader(path: path).forEachEvent { _ in true } })
    }
  }

  @Test func aDirectoryIsRefused() throws {
    try withTemporaryDirectory { directory in
      #expect(
        throwsNotALog { _ = try EventLog(path: directory, configuration: testConfiguration()) })
      #expect(throwsNotALog { try LogReader(path: directory).forEachEvent { _ in true } })
    }
  }

  @Test func aMissingPathIsCreatedByAWriter() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/new.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("TextNoted", #"{"n":1}"#)], to: "note-1")
      #expect(try readAll(path).count == 1)
    }
  }

  @Test func aFileHoldingOnlyATornFirstLineIsALogWhoseTailIsQuarantined() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let torn = Array(#"{"seq":1,"id":"11110000-0000-4000-8000-0000"#.utf8)
      try writeBytes(torn, to: path)
      let log = try EventLog(path: path, configuration: testConfiguration())
      #expect(log.lastSequence == 0)
      #expect(try fileBytes(path).isEmpty)
      let saved = try #require(quarantinedFiles(path).first)
      #expect(try fileBytes(saved) == torn)
    }
  }
}

@Suite struct QuarantineTests {
  @Test func tornBytesAreCopiedToQuarantineBeforeTheCutAndTheReportNamesTheFile() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let original = try fileBytes(path)
      let lastStart = lineStarts(original)[5]
      try writeBytes(Array(original[..<(lastStart + 40)]), to: path)
      let reports = ReportCollector()
      let log = try EventLog(path: path, configuration: testConfiguration(reports: reports))
      #expect(log.lastSequence == 5)
      let saved = try #require(quarantinedFiles(path).first)
      #expect(try fileBytes(saved) == Array(original[lastStart..<(lastStart + 40)]))
      #expect(saved.hasSuffix("-after-seq5-byte\(lastStart).jsonl"))
      #expect(reports.messages.count == 1)
      #expect(reports.messages.first?.contains("the bytes are in '\(saved)'") == true)
      #expect(try fileBytes(path) + fileBytes(saved) == Array(original[..<(lastStart + 40)]))
    }
  }

  @Test func mergingTheLastTwoLinesStopsTheWriterAndCutsNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      bytes.remove(at: lineStarts(bytes)[5] - 1)
      try writeBytes(bytes, to: path)
      #expect(throws: EngineError.self) {
        _ = try EventLog(path: path, configuration: testConfiguration())
      }
      #expect(throws: EngineError.self) { _ = try readAll(path) }
      #expect(try fileBytes(path) == bytes)
      #expect(quarantinedFiles(path).isEmpty)
    }
  }

  @Test func oneChangedByteInTheLastLineOfALargeWriteCutsNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("TextNoted", #"{"n":0}"#)], to: "note-0")
      try log.append((1...10_000).map { proposed("TextNoted", #"{"n":\#($0)}"#) }, to: "note-1")
      var bytes = try fileBytes(path)
      bytes[bytes.count - 40] ^= 0x01
      try writeBytes(bytes, to: path)
      #expect(throws: EngineError.self) {
        _ = try EventLog(path: path, configuration: testConfiguration())
      }
      #expect(try fileBytes(path) == bytes)
      #expect(quarantinedFiles(path).isEmpty)
    }
  }

  @Test func aCompleteLastLineWithABadChecksumIsNotCutAndItsSeqIsNotReused() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      // A digit of the stored checksum: the line is whole, only its check fails.
      bytes[bytes.count - 4] = bytes[bytes.count - 4] == 0x30 ? 0x31 : 0x30
      try writeBytes(bytes, to: path)
      #expect {
        let log = try EventLog(path: path, configuration: testConfiguration())
        try log.append([proposed("TextNoted", #"{"n":7}"#)], to: "note-9")
      } throws: { error in
        guard case EngineError.corruptLine(_, let line, _, let problem) = error else {
          return false
        }
        return line == 6 && problem.contains("replay repair")
      }
      #expect(try fileBytes(path) == bytes)
    }
  }

  @Test func aLastLineHoldingNULBytesIsATornWriteThatReadersSkipAndWritersQuarantine() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let events = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      let lastStart = lineStarts(bytes)[5]
      for index in (lastStart + 20)..<(lastStart + 60) { bytes[index] = 0 }
      try writeBytes(bytes, to: path)
      let warnings = ReportCollector()
      var read: [RecordedEvent] = []
      try LogReader(path: path, warn: { warnings.add($0) }).forEachEvent { line in
        read.append(line.recordedEvent())
        return true
      }
      #expect(read == Array(events.dropLast()))
      #expect(warnings.messages.first?.contains("ignoring the damaged last line") == true)
      let log = try EventLog(path: path, configuration: testConfiguration())
      #expect(log.lastSequence == 5)
      let saved = try #require(quarantinedFiles(path).first)
      #expect(try fileBytes(saved) == Array(bytes[lastStart...]))
    }
  }
}

@Suite struct LogRepairTests {
  /// Damage the writer refuses, each as a change to the sample log's bytes.
  enum Damage: String, CaseIterable, Sendable {
    case mergedLastTwoLines, newlineInsertedIntoLastLine, lastLineDuplicated, lastLineChecksum

    func apply(to bytes: inout [UInt8]) {
      let starts = lineStarts(bytes)
      switch self {
      case .mergedLastTwoLines: bytes.remove(at: starts[5] - 1)
      case .newlineInsertedIntoLastLine: bytes.insert(0x0A, at: starts[5] + 30)
      case .lastLineDuplicated: bytes += Array(bytes[starts[5]...])
      case .lastLineChecksum: bytes[bytes.count - 4] = bytes[bytes.count - 4] == 0x30 ? 0x31 : 0x30
      }
    }
  }

  @Test(arguments: Damage.allCases)
  func repairShowsItsCutThenMakesItIntoQuarantineAndTheLogIsWritableAgain(_ damage: Damage)
    throws
  {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      var bytes = try fileBytes(path)
      damage.apply(to: &bytes)
      try writeBytes(bytes, to: path)
      #expect(throws: EngineError.self) {
        _ = try EventLog(path: path, configuration: testConfiguration())
      }
      let repair = LogRepair(path: path)
      let cut = try #require(try repair.examine())
      // Examining changes nothing.
      #expect(try fileBytes(path) == bytes)
      #expect(cut.range.upperBound == Int64(bytes.count))
      let (made, quarantine) = try #require(try repair.apply())
      #expect(made == cut)
      // Every byte survives: the log up to the cut plus the quarantine file are the damaged
      // file (after the cut, the log holds only the rewritten start of a damaged write).
      #expect(
        try Array(fileBytes(path).prefix(Int(cut.range.lowerBound))) + fileBytes(quarantine)
          == bytes)
      #expect(
        try fileBytes(path).count == Int(cut.range.lowerBound) + (cut.rewrite?.lines.count ?? 0))
      let log = try EventLog(path: path, configuration: testConfiguration())
      #expect(log.lastSequence == cut.keptSequence)
      #expect(try repair.examine() == nil)
    }
  }

  @Test func repairOfAWholeLogFindsNothingToCut() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      #expect(try LogRepair(path: path).examine() == nil)
      #expect(try LogRepair(path: path).apply() == nil)
    }
  }
}

@Suite struct EventTimeTests {
  @Test func aChosenClockEarlierThanTheLastEventIsAnErrorNamingBothTimes() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let before = try fileBytes(path)
      var configuration = testConfiguration(start: 1_700_000_000_000)
      configuration.clockIsChosen = true
      let log = try EventLog(path: path, configuration: configuration)
      #expect {
        try log.append([proposed("TextNoted", #"{"n":1}"#)], to: "note-2")
      } throws: { error in
        guard case EngineError.invalidEvent(_, let problem) = error else { return false }
        return problem.contains("2023-11-14T22:13:20.000Z")
          && problem.contains("2026-09-21T14:13:20.000Z") && problem.contains("seq 6")
      }
      #expect(try fileBytes(path) == before)
    }
  }

  @Test func aSystemClockThatStepsBackStampsTheLastEventsTimeAndSaysSo() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      _ = try makeSampleLog(at: path)
      let reports = ReportCollector()
      let log = try EventLog(
        path: path, configuration: testConfiguration(reports: reports, start: 1_700_000_000_000))
      let outcome = try log.append([proposed("TextNoted", #"{"n":1}"#)], to: "note-2")
      #expect(outcome.first?.event.timestamp == Timestamp(millisecondsSince1970: 1_790_000_000_000))
      #expect(
        try readAll(path).last?.timestamp == Timestamp(millisecondsSince1970: 1_790_000_000_000))
      #expect(reports.messages.first?.contains("the system clock says 2023-11-14") == true)
    }
  }
}
