import Events
import Foundation
import Testing

@testable import Engine

@Suite struct LogStatisticsTests {
  /// Streams are told apart by their bytes, as the writer tells them apart: `café` written with
  /// a precomposed é and with e + U+0301 are two streams, though Swift's `String` calls them
  /// equal.
  @Test func streamsAreCountedByTheirBytes() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let composed = "state-Caf\u{E9}"
      let decomposed = "state-Cafe\u{301}"
      #expect(composed == decomposed)
      for stream in [composed, decomposed, composed] {
        _ = try log.append([
          EventLog.StreamWrite(
            stream: stream, events: [proposed("Noted", #"{"n":1}"#)])
        ])
      }
      let statistics = try LogStatistics(reading: LogReader(path: path))
      #expect(statistics.eventCount == 3)
      #expect(statistics.streamCount == 2)
      #expect(statistics.streamsByCategory == ["state": 2])
      #expect(statistics.eventsByCategory == ["state": 3])
      #expect(statistics.eventsByType == ["Noted": 3])
    }
  }
}
