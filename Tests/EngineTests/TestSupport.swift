import Events
import Foundation
// Re-exported: every file of this target sees the shared test support.
@_exported import ReplayTestSupport
import Synchronization

@testable import Engine
@testable import Generator

/// The shared generator's former name here.
typealias SeededGenerator = SplitMix64

/// A configuration with a fixed clock, ids derived from the sequence number, no fsync (tests
/// do not need durability), and reports collected.
func testConfiguration(
  reports: ReportCollector? = nil, start: Int64 = 1_790_000_000_000
) -> EventLog.Configuration {
  EventLog.Configuration(
    clock: { Timestamp(millisecondsSince1970: start) },
    makeEventID: { sequence in
      EventID(high: 0x1111_0000_0000_4000, low: 0x8000_0000_0000_0000 | UInt64(sequence))
    },
    syncPolicy: .never,
    lockTimeout: 2,
    report: { message in reports?.add(message) })
}

/// A log at `directory/generated.jsonl` of `count` events from `LogGenerator(seed:)`, written
/// `chunkSize` to a write with `testConfiguration()`; its path.
func makeGeneratedLog(
  in directory: String, count: Int, seed: String, chunkSize: Int = 1000
) throws -> String {
  let path = directory + "/generated.jsonl"
  let log = try EventLog(path: path, configuration: testConfiguration())
  var generator = LogGenerator(seed: seed)
  try log.appendGenerated(count, from: &generator, chunkSize: chunkSize)
  return path
}

/// Collects report lines from a log, thread-safely.
final class ReportCollector: Sendable {
  private let storage = Mutex<[String]>([])

  func add(_ message: String) {
    storage.withLock { $0.append(message) }
  }

  var messages: [String] {
    storage.withLock { $0 }
  }
}

/// A proposed event with a JSON payload given as text.
func proposed(_ type: String, _ json: String, id: EventID? = nil, actor: String? = nil)
  -> ProposedEvent
{
  ProposedEvent(
    id: id, type: type, data: Array(json.utf8), metadata: EventMetadata(actor: actor))
}

/// Every committed event of the log at `path`.
func readAll(
  _ path: String, readSize: Int = LogReader.defaultReadSize, pipelined: Bool = false
) throws -> [RecordedEvent] {
  var events: [RecordedEvent] = []
  var reader = LogReader(path: path, readSize: readSize)
  if pipelined { reader.pipelineThreshold = 0 }
  try reader.forEachEvent { line in
    events.append(line.recordedEvent())
    return true
  }
  return events
}

func fileBytes(_ path: String) throws -> [UInt8] {
  Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}
