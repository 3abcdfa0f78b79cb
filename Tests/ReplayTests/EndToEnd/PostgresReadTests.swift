import Foundation
import Testing

/// `history`, `export` and `verify` with `--log postgresql://…`: the same bytes as on the
/// file, and a verifier that names a tampered row and what differs in it.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresReadTests {
  /// The command on the file and on the database: the same status and output, and the same
  /// error with the database's name in place of the file's.
  private func expectSame(
    _ arguments: [String], _ log: String, _ url: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let fromFile = try ReplayProcess.run(arguments + ["--log", log])
    let fromDatabase = try ReplayProcess.run(arguments + ["--log", url])
    #expect(fromDatabase.status == fromFile.status, "\(arguments)", sourceLocation: sourceLocation)
    #expect(fromDatabase.output == fromFile.output, "\(arguments)", sourceLocation: sourceLocation)
    #expect(
      fromDatabase.error.replacingOccurrences(of: url, with: log) == fromFile.error,
      "\(arguments)", sourceLocation: sourceLocation)
  }

  @Test func historyAndExportFromPostgresEqualTheFile() throws {
    try withShippedSample(seed: "pgread") { directory, server, log, url in
      let animal = try server.psql(
        "SELECT substr(stream_name, 8) FROM message_store.messages"
          + " WHERE stream_name LIKE 'animal-%' ORDER BY global_position LIMIT 1"
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(!animal.isEmpty)
      for arguments in [
        ["history", "contact-13"], ["history", "13", "--json"], ["history", "New York"],
        ["history", animal, "--json"], ["history", "contact-1e"], ["history", "nobody-at-all"],
        ["export", "contacts"], ["export", "zipcodes"], ["export", "observations"],
        ["export", "animals"], ["export", "locations", "--format", "geojson"],
        ["export", "contacts", "--at", "60"], ["export", "animals", "--at", "5"],
        ["export", "contacts", "--as-of", "2026-11-02T00:00:00Z"],
      ] {
        try expectSame(arguments, log, url)
      }
      // A sealed contact's history shows its personal data; after a shipped erasure, neither
      // the file nor the database shows it.
      let before = try ReplayProcess.run(["history", "13", "--log", url])
      #expect(before.output.contains("Miss.Piggy@muppetsbaby.com"))
      try eraseContact13(in: log, shippingTo: url)
      try expectSame(["history", "13"], log, url)
      let after = try ReplayProcess.run(["history", "13", "--log", url])
      #expect(after.status == 0)
      #expect(!after.output.contains("Miss"))

      // --output: written atomically, the same bytes as the file's export.
      let fromFile = directory + "/file.json"
      let fromDatabase = directory + "/database.json"
      #expect(
        try ReplayProcess.run(["export", "contacts", "--output", fromFile, "--log", log]).status
          == 0)
      let written = try ReplayProcess.run([
        "export", "contacts", "--output", fromDatabase, "--log", url,
      ])
      #expect(written.status == 0, "\(written.error)")
      #expect(
        FileManager.default.contents(atPath: fromFile)
          == FileManager.default.contents(atPath: fromDatabase))
    }
  }

  /// `verify` on the database: the shipped table passes; a changed byte of a row's data, a
  /// changed byte of its line, a deleted row and two swapped seqs each fail (exit 74), naming
  /// the row and what differs; nothing is changed by the check.
  @Test func verifyFindsTamperedRows() throws {
    try withShippedSample(seed: "pgread") { _, server, log, url in
      let clean = try ReplayProcess.run(["verify", "--log", url])
      #expect(clean.status == 0, "\(clean.output) \(clean.error)")
      #expect(clean.output == "ok: 747 events, \(try streamCount(server)) streams, last seq 747\n")
      let json = try ReplayProcess.run(["verify", "--json", "--log", url])
      #expect(json.output.hasPrefix("{\"valid\":true,\"events\":747,"))
      #expect(
        try ReplayProcess.run([
          "verify", "--digest", "1:" + String(repeating: "0", count: 64), "--log", url,
        ]).status == 64)

      func expectFailure(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation)
        throws
      {
        let result = try ReplayProcess.run(["verify", "--log", url])
        #expect(result.status == 74, sourceLocation: sourceLocation)
        for text in expected {
          #expect(result.output.contains(text), "\(result.output)", sourceLocation: sourceLocation)
        }
        #expect(result.output.contains("FAILED: "), sourceLocation: sourceLocation)
      }

      let actor = try server.psql(
        "SELECT metadata->'actor' FROM message_store.messages WHERE global_position = 3"
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      let update = "UPDATE message_store.messages SET "
      let line = "metadata = jsonb_set(metadata, '{line}', to_jsonb(replace(metadata->>'line', "
      for (change, restore, expected) in [
        // A byte of the data (the line untouched): the server's comparison finds it.
        (
          "data = jsonb_set(data, '{title}', '\"Red-tailed Hawl\"') WHERE global_position = 1",
          "data = jsonb_set(data, '{title}', '\"Red-tailed Hawk\"') WHERE global_position = 1",
          "\(url): global_position 1: data differs from the line's data"
        ),
        // A byte of the line: its checksum fails.
        (
          line + "'Hawk', 'Hawl'))) WHERE global_position = 1",
          line + "'Hawl', 'Hawk'))) WHERE global_position = 1",
          "global_position 1: the line does not read: checksum mismatch"
        ),
        // A metadata field.
        (
          "metadata = jsonb_set(metadata, '{actor}', '\"eve\"') WHERE global_position = 3",
          "metadata = jsonb_set(metadata, '{actor}', '\(actor)') WHERE global_position = 3",
          "global_position 3: metadata differs"
        ),
      ] {
        _ = try server.psql(update + change)
        try expectFailure([expected])
        _ = try server.psql(update + restore)
        #expect(try ReplayProcess.run(["verify", "--log", url]).status == 0)
      }

      // Two seqs swapped.
      _ = try server.psql(
        "UPDATE message_store.messages SET global_position = -global_position"
          + " WHERE global_position IN (20, 21);"
          + " UPDATE message_store.messages SET global_position = CASE global_position"
          + " WHEN -20 THEN 21 ELSE 20 END WHERE global_position IN (-20, -21)")
      try expectFailure([
        "global_position 20: the line does not read", "expected seq 20", "found seq 21",
      ])

      // A row deleted: the gap is named.
      _ = try server.psql("DELETE FROM message_store.messages WHERE global_position = 500")
      try expectFailure(["global_position 501 follows 499: 500...500 are missing"])
      // A sealed contact's key row gone.
      _ = try server.psql("DELETE FROM message_store.replay_keys WHERE contact = '13'")
      try expectFailure(["replay_keys has no key for contact '13'"])
      // The state refuses it as well, naming the database.
      let state = try ReplayProcess.run(["state", "--log", url])
      #expect(state.status != 0)
      #expect(state.error.contains(url))
      // The file is untouched by all of it.
      #expect(try ReplayProcess.run(["verify", "--log", log]).status == 0)
    }
  }

  private func streamCount(_ server: PostgresTestServer) throws -> String {
    try server.psql("SELECT count(DISTINCT stream_name) FROM message_store.messages")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
