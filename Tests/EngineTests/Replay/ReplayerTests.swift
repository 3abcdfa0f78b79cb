import Events
import Foundation
import Projections
import Testing

@testable import Engine

/// The shipped sample log, copied into a test's directory.
func copySampleLog(to directory: String) throws -> String {
  try RepositoryFiles.copySampleLog(to: directory)
}

/// The read models of the first `count` events, folded directly from decoded events.
/// The read models of `events`, folded one by one; contacts' personal data opened with the key
/// store of the log at `logPath` (the sample log's, by default).
func referenceModels(
  _ events: ArraySlice<RecordedEvent>, upTo instant: Timestamp? = nil,
  logPath: String = RepositoryFiles.sampleLog
) throws -> ReadModels {
  var models = ReadModels()
  for event in events {
    if let instant, event.timestamp > instant { continue }
    guard let domainEvent = try PersonalData.decode(event, log: OpenLog.named(logPath)) else {
      continue
    }
    models.apply(domainEvent, at: EventContext(event))
  }
  return models
}

@Suite struct ReplayerTests {
  @Test func replayingToEverySeqOfTheSampleLogEqualsFoldingThatPrefix() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let events = try readAll(path)
      #expect(events.count == 147)
      let replayer = Replayer(reader: LogReader(path: path))
      for sequence in 1...events.count {
        let result = try replayer.readModels(at: .sequence(Int64(sequence)))
        #expect(result.lastSequence == Int64(sequence))
        #expect(result.models == (try referenceModels(events.prefix(sequence))), "seq \(sequence)")
      }
      #expect(try replayer.readModels(at: .end).models == (try referenceModels(events[...])))
    }
  }

  @Test func asOfKeepsEveryEventAtOrBeforeTheInstant() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let events = try readAll(path)
      let replayer = Replayer(reader: LogReader(path: path))
      for text in [
        "2026-10-01T00:00:00Z", "2026-11-01T09:06:00Z", "2026-11-03T14:02:00Z",
        "2026-12-01T00:00:00Z",
      ] {
        let instant = try #require(Timestamp.parseISO8601(text))
        let result = try replayer.readModels(at: .instant(instant))
        #expect(result.models == (try referenceModels(events[...], upTo: instant)), "\(text)")
      }
    }
  }

  @Test func asingleModelReplayEqualsThatModelOfAFullReplay() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let replayer = Replayer(reader: LogReader(path: path))
      let full = try replayer.readModels(at: .end).models
      let contacts = try replayer.readModels(at: .end, models: [ContactList.name]).models
      #expect(contacts.contacts == full.contacts)
      #expect(contacts.locations == LocationList())
      let locations = try replayer.readModels(at: .sequence(130), models: [LocationList.name])
        .models
      #expect(locations.locations == (try replayer.readModels(at: .sequence(130)).models.locations))
    }
  }

  @Test func aSeqBeyondTheLogIsAnError() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      #expect(
        throws: EngineError.invalidEvent(
          location: path, problem: "the log has 147 events; there is no seq 148")
      ) {
        try Replayer(reader: LogReader(path: path)).readModels(at: .sequence(148))
      }
    }
  }
}

