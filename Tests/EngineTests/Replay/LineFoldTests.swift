import Events
import Foundation
import Testing

@testable import Engine

/// `LineFold`, the fold of lines kept outside the file (PostgreSQL): the same models as a
/// replay of the file, and the same refusals of a damaged or reordered line.
struct LineFoldTests {
  /// The log's lines, without their `\n`.
  private func lines(of path: String) throws -> [[UInt8]] {
    try fileBytes(path).split(separator: 0x0A).map { Array($0) }
  }

  private func fold(
    _ lines: some Sequence<[UInt8]>, keys: KeyStore, asOf instant: Timestamp? = nil
  ) throws -> LineFold {
    var fold = LineFold(source: "db", keyStoreName: "db keys", asOf: instant) {
      keys.lookup($0)
    }
    for line in lines {
      try line.withUnsafeBufferPointer { try fold.fold($0) }
    }
    return fold
  }

  @Test func foldingTheLinesGivesTheReplaysModelsAtEveryPointSealedContactsIncluded() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 3000, seed: "linefold", chunkSize: 250)
      let keys = try KeyStore(logPath: path)
      #expect(!keys.keys.isEmpty)
      let all = try lines(of: path)
      let replayer = Replayer(reader: LogReader(path: path))
      for end in [250, 1750, 3000] {
        let folded = try fold(all.prefix(end), keys: keys)
        let replayed = try replayer.readModels(at: .sequence(Int64(end)))
        #expect(folded.models == replayed.models)
        #expect(folded.result.lastSequence == replayed.lastSequence)
        #expect(folded.result.lastFoldedSequence == replayed.lastFoldedSequence)
      }
      let instant = try #require(
        try readAll(path).first { $0.sequence == 1500 }?.timestamp)
      let folded = try fold(all, keys: keys, asOf: instant)
      let replayed = try replayer.readModels(at: .instant(instant))
      #expect(folded.models == replayed.models)
      #expect(folded.lastFoldedSequence == replayed.lastFoldedSequence)
    }
  }

  @Test func aChangedByteAMissingLineAndAMissingKeyAreRefusedNamingTheSource() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 600, seed: "linefold-bad")
      let keys = try KeyStore(logPath: path)
      var all = try lines(of: path)
      // A line skipped: its seq is missing.
      #expect {
        _ = try fold(all.prefix(10) + all[11...], keys: keys)
      } throws: { error in
        guard case EngineError.invalidEvent(let location, let problem) = error else { return false }
        return location == "db" && problem.hasPrefix("expected seq 11 after seq 10, found seq 12")
      }
      // A line repeated.
      #expect(throws: EngineError.self) { _ = try fold(all.prefix(10) + all[9...], keys: keys) }
      // No key store: a sealed contact's line cannot be opened.
      #expect(throws: (any Error).self) {
        _ = try fold(all, keys: try KeyStore(logPath: directory + "/other.jsonl"))
      }
      // A byte changed: the checksum refuses the line.
      all[20][all[20].count / 2] ^= 0x01
      #expect {
        _ = try fold(all, keys: keys)
      } throws: { error in
        guard case EngineError.corruptLine(let path, let line, _, _) = error else { return false }
        return path == "db" && line == 21
      }
    }
  }
}
