import Foundation
import Testing

/// `--log postgresql://…`: the read models from a shipped database equal the file's, through
/// the same fold, sealed contacts and erasures included.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresStoreTests {
  /// `state --json` (and its status and error) on the file and on the database.
  private func expectSameState(
    _ file: String, _ url: String, _ extra: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let fromFile = try ReplayProcess.run(["state", "--json", "--log", file] + extra)
    let fromDatabase = try ReplayProcess.run(["state", "--json", "--log", url] + extra)
    #expect(fromDatabase.status == fromFile.status, "\(extra)", sourceLocation: sourceLocation)
    #expect(fromDatabase.output == fromFile.output, "\(extra)", sourceLocation: sourceLocation)
    if fromFile.status != 0 {
      // The same refusal, naming the database instead of the file.
      #expect(
        fromDatabase.error.replacingOccurrences(of: url, with: file) == fromFile.error,
        "\(extra)", sourceLocation: sourceLocation)
    }
  }

  @Test func stateFromPostgresEqualsTheFileAtTheEndAtRandomPointsAndAfterAnErasure() throws {
    try withInitializedDatabase { directory, server, url in
      // The sample (every domain, 18 sealed contacts), then generated events after it.
      let log = try PostgresTestSetup.sampleLog(
        in: directory, generating: 2000, seed: "pgstore", shippingTo: url)
      let events = try #require(
        Int(
          try server.psql("SELECT count(*) FROM message_store.messages")
            .trimmingCharacters(in: .whitespacesAndNewlines)))
      #expect(events == 2147)

      // Every row gives back its line byte for byte.
      let lines = try server.psql(
        "SELECT string_agg(metadata->>'line', E'\\n' ORDER BY global_position)"
          + " FROM message_store.messages")
      #expect(lines == (try String(contentsOfFile: log, encoding: .utf8)))
      try expectSameState(log, url, [])
      var random = SplitMix64(seed: 37)
      for _ in 0..<12 {
        try expectSameState(log, url, ["--at", String(Int(random.next() % UInt64(events + 1)))])
      }
      for _ in 0..<12 {
        // The end of a generated write of 10 events.
        let at = 147 + 10 * Int(random.next() % 201)
        try expectSameState(log, url, ["--at", String(at)])
      }
      try expectSameState(log, url, ["--at", "0"])
      try expectSameState(log, url, ["--at", String(events + 1)])
      for _ in 0..<4 {
        let position = 1 + Int(random.next() % UInt64(events))
        let at = try server.psql(
          "SELECT metadata->>'at' FROM message_store.messages WHERE global_position = \(position)"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        try expectSameState(log, url, ["--as-of", at])
      }
      for model in ["contacts", "zipcodes", "observations", "animals", "locations"] {
        try expectSameState(log, url, [model])
      }
      // The table-form header names the database without its password.
      let table = try ReplayProcess.run(["state", "contacts", "--log", url])
      #expect(table.status == 0)
      #expect(table.output.hasPrefix("\(url) at seq \(events)\n"))

      // log, diff and nearest: the same output from both.
      let location = try server.psql(
        "SELECT substr(stream_name, 10) FROM message_store.messages"
          + " WHERE stream_name LIKE 'location-%' ORDER BY global_position LIMIT 1"
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      for arguments in [
        ["log", "--json"], ["log"], ["log", "--stream", "contact-13", "--json"],
        ["log", "--category", "location", "--from", "100", "--to", "900", "--json"],
        ["log", "--type", "ContactAdded", "--limit", "5"],
        ["diff", "contacts", "--from", "147", "--to", "1147", "--json"],
        ["diff", "locations", "--from", "0", "--json"], ["diff", "observations", "--from", "557"],
        ["nearest", location, "--k", "5", "--json"], ["nearest", location, "--at", "1047"],
      ] {
        let fromFile = try ReplayProcess.run(arguments + ["--log", log])
        let fromDatabase = try ReplayProcess.run(arguments + ["--log", url])
        #expect(fromFile.status == 0, "\(arguments): \(fromFile.error)")
        #expect(fromDatabase.status == 0, "\(arguments): \(fromDatabase.error)")
        #expect(fromDatabase.output == fromFile.output, "\(arguments)")
        #expect(!fromFile.output.isEmpty, "\(arguments)")
      }

      let before = try ReplayProcess.run(["state", "contacts", "--id", "13", "--log", url])
      #expect(before.output.contains("Miss.Piggy@muppetsbaby.com"))
      // An erasure in the file, shipped: the key is destroyed in the table too.
      let erased = try ReplayProcess.run(
        ["contacts", "erase", "13", "--log", log, "--actor", "dpo", "--reason", "request"])
      #expect(erased.status == 0, "\(erased.error)")
      #expect(try ReplayProcess.run(["ship", "--log", log, "--to", url]).status == 0)
      #expect(
        try server.psql(
          "SELECT count(*), count(key) FROM message_store.replay_keys WHERE contact = '13'")
          == "1|0\n")
      try expectSameState(log, url, [])
      let contact = try ReplayProcess.run(["state", "contacts", "--id", "13", "--log", url])
      #expect(contact.status == 0)
      #expect(contact.output.contains("(erased)"))
      #expect(!contact.output.contains("Miss"))
    }
  }

  @Test func aDatabaseShippedWithoutLinesOrWithoutTheSchemaIsAClearError() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let url = server.url()
      let missing = try ReplayProcess.run(["state", "--log", url])
      #expect(missing.status == 65)
      #expect(missing.error.contains("run 'replay pg init <url>' first"))
      #expect(try ReplayProcess.run(["pg", "init", url]).status == 0)
      let log = try PostgresTestSetup.sampleLog(in: directory, shippingTo: url)
      // What an older shipper wrote: no line in the metadata.
      _ = try server.psql(
        "UPDATE message_store.messages SET metadata = metadata - 'line' WHERE global_position = 5")
      let old = try ReplayProcess.run(["state", "--log", url])
      #expect(old.status == 65)
      #expect(old.error.contains("global_position 5 holds no line"))
      #expect(old.output == "")
      // Following it finds the same row.
      for arguments in [["state", "-f"], ["log", "-f"]] {
        let follow = try ReplayProcess.run(arguments + ["--log", url])
        #expect(follow.status == 65, "\(arguments)")
        #expect(follow.error.contains("global_position 5 holds no line"), "\(arguments)")
      }
      for arguments in [["generate", "--seed", "s", "--events", "5"], ["repair"]] {
        let refused = try ReplayProcess.run(arguments + ["--log", url], directory: directory)
        #expect(refused.status == 64, "\(arguments)")
        #expect(refused.error.contains("does not work on a log kept in PostgreSQL yet"))
        // Nothing taken for a file name.
        #expect(!FileManager.default.fileExists(atPath: directory + "/postgresql:"))
      }
    }
  }
}