@Suite struct CheckpointTests {
  @Test func checkpointPlusTailEqualsAFullReplayAtRandomPoints() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let store = CheckpointStore(logPath: path)
      let saving = Replayer(reader: LogReader(path: path), checkpoints: store)
      let built = try saving.readModels(at: .end, saveEvery: 10)
      #expect(built.checkpointsSaved == Array(stride(from: 10, through: 140, by: 10)))
      #expect(store.entries().map(\.sequence) == built.checkpointsSaved)
      let plain = Replayer(reader: LogReader(path: path))
      let seed = TestSeed.make("checkpointPlusTailEqualsAFullReplayAtRandomPoints")
      var generator = SeededGenerator(seed: seed)
      let log = ReportCollector()
      let replayer = Replayer(
        reader: LogReader(path: path), checkpoints: store, explain: { log.add($0) })
      for _ in 0..<40 {
        let target = Int64.random(in: 1...147, using: &generator)
        let fromCheckpoint = try replayer.readModels(at: .sequence(target))
        #expect(
          fromCheckpoint.startedFrom == (target >= 10 ? target / 10 * 10 : nil), "seq \(target)")
        #expect(
          fromCheckpoint.models == (try plain.readModels(at: .sequence(target)).models),
          "seq \(target), seed \(seed)")
      }
      for entry in store.entries() {
        #expect(store.verifyDigest(of: entry) == nil)
      }
    }
  }

  @Test func aCheckpointContinuesTheDigestOfTheOneBeforeIt() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let store = CheckpointStore(logPath: path)
      let replayer = Replayer(reader: LogReader(path: path), checkpoints: store)
      _ = try replayer.readModels(at: .sequence(50), saveEvery: 50)
      // The second run starts from seq 50 and hashes only the tail for seq 100.
      let second = try replayer.readModels(at: .end, saveEvery: 50)
      #expect(second.startedFrom == 50)
      #expect(second.checkpointsSaved == [100])
      let digest = try LogDigest.compute(LogReader(path: path), through: 100)
      let loaded = try store.load(try #require(store.entries().last))
      #expect(loaded.anchor.sha256 == digest.sha256)
      #expect(store.verifyDigest(of: try #require(store.entries().last)) == nil)
    }
  }

  @Test func aReplayThatPassesNoDueSeqSkipsHashingAndTheNextOneStillChains() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let store = CheckpointStore(logPath: path)
      let replayer = Replayer(reader: LogReader(path: path), checkpoints: store)
      _ = try replayer.readModels(at: .sequence(40), saveEvery: 40)
      // 41...79 holds no multiple of 40: nothing to save, so the lines are not hashed.
      let short = try replayer.readModels(at: .sequence(79), saveEvery: 40)
      #expect(short.startedFrom == 40)
      #expect(short.checkpointsSaved.isEmpty)
      let full = try replayer.readModels(at: .end, saveEvery: 40)
      #expect(full.checkpointsSaved == [80, 120])
      for entry in store.entries() {
        #expect(store.verifyDigest(of: entry) == nil)
      }
    }
  }

  @Test func aReplayMayPassAnUnsavedSeqOnlyWhenOneIsDueInItsRange() {
    #expect(Replayer.mayPassUnsaved(every: 10, from: 11, through: 19, saved: []) == false)
    #expect(Replayer.mayPassUnsaved(every: 10, from: 11, through: 20, saved: []) == true)
    #expect(Replayer.mayPassUnsaved(every: 10, from: 10, through: 10, saved: []) == true)
    #expect(Replayer.mayPassUnsaved(every: 10, from: 1, through: 35, saved: [10, 20, 30]) == false)
    #expect(Replayer.mayPassUnsaved(every: 10, from: 1, through: 35, saved: [10, 30]) == true)
    #expect(Replayer.mayPassUnsaved(every: 10, from: 31, through: nil, saved: []) == true)
    #expect(Replayer.mayPassUnsaved(every: 0, from: 1, through: 100, saved: []) == false)
  }

  /// A copy of the sample log in `directory`, replayed to its end saving a checkpoint every
  /// `interval` events; its path and checkpoint store.
  private func sampleLogWithCheckpoints(in directory: String, every interval: Int64) throws
    -> (path: String, store: CheckpointStore)
  {
    let path = try copySampleLog(to: directory)
    let store = CheckpointStore(logPath: path)
    _ = try Replayer(reader: LogReader(path: path), checkpoints: store).readModels(
      at: .end, saveEvery: interval)
    return (path, store)
  }

  @Test func aCheckpointThatNoLongerMatchesTheLogIsIgnoredAndSaysWhy() throws {
    try withTemporaryDirectory { directory in
      let (path, store) = try sampleLogWithCheckpoints(in: directory, every: 100)
      // Rewrite line 64 (a sampled line) with a different payload and a correct checksum.
      var lines = String(decoding: try fileBytes(path), as: UTF8.self).components(separatedBy: "\n")
      var body = Array(lines[63].dropLast(18).utf8)
      let marker = Array(#""zipCode":""#.utf8)
      let at = try #require(
        (0...(body.count - marker.count)).first {
          body[$0..<($0 + marker.count)].elementsEqual(marker)
        })
      // Change the zip's first digit: still a valid zip, another event.
      body[at + marker.count] = body[at + marker.count] == 0x39 ? 0x38 : body[at + marker.count] + 1
      let text = String(decoding: body, as: UTF8.self)
      lines[63] = text + String(format: ",\"crc\":\"%08x\"}", CRC32C.checksum(of: text))
      try writeBytes(Array(lines.joined(separator: "\n").utf8), to: path)
      let explained = ReportCollector()
      let result = try Replayer(
        reader: LogReader(path: path), checkpoints: store, explain: { explained.add($0) }
      )
      .readModels(at: .end)
      #expect(result.startedFrom == nil)
      #expect(
        explained.messages.contains {
          $0.contains("ignored: the line at byte") && $0.contains("changed")
        }, "\(explained.messages)")
      #expect(
        store.verifyDigest(of: try #require(store.entries().first))?.contains("hash to") == true)
    }
  }

  @Test func oneVerifyPassOverEveryCheckpointFindsWhatEachCheckAloneFinds() throws {
    try withTemporaryDirectory { directory in
      let (path, store) = try sampleLogWithCheckpoints(in: directory, every: 20)
      let entries = store.entries()
      #expect(entries.count >= 4)
      #expect(store.verifyDigests(of: entries).allSatisfy { $0 == nil })
      // One byte changed inside the third checkpoint's prefix (not the last of it): the first
      // two still match, every later one does not.
      var bytes = try fileBytes(path)
      let third = try store.load(entries[2]).anchor.offset
      let second = try store.load(entries[1]).anchor.offset
      let changed = Int(second + (third - second) / 2)
      bytes[changed] = bytes[changed] == 0x20 ? 0x21 : 0x20
      try writeBytes(bytes, to: path)
      // Listed out of order, to check each answer lands on its own entry.
      let shuffled = Array(entries.reversed())
      let together = store.verifyDigests(of: shuffled)
      for (entry, problem) in zip(shuffled, together) {
        #expect(problem == store.verifyDigest(of: entry), "seq \(entry.sequence)")
        #expect(
          (problem == nil) == (entry.sequence <= entries[1].sequence), "seq \(entry.sequence)")
      }
    }
  }

  @Test func deletingTheSidecarLosesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let store = CheckpointStore(logPath: path)
      let replayer = Replayer(reader: LogReader(path: path), checkpoints: store)
      let withCheckpoints = try replayer.readModels(at: .end, saveEvery: 20)
      try store.removeAll()
      #expect(store.entries().isEmpty)
      #expect(try replayer.readModels(at: .end).models == withCheckpoints.models)
    }
  }

  @Test func asOfUsesOnlyCheckpointsWhoseEventsAreAllEarlier() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let store = CheckpointStore(logPath: path)
      _ = try Replayer(reader: LogReader(path: path), checkpoints: store).readModels(
        at: .end, saveEvery: 10)
      let instant = try #require(Timestamp.parseISO8601("2026-11-01T09:10:00Z"))
      let result = try Replayer(reader: LogReader(path: path), checkpoints: store).readModels(
        at: .instant(instant))
      // Events up to seq 108 are at or before 09:10 (the zoo import); seq 100 is the last
      // checkpoint whose events all are.
      #expect(result.startedFrom == 100)
      #expect(
        result.models
          == (try Replayer(reader: LogReader(path: path)).readModels(at: .instant(instant)).models))
    }
  }
}

