import Events
import Foundation
import Synchronization
import Testing

@testable import Engine

@Suite struct LogReaderObserveTests {
  /// The observer sees every line in order, on both read paths: the serial one and the
  /// pipelined one, where it runs on the reading thread.
  @Test(arguments: [false, true])
  func theObserverSeesEveryLineInOrder(pipelined: Bool) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      for chunk in 0..<20 {
        let writes = (0..<50).map { index in
          EventLog.StreamWrite(
            stream: "contact-\(chunk * 50 + index)",
            events: [proposed("ContactFavorited", #"{"id":"\#(chunk * 50 + index)"}"#)])
        }
        _ = try log.append(writes)
      }
      var reader = LogReader(path: path, readSize: 4096)
      if pipelined { reader.pipelineThreshold = 0 }
      let observed = Mutex<[Int64]>([])
      var handed: [Int64] = []
      try reader.forEachEvent(observe: { line in observed.withLock { $0.append(line.sequence) } }) {
        line in
        handed.append(line.sequence)
        return true
      }
      #expect(handed == Array(1...1000))
      #expect(observed.withLock { $0 } == handed)
      // Stopping at a seq: nothing past it is observed either.
      let upTo = Mutex<[Int64]>([])
      try reader.forEachEvent(
        through: 300, observe: { line in upTo.withLock { $0.append(line.sequence) } }
      ) { _ in true }
      #expect(upTo.withLock { $0 } == Array(1...300))
    }
  }
}
