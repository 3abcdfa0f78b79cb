import Events
import Foundation
import Synchronization
import Testing

@testable import Engine
@testable import Generator

/// A test configuration whose clock moves on `step` milliseconds at every write.
func advancingConfiguration(step: Int64 = 1000) -> EventLog.Configuration {
  let now = Mutex<Int64>(1_790_000_000_000)
  var configuration = testConfiguration()
  configuration.clock = {
    Timestamp(
      millisecondsSince1970: now.withLock { value in
        value += step
        return value
      })
  }
  return configuration
}

/// The offset each line starts at and its event, by a full read: the oracle for bisection.
func linesByScan(_ path: String) throws -> [(offset: Int64, event: RecordedEvent)] {
  var lines: [(Int64, RecordedEvent)] = []
  try LogReader(path: path).forEachEvent { line in
    lines.append((line.offset, line.recordedEvent()))
    return true
  }
  return lines
}

/// A log of hand-made lines (seqs and times as given), for logs the writer would never make.
func writeRawLog(_ path: String, _ lines: [(sequence: Int64, millisecond: Int64)]) throws {
  var bytes: [UInt8] = []
  for line in lines {
    let data = Array(#"{"id":"\#(line.sequence)"}"#.utf8)
    data.withUnsafeBytes { payload in
      LogLineCodec.encode(
        sequence: line.sequence,
        id: EventID(
          high: 0x1111_0000_0000_4000, low: 0x8000_0000_0000_0000 | UInt64(line.sequence)),
        stream: "contact-\(line.sequence)", version: 1, type: "ContactFavorited", schemaVersion: 1,
        timestamp: Timestamp(millisecondsSince1970: line.millisecond), batch: nil,
        metadata: EventMetadata(), data: payload, into: &bytes)
    }
  }
  try writeBytes(bytes, to: path)
}

@Suite struct LogSeekTests {
  /// Every seq's following position and every time's last seq, by bisection, equal a scan's;
  /// each search on its own seek, as a command makes one.
  func expectBisectionMatchesScan(_ path: String, probeSize: Int = 4096) throws {
    let lines = try linesByScan(path)
    func seek<Result>(_ body: (inout LogSeek) throws -> Result) throws -> Result {
      try LogSeek.withLog(OpenLog.named(path)) { seek throws in
        seek.probeSize = probeSize
        return try body(&seek)
      }
    }
    let end = try seek { $0.end }
    for sequence in 0...Int64(lines.count) {
      let expected =
        sequence < lines.count
        ? LogReader.Position(offset: lines[Int(sequence)].offset, sequence: sequence + 1)
        : LogReader.Position(offset: end, sequence: sequence + 1)
      #expect(try seek { try $0.position(after: sequence) } == expected, "seq \(sequence)")
    }
    #expect(try seek { try $0.position(after: Int64(lines.count) + 1) } == nil)
    var instants = lines.map(\.event.timestamp.millisecondsSince1970)
    instants += instants.map { $0 - 1 } + instants.map { $0 + 1 }
    for millisecond in Set(instants) {
      let instant = Timestamp(millisecondsSince1970: millisecond)
      let expected = Int64(lines.filter { $0.event.timestamp <= instant }.count)
      #expect(try seek { try $0.lastSequence(atOrBefore: instant) } == expected, "\(instant)")
    }
  }

  @Test func bisectionFindsEverySeqAndTimeOfAGeneratedLog() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: advancingConfiguration())
      var generator = LogGenerator(seed: "seek")
      try log.appendGenerated(400, from: &generator, chunkSize: 7)
      try expectBisectionMatchesScan(path)
      // Probes smaller than a line cross every boundary.
      try expectBisectionMatchesScan(path, probeSize: 16)
    }
  }

  @Test func bisectionFindsTheOnlyLineOfALogOfOne() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try writeRawLog(path, [(1, 5000)])
      try expectBisectionMatchesScan(path)
    }
  }

  @Test func bisectionHandlesManyEqualTimestamps() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      // The test clock never moves: every event has the same time.
      let log = try EventLog(path: path, configuration: testConfiguration())
      var generator = LogGenerator(seed: "equal-times")
      try log.appendGenerated(300, from: &generator, chunkSize: 1)
      try expectBisectionMatchesScan(path)
      try writeRawLog(path, (1...200).map { ($0, 1000 + $0 / 50 * 50) })
      try expectBisectionMatchesScan(path)
    }
  }

  @Test func bisectionStopsBeforeATornTail() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try writeRawLog(path, (1...40).map { ($0, 1000 * $0) })
      let handle = try #require(FileHandle(forWritingAtPath: path))
      handle.seekToEndOfFile()
      handle.write(Data(#"{"seq":41,"id":"torn"#.utf8))
      try handle.close()
      try expectBisectionMatchesScan(path)
      try LogSeek.withLog(OpenLog.named(path)) { seek throws in
        #expect(seek.lastSequence == 40)
        #expect(try seek.lastSequence(atOrBefore: Timestamp(millisecondsSince1970: 99_999)) == 40)
      }
    }
  }

  @Test func seqsThatAreNotConsecutiveAreNotTrusted() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      try writeRawLog(path, [(1, 1000), (2, 2000), (3, 3000), (10, 4000), (11, 5000)])
      try LogSeek.withLog(OpenLog.named(path)) { seek throws in
        #expect(try seek.position(after: 3) == nil)
        #expect(try seek.position(after: 10) == nil)
      }
    }
  }

  @Test func timesThatGoBackwardsFallBackToAScanWithTheSameAnswer() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      // Written before the writer kept times in order: every event earlier than the last.
      try writeRawLog(path, (1...60).map { ($0, 100_000 - 1000 * $0) })
      let events = try readAll(path)
      try LogSeek.withLog(OpenLog.named(path)) { seek throws in
        #expect(try seek.lastSequence(atOrBefore: Timestamp(millisecondsSince1970: 70_000)) == nil)
      }
      let replayer = Replayer(reader: LogReader(path: path))
      for millisecond: Int64 in [0, 39_999, 40_000, 70_000, 99_000, 200_000] {
        let instant = Timestamp(millisecondsSince1970: millisecond)
        let result = try replayer.readModels(at: .instant(instant))
        #expect(result.models == (try referenceModels(events[...], upTo: instant)), "\(instant)")
        #expect(result.lastSequence == 60)
      }
    }
  }
}

@Suite struct LogReaderSeekTests {
  @Test func aReadFromTheBisectedPositionStartsAtTheNextSeq() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: advancingConfiguration())
      var generator = LogGenerator(seed: "reader-seek")
      try log.appendGenerated(300, from: &generator, chunkSize: 10)
      let reader = LogReader(path: path)
      let position = try #require(try reader.position(afterSequence: 123))
      var first: Int64?
      try reader.forEachEvent(from: position) { line in
        first = line.sequence
        return false
      }
      #expect(first == 124)
      let events = try readAll(path)
      #expect(try reader.lastSequence(atOrBefore: events[199].timestamp) == 200)
      #expect(try reader.position(afterSequence: 301) == nil)
    }
  }
}