@Suite struct GeneratedLogCheckpointTests {
  /// The oracle on a realistic log: for seeded random points, starting from the nearest
  /// checkpoint and replaying the tail gives exactly the models of a replay from seq 1.
  @Test func checkpointPlusTailEqualsAFullReplayOnAGeneratedLog() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 6000, seed: "checkpoint-oracle")
      let store = CheckpointStore(logPath: path)
      _ = try Replayer(reader: LogReader(path: path), checkpoints: store).readModels(
        at: .end, saveEvery: 700)
      #expect(store.entries().count == 8)
      let seed = TestSeed.make("checkpointPlusTailEqualsAFullReplayOnAGeneratedLog")
      var random = SeededGenerator(seed: seed)
      let withCheckpoints = Replayer(reader: LogReader(path: path), checkpoints: store)
      let fromScratch = Replayer(reader: LogReader(path: path))
      for _ in 0..<25 {
        let target = Int64.random(in: 1...6000, using: &random)
        let resumed = try withCheckpoints.readModels(at: .sequence(target))
        #expect(resumed.startedFrom == (target >= 700 ? target / 700 * 700 : nil))
        #expect(
          resumed.models == (try fromScratch.readModels(at: .sequence(target)).models),
          "seq \(target), seed \(seed)")
      }
    }
  }
}

