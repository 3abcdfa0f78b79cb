import Events
import Projections
import Synchronization
import Testing

@testable import Engine

/// A replay decodes lines on its reading thread while that thread is far enough ahead of the
/// fold, and leaves them to the fold otherwise.
@Suite struct ReadAheadTests {
  /// Whichever thread decodes each line (the reading thread always, never, or as the balance
  /// decides), the models are the same, and the same as folding every event decoded in full;
  /// also when only some models are folded.
  @Test func theModelsDoNotDependOnWhichThreadDecodes() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 4000, seed: "sealed-prefetch")
      let text = String(decoding: try fileBytes(path), as: UTF8.self)
      #expect(text.contains(#""sealed":"#))
      var reference = ReadModels()
      for event in try readAll(path) { try reference.fold(event, path: path) }
      // Small chunks, read on two threads, so that the lead moves through many chunks.
      var reader = LogReader(path: path, readSize: 16 << 10)
      reader.pipelineThreshold = 0
      for lead: Int64? in [nil, 0, .max, 40 << 10] {
        var replayer = Replayer(reader: reader)
        replayer.readAheadLead = lead
        let models = try replayer.readModels(at: .end).models
        #expect(models == reference, "lead \(String(describing: lead))")
        #expect(models.contacts.count > 0)
        let some = try replayer.readModels(at: .end, models: ["contacts", "animals"]).models
        #expect(some.contacts == reference.contacts, "lead \(String(describing: lead))")
        #expect(some.animals == reference.animals, "lead \(String(describing: lead))")
        #expect(some.observations == ObservationList())
        #expect(some.zipCodes == ZipCodeList())
      }
    }
  }

  /// A line the reading thread cannot decode is left to the fold, which reports it as a
  /// replay on one thread does.
  @Test func aLineTheReadingThreadCannotDecodeIsReportedByTheFold() throws {
    try withTemporaryDirectory { directory in
      let (path, log) = try makeFavoritesLog(in: directory, count: 300)
      try log.append(
        [
          ProposedEvent(
            type: "ContactFavorited", schemaVersion: 7, data: Array(#"{"id":"1"}"#.utf8))
        ],
        to: "contact-1")
      var reader = LogReader(path: path, readSize: 1 << 10)
      reader.pipelineThreshold = 0
      for lead: Int64 in [0, .max] {
        var replayer = Replayer(reader: reader)
        replayer.readAheadLead = lead
        #expect(
          throws: EngineError.unsupportedSchemaVersion(
            type: "ContactFavorited", found: 7, newestKnown: 1, location: "\(path):301")
        ) {
          try replayer.readModels(at: .end)
        }
      }
    }
  }

  /// What the reading thread prepares for a line reaches the body with that line, and nothing
  /// reaches a line it prepared nothing for; a body that stops early leaves the rest to be
  /// destroyed with the chunk, once each.
  @Test(arguments: [Int64.max, 250])
  func preparedValuesTravelWithTheirLines(stopAt: Int64) throws {
    try withTemporaryDirectory { directory in
      let path = try makeFavoritesLog(in: directory, count: 1000).path
      var reader = LogReader(path: path, readSize: 2048)
      reader.pipelineThreshold = 0
      let census = Census()
      var received: [Int64: Int64] = [:]
      var seen: [Int64] = []
      try reader.forEachEvent(
        prepare: { line in
          line.sequence % 3 == 0 ? Tracked(line.sequence, census: census) : nil
        }
      ) { (line: EventLine, prepared: consuming Tracked?) in
        seen.append(line.sequence)
        if let prepared { received[line.sequence] = prepared.value }
        return line.sequence < stopAt
      }
      let last = min(stopAt, 1000)
      #expect(seen == Array(1...last))
      #expect(
        received
          == Dictionary(
            uniqueKeysWithValues: stride(from: 3, through: last, by: 3).map { ($0, $0) }))
      #expect(census.live == 0)
    }
  }

  /// The queue that carries prepared values: first in, first out, across growth, and every
  /// value destroyed exactly once whether it was moved out, cleared or freed.
  @Test func theMoveQueueMovesValuesOutInOrderAndDestroysTheRest() {
    let census = Census()
    var queue = MoveQueue<Tracked>()
    var next: Int64 = 0
    var expected: Int64 = 0
    for round in 0..<50 {
      for _ in 0..<(round * 7 % 90) {
        queue.append(Tracked(next, census: census))
        next += 1
      }
      for _ in 0..<(round * 5 % 60) where !queue.isEmpty {
        #expect(queue.popFirst().value == expected)
        expected += 1
      }
      if round % 10 == 9 {
        queue.removeAll()
        expected = next
        #expect(queue.isEmpty)
      }
    }
    #expect(census.live == Int(next - expected))
    queue.free()
    #expect(census.live == 0)
  }
}

/// A log of `count` favourite toggles, one write each.
private func makeFavoritesLog(in directory: String, count: Int) throws -> (
  path: String, log: EventLog
) {
  let path = directory + "/log.jsonl"
  let log = try EventLog(path: path, configuration: testConfiguration())
  for index in 0..<count {
    try log.append([proposed("ContactFavorited", #"{"id":"\#(index)"}"#)], to: "contact-\(index)")
  }
  return (path, log)
}

/// How many `Tracked` values are alive.
private final class Census: Sendable {
  private let count = Atomic<Int>(0)
  var live: Int { count.load(ordering: .relaxed) }
  func born() { count.add(1, ordering: .relaxed) }
  func died() { count.subtract(1, ordering: .relaxed) }
}

/// A value that counts itself in a census while it is alive.
private final class Tracked: Sendable {
  let value: Int64
  let census: Census

  init(_ value: Int64, census: Census) {
    self.value = value
    self.census = census
    census.born()
  }

  deinit { census.died() }
}
