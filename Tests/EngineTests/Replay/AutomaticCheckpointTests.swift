import Events
import Foundation
import Projections
import Testing

@testable import Engine
@testable import Generator

@Suite struct AutomaticCheckpointTests {
  /// A policy small enough for a test log: saves after 500 events, a grid of at most 4.
  static let policy = CheckpointPolicy(
    minimumEvents: 500, gridCount: 4, baseSpacing: 256, recentCount: 2)

  /// A generated log of `count` events in writes of 100, its clock moving at every write.
  func generatedLog(in directory: String, count: Int = 6000, seed: String = "auto") throws
    -> String
  {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/log.jsonl"
    let log = try EventLog(path: path, configuration: advancingConfiguration())
    var generator = LogGenerator(seed: seed)
    try log.appendGenerated(count, from: &generator, chunkSize: 100)
    return path
  }

  func automaticReplayer(_ path: String) -> Replayer {
    var replayer = Replayer(
      reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path))
    replayer.refusesSeqsInsideWrites = true
    replayer.automaticCheckpoints = Self.policy
    return replayer
  }

  @Test func deletingEveryCheckpointChangesNoAnswer() throws {
    try withTemporaryDirectory { directory in
      let path = try generatedLog(in: directory)
      let events = try readAll(path)
      let store = CheckpointStore(logPath: path)
      let replayer = automaticReplayer(path)
      let fromScratch = Replayer(reader: LogReader(path: path))
      // A read of the end saves the grid and the end on its own.
      let first = try replayer.readModels(at: .end, models: [ContactList.name])
      #expect(first.checkpointsSaved == [2048, 4096, 6000])
      #expect(store.entries().map(\.sequence) == [2048, 4096, 6000])
      let seed = TestSeed.make("deletingEveryCheckpointChangesNoAnswer")
      var random = SeededGenerator(seed: seed)
      var points: [ReplayPoint] = [.end, .sequence(0), .sequence(6000)]
      for _ in 0..<8 {
        points.append(.sequence(Int64.random(in: 1...60, using: &random) * 100))
        let event = events[Int.random(in: 0..<events.count, using: &random)]
        points.append(.instant(event.timestamp))
        points.append(
          .instant(Timestamp(millisecondsSince1970: event.timestamp.millisecondsSince1970 - 1)))
      }
      for point in points {
        for names in [nil, [ContactList.name], [LocationList.name]] as [Set<String>?] {
          let cached = try replayer.readModels(at: point, models: names)
          let plain = try fromScratch.readModels(at: point, models: names)
          for name in names ?? Set(ReadModels.modelNames) {
            _ = try #require(cached.models.model(named: name))
            // The animals' export also needs their source records, which come from the log;
            // the catalogue itself is compared whole.
            if name == AnimalCatalog.name {
              #expect(cached.models.animals == plain.models.animals, "\(point), seed \(seed)")
              continue
            }
            let cachedBytes = try ReadModelExporter.export(
              cached.models, model: name, format: .json)
            let plainBytes = try ReadModelExporter.export(plain.models, model: name, format: .json)
            #expect(
              cachedBytes == plainBytes,
              "\(point) \(name), seed \(seed)")
          }
          #expect(cached.lastSequence == plain.lastSequence, "\(point), seed \(seed)")
          #expect(cached.lastFoldedSequence == plain.lastFoldedSequence, "\(point), seed \(seed)")
        }
        let from = ReplayPoint.sequence(Int64.random(in: 0...60, using: &random) * 100)
        #expect(
          try replayer.diff(model: ContactList.name, from: from, to: point)
            == fromScratch.diff(model: ContactList.name, from: from, to: point))
      }
      // The reads started from the checkpoints, and a read with none left answers the same.
      #expect(try replayer.readModels(at: .sequence(5000)).startedFrom == 4096)
      try store.removeAll()
      #expect(
        try replayer.readModels(at: .sequence(5000)).models
          == fromScratch.readModels(at: .sequence(5000)).models)
    }
  }

  @Test func aShortReplayOrATimeSavesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = try generatedLog(in: directory, count: 400)
      let store = CheckpointStore(logPath: path)
      _ = try automaticReplayer(path).readModels(at: .end)
      #expect(store.entries().isEmpty)
      let longer = try generatedLog(in: directory + "/b", count: 3000)
      let events = try readAll(longer)
      _ = try automaticReplayer(longer).readModels(at: .instant(events[2500].timestamp))
      #expect(CheckpointStore(logPath: longer).entries().isEmpty)
    }
  }

  @Test func aSaveThatFailsIsExplainedAndTheReadStillAnswers() throws {
    try withTemporaryDirectory { directory in
      let path = try generatedLog(in: directory, count: 1200)
      // The sidecar's name is taken by a file: no checkpoint can be written.
      try writeBytes(Array("not a folder".utf8), to: path + ".checkpoints")
      let notes = ReportCollector()
      var replayer = Replayer(
        reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path),
        explain: { notes.add($0) })
      replayer.automaticCheckpoints = Self.policy
      let result = try replayer.readModels(at: .end, models: [ContactList.name])
      #expect(result.checkpointsSaved.isEmpty)
      #expect(
        result.models.contacts
          == (try Replayer(reader: LogReader(path: path)).readModels(at: .end).models.contacts))
      #expect(notes.messages.contains { $0.hasPrefix("could not save a checkpoint at seq 1024") })
      #expect(notes.messages.contains { $0.hasPrefix("could not save a checkpoint at seq 1200") })
    }
  }

  @Test func theDiskBoundHoldsAfterManySaves() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: advancingConfiguration())
      var generator = LogGenerator(seed: "bound")
      let store = CheckpointStore(logPath: path)
      let replayer = automaticReplayer(path)
      var saves = 0
      for round in 1...25 {
        try log.appendGenerated(600, from: &generator, chunkSize: 100)
        saves += try replayer.readModels(at: .end).checkpointsSaved.count
        let sequences = store.entries().map(\.sequence)
        #expect(sequences.count <= 6, "round \(round): \(sequences)")
        #expect(sequences.last == Int64(round * 600), "round \(round): \(sequences)")
        let spacing = Self.policy.spacing(lastSequence: Int64(round * 600))
        #expect(sequences.filter { $0 % spacing != 0 }.count <= 2, "round \(round)")
      }
      #expect(saves >= 25)
    }
  }

  @Test(arguments: ["older version", "corrupt", "another log", "past the end"])
  func aCheckpointThatCannotBeUsedIsIgnoredAndRebuilt(_ kind: String) throws {
    try withTemporaryDirectory { directory in
      let path = try generatedLog(in: directory)
      let store = CheckpointStore(logPath: path)
      let replayer = automaticReplayer(path)
      _ = try replayer.readModels(at: .end)
      let newest = try #require(store.entries().last)
      var bytes = try fileBytes(newest.path)
      var damagedPath = newest.path
      switch kind {
      case "older version":
        // Envelope version 0, checksum recomputed: well-formed, but not this layout.
        bytes[4] = 0
        bytes[5] = 0
        let body = bytes.count - 4
        let checksum = bytes.withUnsafeBytes {
          CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<body]))
        }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
      case "corrupt":
        bytes[bytes.count / 2] ^= 0x40
      case "another log":
        let other = try generatedLog(in: directory + "/other", seed: "other")
        _ = try automaticReplayer(other).readModels(at: .end)
        bytes = try fileBytes(try #require(CheckpointStore(logPath: other).entries().last).path)
      default:
        let longer = try generatedLog(in: directory + "/longer", count: 6100)
        _ = try automaticReplayer(longer).readModels(at: .end)
        bytes = try fileBytes(try #require(CheckpointStore(logPath: longer).entries().last).path)
        damagedPath = store.directory + "/seq-000000006100.ckpt"
      }
      try writeBytes(bytes, to: damagedPath)
      let damaged = try #require(store.entries().first { $0.path == damagedPath })
      #expect(throws: CheckpointStore.Rejection.self) { try store.load(damaged) }
      let result = try replayer.readModels(at: .end)
      #expect(result.startedFrom == (kind == "past the end" ? 6000 : 4096))
      #expect(
        result.models == (try Replayer(reader: LogReader(path: path)).readModels(at: .end).models))
      if kind == "past the end" {
        // Kept: it is the evidence of a log that lost events.
        #expect(FileManager.default.fileExists(atPath: damagedPath))
      } else {
        #expect(result.checkpointsSaved == [6000])
        #expect(try store.load(damaged).sequence == 6000)
      }
    }
  }
}