extension GeneratedLogCheckpointTests {
  /// The digest is hashed on a thread of its own, a block (1 MiB) at a time, and finished from
  /// the last block boundary: every anchor, across several blocks and resumed from a
  /// checkpoint's midstate, must hold the SHA-256 of exactly the bytes before it.
  @Test func everyAnchorHoldsTheDigestOfTheBytesBeforeItAcrossBlocks() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 12_000, seed: "anchors-across-blocks")
      let bytes = try #require(FileManager.default.contents(atPath: path))
      #expect(bytes.count > 3 * PrefixHasher.blockSize)
      let store = CheckpointStore(logPath: path)
      let replayer = Replayer(reader: LogReader(path: path), checkpoints: store)
      // Up to seq 5000 from the start, then on from that checkpoint's midstate.
      let first = try replayer.readModels(at: .sequence(5000), saveEvery: 1000)
      #expect(first.checkpointsSaved == [1000, 2000, 3000, 4000, 5000])
      let second = try replayer.readModels(at: .end, saveEvery: 1000, saveLast: true)
      #expect(second.startedFrom == 5000)
      #expect(second.checkpointsSaved == (6...12).map { Int64($0) * 1000 })
      for entry in store.entries() {
        let anchor = try store.load(entry).anchor
        let expected = SHA256.hash(bytes.prefix(Int(anchor.offset)))
        #expect(anchor.sha256 == expected, "seq \(entry.sequence)")
        var resumed = try #require(SHA256(midstate: anchor.midstate))
        #expect(resumed.finalize() == expected, "seq \(entry.sequence)")
        resumed.update(bytes.dropFirst(Int(anchor.offset)))
        #expect(resumed.finalize() == SHA256.hash(bytes), "seq \(entry.sequence)")
      }
    }
  }
}

@Suite struct SchemaVersionTests {
  @Test func anEventWithANewerSchemaThanTheEngineKnowsIsAnErrorNamingIt() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.append(
        [
          ProposedEvent(
            type: "ContactFavorited", schemaVersion: 7, data: Array(#"{"id":"13"}"#.utf8))
        ],
        to: "contact-13")
      #expect(
        throws: EngineError.unsupportedSchemaVersion(
          type: "ContactFavorited", found: 7, newestKnown: 1, location: "\(path):1")
      ) {
        try Replayer(reader: LogReader(path: path)).readModels(at: .end)
      }
      let report = try LogVerifier(path: path).verify()
      #expect(
        report.problems.map(\.message) == [
          "event type 'ContactFavorited' has schema version 7, newer than the 1 this engine knows"
        ])
    }
  }
}
