import Events
import Foundation
import Synchronization

@testable import Engine

/// Runs `body` with a fresh directory that is removed afterwards, so tests run in parallel.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("replay-tests-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(path)
}

/// A deterministic generator for seeded random loops (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

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
