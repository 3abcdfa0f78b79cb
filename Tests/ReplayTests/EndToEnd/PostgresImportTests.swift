import Foundation
import ReplayTestSupport
import Synchronization
import Testing

/// `replay import … --log postgresql://…`: the import plans on the database's streams with the
/// same rules and writes the same lines as into a file, in one transaction; a re-import appends
/// nothing; `--dry-run` and refused imports write nothing.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresImportTests {
  /// The sources every kind but contacts (sealed through the database: PostgresContactsTests).
  private let sources: [(kind: String, file: String)] = [
    ("observations", "field-observations.json"),
    ("states", "states-zipcodes.readme-example.plist"),
    ("zoo", "taipei-zoo-animals.json"),
    ("locations", "acmeaom-locations.json"),
  ]

  private let environment = ["REPLAY_CLOCK": "2026-11-27T12:00:00Z"]

  /// Every row's `metadata.line`, in `global_position` order, each with its `\n`.
  private func lines(_ server: PostgresTestServer) throws -> String {
    let rows = try server.psql(
      "SELECT metadata->>'line' FROM message_store.messages ORDER BY global_position")
    return rows.split(separator: "\n").map { $0 + "\n" }.joined()
  }

  @Test func importingIntoTheDatabaseWritesWhatTheFileGets() throws {
    try withInitializedDatabase { directory, server, url in
      let file = directory + "/events.jsonl"
      // Twice: the second import of each source appends nothing, on both.
      for _ in 0..<2 {
        for source in sources {
          let arguments = ["import", source.kind, RepositoryFiles.seedDataPath(source.file)]
          let onFile = try ReplayProcess.run(
            arguments + ["--log", file], environment: environment)
          let onDatabase = try ReplayProcess.run(
            arguments + ["--log", url], environment: environment)
          #expect(onFile.status == 0, "\(source.kind): \(onFile.error)")
          #expect(onDatabase.status == 0, "\(source.kind): \(onDatabase.error)")
          #expect(onDatabase.output == onFile.output, "\(source.kind)")
        }
      }
      #expect(try lines(server) == (try String(contentsOfFile: file, encoding: .utf8)))
      let fromFile = try ReplayProcess.run(["state", "--json", "--log", file])
      let fromDatabase = try ReplayProcess.run(["state", "--json", "--log", url])
      #expect(fromDatabase.status == 0 && fromDatabase.output == fromFile.output)
      // `rebuild` folds the database as `state` does: the same seq and entities.
      let rebuilt = try ReplayProcess.run(["rebuild", "--json", "--log", url])
      let rebuiltFile = try ReplayProcess.run(["rebuild", "--json", "--log", file])
      #expect(rebuilt.status == 0, "\(rebuilt.error)")
      let summary = { (output: String) -> [String]? in
        guard
          let object = try? JSONSerialization.jsonObject(with: Data(output.utf8))
            as? [String: Any]
        else { return nil }
        let entities = (object["entities"] as? [String: Int] ?? [:]).sorted { $0.key < $1.key }
        return ["\(object["seq"] ?? "none")", "\(object["eventsRead"] ?? "none")"]
          + entities.map { "\($0.key) \($0.value)" }
      }
      #expect(summary(rebuilt.output) != nil)
      #expect(summary(rebuilt.output) == summary(rebuiltFile.output), "\(rebuilt.output)")

      // A changed source: the change only, decided on the database's own streams.
      let changed = directory + "/observations.json"
      let json =
        try JSONSerialization.jsonObject(
          with: Data(RepositoryFiles.seedData("field-observations.json"))) as? [String: Any]
      var observations = json?["observations"] as? [[String: Any]] ?? []
      #expect(!observations.isEmpty)
      observations[0]["description"] = "seen again, closer"
      let data = try JSONSerialization.data(
        withJSONObject: ["status": json?["status"] ?? "ok", "observations": observations])
      try data.write(to: URL(fileURLWithPath: changed))
      let onFile = try ReplayProcess.run(
        ["import", "observations", changed, "--log", file, "--json"], environment: environment)
      let onDatabase = try ReplayProcess.run(
        ["import", "observations", changed, "--log", url, "--json"], environment: environment)
      #expect(onFile.status == 0 && onDatabase.status == 0, "\(onDatabase.error)")
      #expect(onDatabase.output == onFile.output)
      #expect(try lines(server) == (try String(contentsOfFile: file, encoding: .utf8)))
    }
  }

  /// Three imports of one source race into the database: each plans on what it read and
  /// expects those versions; the losers plan again and find nothing to add (the ids are the
  /// source's), so the table holds one import's lines, whatever the order.
  @Test func racingImportsAddTheSourceOnce() throws {
    try withInitializedDatabase { directory, server, url in
      let zoo = RepositoryFiles.seedDataPath("taipei-zoo-animals.json")
      let statuses = Mutex<[Int32]>([])
      DispatchQueue.concurrentPerform(iterations: 3) { _ in
        let result = try? ReplayProcess.run(
          ["import", "zoo", zoo, "--log", url, "--lock-timeout", "60"], environment: environment)
        statuses.withLock { $0.append(result?.status ?? -1) }
      }
      #expect(statuses.withLock { $0 } == [0, 0, 0])
      let file = directory + "/events.jsonl"
      let single = try ReplayProcess.run(
        ["import", "zoo", zoo, "--log", file], environment: environment)
      #expect(single.status == 0)
      // The clock is fixed: the winner's lines are the file's, byte for byte.
      #expect(try lines(server) == (try String(contentsOfFile: file, encoding: .utf8)))
      let verified = try ReplayProcess.run(["verify", "--log", url])
      #expect(verified.status == 0, "\(verified.output) \(verified.error)")
    }
  }

  @Test func aDryRunAndARefusedImportWriteNothing() throws {
    try withInitializedDatabase { directory, server, url in
      let zoo = RepositoryFiles.seedDataPath("taipei-zoo-animals.json")
      let file = directory + "/events.jsonl"
      let dryFile = try ReplayProcess.run(
        ["import", "zoo", zoo, "--dry-run", "--log", file], environment: environment)
      let dryDatabase = try ReplayProcess.run(
        ["import", "zoo", zoo, "--dry-run", "--log", url], environment: environment)
      #expect(dryDatabase.status == 0, "\(dryDatabase.error)")
      #expect(dryDatabase.output == dryFile.output)
      #expect(
        try server.psql("SELECT count(*) FROM message_store.messages").trimmingCharacters(
          in: .whitespacesAndNewlines) == "0")

      // A write is one transaction: --chunk-size means nothing there.
      let chunked = try ReplayProcess.run(
        ["import", "zoo", zoo, "--chunk-size", "10", "--log", url], environment: environment)
      #expect(chunked.status == 64)
      #expect(chunked.error.contains("'--chunk-size' does not apply to a log kept in PostgreSQL"))

      // A source with a bad record, without --skip-invalid: refused, nothing written.
      let bad = directory + "/bad.json"
      try
        #"{"status":"ok","observations":[{"classification":"bird","title":"","description":"x","date":"2026-11-01 10:00"}]}"#
        .write(toFile: bad, atomically: true, encoding: .utf8)
      let refused = try ReplayProcess.run(
        ["import", "observations", bad, "--log", url], environment: environment)
      #expect(refused.status == 65, "\(refused.error)")
      #expect(
        try server.psql("SELECT count(*) FROM message_store.messages").trimmingCharacters(
          in: .whitespacesAndNewlines) == "0")
    }
  }
}
