import Events
import Foundation
import ReplayTestSupport
import Testing

@testable import Engine

/// Recovery never runs into acknowledged data (issue 35): a last write torn as a power loss
/// tears it — cut short, zeros inside its lines, zeros swallowing its line breaks, its first
/// lines lost while later ones landed — is found from its own lines and cut whole, every event
/// of the earlier writes is still served, and the next append goes on. Zeros in an earlier
/// write are corruption: refused, nothing cut.
@Suite struct TornWriteRecoveryTests {
  /// A log of writes of one event and of several; returns its bytes, the events, and where the
  /// last write starts.
  static func makeLog(at path: String, lastWriteSize: Int) throws -> (
    bytes: [UInt8], events: [RecordedEvent], lastWriteStart: Int
  ) {
    let log = try EventLog(path: path, configuration: testConfiguration())
    try log.append([proposed("NoteAdded", #"{"n":1}"#)], to: "note-1")
    try log.append(
      (2...6).map { proposed("NoteAdded", #"{"n":\#($0),"text":"a longer line of text"}"#) },
      to: "note-2")
    try log.append([proposed("NoteAdded", #"{"n":7}"#)], to: "note-3")
    let before = try fileBytes(path).count
    try log.append(
      (0..<lastWriteSize).map {
        proposed("NoteAdded", #"{"n":\#($0),"pad":"\#(String(repeating: "x", count: $0 % 40))"}"#)
      },
      to: "note-4")
    return (try fileBytes(path), try readAll(path), before)
  }

  @Test func aTornFirstLineLostToZerosIsCutWholeAndTheWritesBeforeItAreKept() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let (bytes, events, start) = try Self.makeLog(at: path, lastWriteSize: 12)
      let starts = lineStarts(bytes)
      // Zeros from the write's first byte into its fourth line: three line breaks gone.
      let lineIndex = starts.firstIndex(of: start) ?? 0
      var torn = bytes
      for index in start..<(starts[lineIndex + 3] + 10) { torn[index] = 0 }
      try Data(torn).write(to: URL(fileURLWithPath: path))
      #expect(try readAll(path) == Array(events.prefix(7)))
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append([proposed("NoteAdded", #"{"n":99}"#)], to: "note-5")
      let after = try readAll(path)
      #expect(Array(after.prefix(7)) == Array(events.prefix(7)))
      #expect(after.count == 8)
    }
  }

  /// Every zero range inside the last write (seeded), every cut of it, and both together: the
  /// reader serves exactly the earlier writes' events, and the next append keeps them.
  @Test func everyTearOfTheLastWriteLeavesTheEarlierWritesWhole() throws {
    let seed = UInt64(ProcessInfo.processInfo.environment["REPLAY_TEST_SEED"] ?? "") ?? 3535
    print("TornWriteRecoveryTests: seed \(seed) (rerun with REPLAY_TEST_SEED=\(seed))")
    var random = SplitMix(seed)
    let trials = ProcessInfo.processInfo.environment["EVENTS_SLOW_TESTS"] == nil ? 300 : 3_000
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let (bytes, events, start) = try Self.makeLog(at: path, lastWriteSize: 30)
      let acknowledged = Array(events.prefix(7))
      for trial in 0..<trials {
        var torn = bytes
        // A cut (the write's end never landed), or none.
        let cut =
          random.next() % 3 == 0
          ? start + Int(random.next() % UInt64(bytes.count - start)) : bytes.count
        torn.removeSubrange(cut...)
        // Zero ranges inside what is left of the write.
        for _ in 0..<Int(random.next() % 3) where torn.count > start {
          let from = start + Int(random.next() % UInt64(torn.count - start))
          let length = 1 + Int(random.next() % 900)
          for index in from..<min(torn.count, from + length) { torn[index] = 0 }
        }
        guard torn != bytes else { continue }
        try Data(torn).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + ".index")
        try? FileManager.default.removeItem(atPath: path + ".quarantine")
        let served = try readAll(path)
        // A tear that left the whole write (only zeros after it, say) serves it all; any other
        // serves exactly the writes before it.
        #expect(
          served == acknowledged || served == events, "trial \(trial): \(served.count) served")
        let log = try EventLog(path: path, configuration: testConfiguration())
        try log.append([proposed("NoteAdded", #"{"n":99}"#)], to: "note-5")
        let after = try readAll(path)
        #expect(Array(after.prefix(7)) == acknowledged, "trial \(trial)")
        #expect(after.count == served.count + 1, "trial \(trial)")
      }
    }
  }

  @Test func zerosInAnEarlierWriteAreRefusedAndNothingIsCut() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let (bytes, _, start) = try Self.makeLog(at: path, lastWriteSize: 5)
      let starts = lineStarts(bytes)
      // Zeros across the line break between seq 3 and 4 (the second write, acknowledged).
      var damaged = bytes
      for index in (starts[3] - 20)..<(starts[3] + 20) { damaged[index] = 0 }
      #expect(starts[3] < start)
      try Data(damaged).write(to: URL(fileURLWithPath: path))
      #expect(throws: EngineError.self) { try readAll(path) }
      #expect(throws: EngineError.self) {
        let log = try EventLog(path: path, configuration: testConfiguration())
        try log.append([proposed("NoteAdded", #"{"n":99}"#)], to: "note-5")
      }
      #expect(try fileBytes(path) == damaged, "a refused writer cut the log")
    }
  }

  @Test func aNewLogWhoseOnlyWriteIsTornHasAWayForward() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append((0..<8).map { proposed("NoteAdded", #"{"n":\#($0)}"#) }, to: "note-1")
      let bytes = try fileBytes(path)
      let starts = lineStarts(bytes)
      for torn in [
        Array(repeating: UInt8(0), count: bytes.count),
        Array(repeating: 0, count: starts[2] + 7) + bytes[(starts[2] + 7)...],
      ] {
        try Data(torn).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + ".index")
        #expect(try readAll(path).isEmpty)
        let next = try EventLog(path: path, configuration: testConfiguration())
        try next.append([proposed("NoteAdded", #"{"n":99}"#)], to: "note-5")
        #expect(try readAll(path).count == 1)
      }
    }
  }
}

/// SplitMix64, seeded: the sweep's random choices.
private struct SplitMix {
  var state: UInt64
  init(_ seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
