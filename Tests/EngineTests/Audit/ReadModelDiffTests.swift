import Events
import Foundation
import Testing

@testable import Engine
@testable import Projections

@Suite struct ReadModelDiffTests {
  @Test func favouritesChangedBetweenTheImportAndTheEndOfTheSample() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let diff = try Replayer(reader: LogReader(path: path)).diff(
        model: "contacts", from: .sequence(137), to: .sequence(147))
      #expect(diff.fromSequence == 137 && diff.toSequence == 147)
      #expect(diff.changes.added.isEmpty && diff.changes.removed.isEmpty)
      // Contact 13 was favourited and unfavourited in between: no net change.
      #expect(
        diff.changes.changed == [
          EntryDiff.Change(
            id: "16",
            fields: [.init(name: "isFavorite", before: "true", after: "false", kind: .boolean)]),
          EntryDiff.Change(
            id: "9",
            fields: [.init(name: "isFavorite", before: "false", after: "true", kind: .boolean)]),
        ])
      #expect(diff.labels == ["16": "Roger Rabbit", "9": "Kermit the Frog"])
    }
  }

  @Test func pointsInTimeFoldEveryEventAtOrBeforeThem() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let from = try #require(Timestamp.parseISO8601("2026-11-01T12:00:00Z"))
      let to = try #require(Timestamp.parseISO8601("2026-11-04T00:00:00Z"))
      let diff = try Replayer(reader: LogReader(path: path)).diff(
        model: "zipcodes", from: .instant(from), to: .instant(to))
      #expect(diff.changes.changed.map(\.id) == ["Arizona", "California"])
      #expect(
        diff.changes.changed[1].fields == [
          .init(name: "zipCodes", before: "90001, 90002", after: "90011, 90002")
        ])
      #expect(diff.labels.isEmpty)
    }
  }

  @Test func aDiffBackwardsIsTheReverseDiff() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let replayer = Replayer(reader: LogReader(path: path))
      for model in ReadModels.modelNames {
        let forward = try replayer.diff(model: model, from: .sequence(100), to: .end)
        let backward = try replayer.diff(model: model, from: .end, to: .sequence(100))
        #expect(backward.changes.added.map(\.id) == forward.changes.removed.map(\.id))
        #expect(backward.changes.removed.map(\.id) == forward.changes.added.map(\.id))
        // The same fields, each with its two sides swapped (the order may differ: fields come
        // in the order of the newer side).
        func fields(_ diff: ReadModelDiff, swapped: Bool) -> [String: Set<
          EntryDiff.FieldDifference
        >] {
          Dictionary(
            uniqueKeysWithValues: diff.changes.changed.map { change in
              (
                change.id,
                Set(
                  change.fields.map {
                    swapped ? .init(name: $0.name, before: $0.after, after: $0.before) : $0
                  })
              )
            })
        }
        #expect(fields(backward, swapped: false) == fields(forward, swapped: true), "\(model)")
        #expect(!forward.changes.isEmpty, "\(model)")
      }
    }
  }

  @Test func fromSeqZeroEverythingIsAdded() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let replayer = Replayer(reader: LogReader(path: path))
      let diff = try replayer.diff(model: "locations", from: .sequence(0), to: .end)
      #expect(diff.fromSequence == 0 && diff.toSequence == 147)
      #expect(diff.changes.added.count == 11)
      #expect(diff.changes.removed.isEmpty && diff.changes.changed.isEmpty)
      #expect(try replayer.diff(model: "animals", from: .end, to: .end).changes.isEmpty)
    }
  }

  @Test func aDiffFromCheckpointsEqualsOneFromTheWholeLog() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let plain = Replayer(reader: LogReader(path: path))
      let checkpointed = Replayer(
        reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path))
      _ = try checkpointed.readModels(at: .end, saveEvery: 20)
      #expect(CheckpointStore(logPath: path).entries().count == 7)
      for model in ReadModels.modelNames {
        for (from, to): (Int64, Int64) in [(30, 147), (0, 125), (141, 139)] {
          let expected = try plain.diff(model: model, from: .sequence(from), to: .sequence(to))
          let actual = try checkpointed.diff(model: model, from: .sequence(from), to: .sequence(to))
          #expect(actual == expected, "\(model) \(from)...\(to)")
        }
      }
    }
  }

  @Test func aSeqPastTheEndIsAnError() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      #expect(
        throws: EngineError.invalidEvent(
          location: path, problem: "the log has 147 events; there is no seq 148")
      ) {
        try Replayer(reader: LogReader(path: path)).diff(
          model: "contacts", from: .sequence(1), to: .sequence(148))
      }
    }
  }
}
