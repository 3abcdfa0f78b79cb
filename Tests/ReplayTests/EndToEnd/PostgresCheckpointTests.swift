import Foundation
import Testing

/// `replay checkpoint --log postgresql://…` and `message_store.replay_checkpoints`: `state`
/// starts from the newest checkpoint that still matches the table and equals the file's
/// state; a stale, damaged or foreign checkpoint is never used; an erasure after a checkpoint
/// leaves nothing of the contact readable through it.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresCheckpointTests {
  /// `state --json` (with `extra`) from the file and from the database: the same bytes; the
  /// database's notes (`--verbose`) are returned.
  @discardableResult
  private func expectSameState(
    _ log: String, _ url: String, _ extra: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let fromFile = try ReplayProcess.run(
      ["state", "--json", "--no-checkpoints", "--log", log] + extra)
    let fromDatabase = try ReplayProcess.run(
      ["state", "--json", "--verbose", "--log", url] + extra)
    #expect(fromFile.status == 0, "\(extra) \(fromFile.error)", sourceLocation: sourceLocation)
    #expect(
      fromDatabase.status == 0, "\(extra) \(fromDatabase.error)", sourceLocation: sourceLocation)
    #expect(fromDatabase.output == fromFile.output, "\(extra)", sourceLocation: sourceLocation)
    return fromDatabase.error
  }

  @Test func stateStartsFromTheCheckpointTableAndEqualsTheFile() throws {
    try withInitializedDatabase { directory, server, url in
      // pg init again: nothing to create; the table is part of the schema it checks.
      let again = try ReplayProcess.run(["pg", "init", url])
      #expect(again.status == 0)
      #expect(!again.output.contains("replay_checkpoints"))
      // A table that differs is named, and nothing is changed.
      _ = try server.psql("ALTER TABLE message_store.replay_checkpoints ADD COLUMN note text")
      let differs = try ReplayProcess.run(["pg", "init", url])
      #expect(differs.status == 65)
      #expect(differs.error.contains("replay_checkpoints"), "\(differs.error)")
      _ = try server.psql("ALTER TABLE message_store.replay_checkpoints DROP COLUMN note")
      let log = try PostgresTestSetup.sampleLog(
        in: directory, generating: 500, seed: "pgcheckpoint", shippingTo: url)
      let table = "\(url) (message_store.replay_checkpoints)"
      #expect(
        try ReplayProcess.run(["checkpoint", "--log", url, "--list"]).output
          == "no checkpoints in \(table)\n")
      let saved = try ReplayProcess.run(["checkpoint", "--log", url])
      #expect(saved.status == 0, "\(saved.error)")
      #expect(saved.output == "saved a checkpoint at seq 647 in \(table)\n")
      #expect(
        try ReplayProcess.run(["checkpoint", "--log", url, "--at", "147"]).output
          == "saved a checkpoint at seq 147 in \(table)\n")

      // At the end: from the checkpoint, no row folded.
      var notes = try expectSameState(log, url)
      #expect(notes.contains("starting from the checkpoint at seq 647"), "\(notes)")
      // More events shipped: only the rows after the checkpoint are folded.
      try PostgresTestSetup.generate(300, seed: "pgcheckpoint-2", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      notes = try expectSameState(log, url)
      #expect(notes.contains("starting from the checkpoint at seq 647"), "\(notes)")
      // Ends of the generated writes of 10 events (a seq inside one is refused by both).
      for at in ["157", "397", "647", "657", "947"] {
        try expectSameState(log, url, ["--at", at])
      }
      notes = try expectSameState(log, url, ["--at", "647"])
      #expect(notes.contains("starting from the checkpoint at seq 647"), "\(notes)")
      notes = try expectSameState(log, url, ["--at", "637"])
      #expect(notes.contains("starting from the checkpoint at seq 147"), "\(notes)")
      let inside = try ReplayProcess.run(["state", "--at", "640", "--log", url])
      #expect(inside.status == 65)
      #expect(inside.error.contains("inside the atomic write of events 638...647"))
      for model in ["contacts", "zipcodes", "observations", "animals", "locations"] {
        try expectSameState(log, url, [model])
      }
      notes = try expectSameState(log, url, ["--no-checkpoints"])
      #expect(!notes.contains("checkpoint"))

      // A changed binding: the checkpoint is ignored, never used.
      _ = try server.psql(
        "UPDATE message_store.replay_checkpoints SET line_sha256 = repeat('0', 64) WHERE seq = 647")
      notes = try expectSameState(log, url)
      #expect(notes.contains("checkpoint at seq 647 in message_store.replay_checkpoints ignored"))
      #expect(notes.contains("starting from the checkpoint at seq 147"))
      // Damaged models: ignored too.
      _ = try server.psql(
        "UPDATE message_store.replay_checkpoints SET models = '\\x0102'::bytea WHERE seq = 147")
      notes = try expectSameState(log, url)
      #expect(!notes.contains("starting from"), "\(notes)")
      let list = try ReplayProcess.run(["checkpoint", "--log", url, "--list", "--json"])
      #expect(list.output.contains("\"seq\":647"))
      #expect(list.output.contains("is not the one it was made after"))
      // Saving again rebuilds: the stale one goes.
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      #expect(
        try server.psql(
          "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM message_store.replay_checkpoints")
          == "147,947\n")
      notes = try expectSameState(log, url)
      #expect(notes.contains("starting from the checkpoint at seq 947"))

      // Another log in the same table: its checkpoints no longer match and are not used.
      _ = try server.psql(
        "TRUNCATE message_store.messages RESTART IDENTITY; DELETE FROM message_store.replay_shipped;"
          + " DELETE FROM message_store.replay_keys")
      let other = directory + "/other.jsonl"
      try PostgresTestSetup.generate(1000, seed: "another-log", appendingTo: other)
      try PostgresTestSetup.ship(other, to: url)
      notes = try expectSameState(other, url)
      #expect(!notes.contains("starting from"), "\(notes)")
      #expect(
        try ReplayProcess.run(["checkpoint", "--log", url, "--clear"]).output
          == "removed 2 checkpoints from \(table)\n")

      // The options of a file's checkpoints are refused, not ignored.
      for option in [["--every", "100"], ["--verify"]] {
        #expect(try ReplayProcess.run(["checkpoint", "--log", url] + option).status == 64)
      }
    }
  }

  /// `checkpoint` killed with SIGKILL at random instants: the table holds the old checkpoint
  /// or the new one, never a part of one, and `state` still equals the file.
  @Test func aCheckpointKilledMidSaveLeavesAUsableTable() throws {
    try withInitializedDatabase { directory, server, url in
      let log = try PostgresTestSetup.sampleLog(
        in: directory, generating: 3000, seed: "pgcheckpoint-kill", shippingTo: url)
      #expect(try ReplayProcess.run(["checkpoint", "--log", url, "--at", "1147"]).status == 0)
      var random = SplitMix64(seed: 3737)
      for _ in 0..<6 {
        let process = Process()
        process.executableURL = ReplayProcess.executable
        process.arguments = ["checkpoint", "--log", url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32(50_000 + random.next() % 600_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let saved = try server.psql(
          "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM message_store.replay_checkpoints")
        #expect(saved == "1147\n" || saved == "1147,3147\n", "\(saved)")
        let notes = try expectSameState(log, url)
        #expect(notes.contains("starting from the checkpoint at seq"), "\(notes)")
      }
    }
  }

  @Test func anErasureAfterACheckpointLeavesNoPersonalDataReadableThroughIt() throws {
    try withInitializedDatabase { directory, server, url in
      let log = try PostgresTestSetup.sampleLog(in: directory, shippingTo: url)
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      // Sealed in the table: the contact's data is not there in clear.
      let inClear = try server.psql(
        "SELECT count(*) FROM message_store.replay_checkpoints"
          + " WHERE position(convert_to('Miss.Piggy', 'UTF8') in models) > 0"
          + " OR position(convert_to('muppetsbaby', 'UTF8') in models) > 0")
      #expect(inClear == "0\n")
      let before = try ReplayProcess.run(["state", "contacts", "--id", "13", "--log", url])
      #expect(before.output.contains("Miss.Piggy@muppetsbaby.com"))

      try eraseContact13(in: log, shippingTo: url)
      // Through the checkpoint, at its own seq (no row after it folded): erased.
      for extra in [["contacts", "--id", "13"], ["contacts", "--id", "13", "--at", "147"], []] {
        let notes = try expectSameState(log, url, extra)
        #expect(notes.contains("starting from the checkpoint at seq 147"), "\(extra) \(notes)")
      }
      let contact = try ReplayProcess.run(
        ["state", "contacts", "--id", "13", "--at", "147", "--log", url])
      #expect(contact.status == 0)
      #expect(contact.output.contains("(erased)"))
      #expect(!contact.output.contains("Miss"))
    }
  }
}
