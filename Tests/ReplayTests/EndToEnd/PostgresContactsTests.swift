import Foundation
import Testing

/// Contacts' personal data through `--log postgresql://…`: `append` seals `ContactAdded` and
/// `ContactUpdated` as the file does (a seed gives the file's bytes), the key goes into
/// `replay_keys` in the rows' transaction (a kill, a conflict or a race leaves no key without
/// its rows and never two keys for a contact), and `contacts erase` leaves the contact's
/// personal data readable from no table.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresContactsTests {
  private static let environment = [
    "REPLAY_ID_SEED": "pgcontacts", "REPLAY_CLOCK": "2026-11-27T12:00:00Z",
    "REPLAY_INSECURE_SEALING_SEED": "pgcontacts",
  ]

  /// A schema 1 `ContactAdded` line for `append --file`.
  private static func addedLine(_ id: Int, name: String? = nil, expectedVersion: String? = nil)
    -> String
  {
    let name = name ?? "Person \(id) Quill"
    let expected = expectedVersion.map { #","expectedVersion":\#($0)"# } ?? ""
    return
      #"{"stream":"contact-\#(id)","type":"ContactAdded","data":{"id":"\#(id)","name":"\#(name)","isFavorite":false,"emailAddress":"person\#(id)@example.org","phone":{"mobile":"+1 555 \#(1000 + id)"},"source":"t"}\#(expected)}"#
      + "\n"
  }

  /// A `replay append --file <batch> --log <url>` process, not started, its output dropped.
  private static func appending(_ batch: String, to url: String) -> Process {
    let process = Process()
    process.executableURL = ReplayProcess.executable
    process.arguments = ["append", "--file", batch, "--log", url]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    return process
  }

  private static func started(_ process: Process) throws -> Process {
    try process.run()
    return process
  }

  private static func count(_ server: PostgresTestServer, _ sql: String) throws -> Int {
    Int(try server.psql(sql).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  /// Rows sealed under a key `replay_keys` lacks, plus keys no row is sealed under: 0 when
  /// keys and rows went in together.
  private static func unpairedKeysAndRows(_ server: PostgresTestServer) throws -> Int {
    try count(
      server,
      """
      SELECT (SELECT count(*) FROM message_store.messages m WHERE m.data ? 'key' AND NOT EXISTS
          (SELECT 1 FROM message_store.replay_keys k WHERE k.key_id = m.data->>'key'))
        + (SELECT count(*) FROM message_store.replay_keys k WHERE NOT EXISTS
          (SELECT 1 FROM message_store.messages m WHERE m.data->>'key' = k.key_id))
      """)
  }

  /// Every row of every table outside PostgreSQL's own schemas, as text.
  private static func everyTable(_ server: PostgresTestServer) throws -> String {
    let tables = try server.psql(
      """
      SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
      """
    ).split(separator: "\n")
    #expect(tables.contains("message_store.replay_checkpoints"))
    var text = ""
    for table in tables {
      text += table + "\n" + (try server.psql("SELECT t::text FROM \(table) t"))
    }
    // A checkpoint's models as their bytes, where text in clear would show.
    return text
      + (try server.psql("SELECT encode(models, 'escape') FROM message_store.replay_checkpoints"))
  }

  /// Runs each command on `file` and on the database at `url` (seeded): the status given and
  /// the same output on both; then the rows' lines equal the file and `state contacts --json`
  /// and `history contact-2` read the same from both. Returns the rows' lines.
  private static func expectSame(
    _ commands: [(arguments: [String], status: Int32)], file: String, url: String,
    server: PostgresTestServer
  ) throws -> String {
    for command in commands {
      let results = try [file, url].map {
        try ReplayProcess.run(command.arguments + ["--log", $0], environment: environment)
      }
      for result in results {
        #expect(result.status == command.status, "\(command): \(result.error)")
      }
      // An erasure's JSON counts checkpoints: neither store has any here.
      #expect(results[1].output == results[0].output, "\(command)")
    }
    let rows = try server.psql(
      "SELECT metadata->>'line' FROM message_store.messages ORDER BY global_position")
    #expect(rows == (try String(contentsOfFile: file, encoding: .utf8)))
    for model in [["state", "contacts", "--json"], ["history", "contact-2"]] {
      let fromFile = try ReplayProcess.run(model + ["--log", file])
      let fromDatabase = try ReplayProcess.run(model + ["--log", url])
      #expect(fromDatabase.status == 0 && fromDatabase.output == fromFile.output, "\(model)")
    }
    return rows
  }

  /// `import contacts` into a database seals as into a file, and `--include-erased` brings an
  /// erased contact back under a new key there too.
  @Test func importedContactsAreSealedAsInTheFile() throws {
    try withInitializedDatabase { directory, server, url in
      let source = RepositoryFiles.seedDataPath("contacts-v3.json")
      let rows = try Self.expectSame(
        [
          (["import", "contacts", source], 0),
          (["contacts", "erase", "2", "--json"], 0),
          (["import", "contacts", source], 0),
          (["import", "contacts", source, "--include-erased"], 0),
        ], file: directory + "/events.jsonl", url: url, server: server)
      #expect(rows.split(separator: "\n").count == 20)
      #expect(
        try Self.count(server, "SELECT count(*) FROM message_store.replay_keys WHERE key IS NULL")
          == 1)
      #expect(try Self.unpairedKeysAndRows(server) == 0)
    }
  }

  @Test func contactsWrittenThroughTheDatabaseEqualTheFile() throws {
    try withInitializedDatabase { directory, server, url in
      let file = directory + "/events.jsonl"
      let batch = directory + "/batch.jsonl"
      try
        (Self.addedLine(2) + Self.addedLine(3)
        + #"{"stream":"contact-1","type":"ContactUpdated","data":{"id":"1","name":"Ana Lima Neto","emailAddress":"neto@example.org"}}"#
        + "\n" + #"{"stream":"contact-2","type":"ContactFavorited","data":{"id":"2"}}"# + "\n")
        .write(toFile: batch, atomically: true, encoding: .utf8)
      let readd = directory + "/readd.jsonl"
      try Self.addedLine(2, name: "Bo Returns").write(
        toFile: readd, atomically: true, encoding: .utf8)
      let commands: [(arguments: [String], status: Int32)] = [
        (
          [
            "append", "--stream", "contact-1", "--type", "ContactAdded", "--data",
            #"{"id":"1","name":"Ana Lima","isFavorite":false,"emailAddress":"ana@example.org","source":"t"}"#,
          ], 0
        ),
        (["append", "--file", batch], 0),
        (["contacts", "favorite", "1"], 0),
        (["contacts", "erase", "2", "--actor", "dpo", "--reason", "request", "--json"], 0),
        (["contacts", "erase", "2"], 0),
        (["contacts", "erase", "99"], 65),
        (["append", "--file", readd], 0),
        (["contacts", "unfavorite", "1", "--expected-version", "1"], 3),
      ]
      let rows = try Self.expectSame(commands, file: file, url: url, server: server)
      #expect(rows.contains("ContactErased") && !rows.contains("Ana Lima"))
      let state = try ReplayProcess.run(["state", "contacts", "--log", url]).output
      #expect(state.contains("Ana Lima Neto") && state.contains("Bo Returns"))
      // The erased contact's first key is NULL; its re-add got a second.
      #expect(
        try server.psql(
          "SELECT key IS NULL FROM message_store.replay_keys WHERE contact = '2' ORDER BY 1")
          == "f\nt\n")

      // A conflict in a write that would make a key: exit 3, no key, no row.
      let conflicting = directory + "/conflicting.jsonl"
      try (Self.addedLine(52) + Self.addedLine(1, expectedVersion: #""no-stream""#))
        .write(toFile: conflicting, atomically: true, encoding: .utf8)
      let before = try Self.everyTable(server)
      for log in [file, url] {
        let refused = try ReplayProcess.run(
          ["append", "--file", conflicting, "--log", log], environment: Self.environment)
        #expect(refused.status == 3, "\(refused.error)")
      }
      #expect(try Self.everyTable(server) == before)
      #expect(
        try Self.count(
          server, "SELECT count(*) FROM message_store.replay_keys WHERE contact = '52'")
          == 0)
      #expect(try Self.unpairedKeysAndRows(server) == 0)
    }
  }

  /// `kill -9` of a writer at random instants of `append --file` of 3,000 new contacts: each
  /// write is all there (its rows and their keys) or not at all, and no key is left without
  /// a row sealed under it, nor a row without its key.
  @Test func aWriterKilledMidWriteLeavesKeysAndRowsTogether() throws {
    try withInitializedDatabase { directory, server, url in
      var random = SplitMix64(seed: TestSeed.make())
      var rows = 0
      for round in 0..<5 {
        let batch = directory + "/batch-\(round).jsonl"
        try (0..<3000).map { Self.addedLine(round * 10_000 + $0) }.joined()
          .write(toFile: batch, atomically: true, encoding: .utf8)
        let writer = try Self.started(Self.appending(batch, to: url))
        Thread.sleep(forTimeInterval: Double(random.next() % 1500) / 1000)
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        let now = try Self.count(server, "SELECT count(*) FROM message_store.messages")
        let keys = try Self.count(server, "SELECT count(*) FROM message_store.replay_keys")
        #expect(now == rows || now == rows + 3000, "round \(round): \(now) rows")
        #expect(keys == now, "round \(round): \(keys) keys for \(now) rows")
        #expect(try Self.unpairedKeysAndRows(server) == 0, "round \(round)")
        rows = now
      }
      let verified = try ReplayProcess.run(["verify", "--log", url])
      #expect(verified.status == 0, "\(verified.output) \(verified.error)")
    }
  }

  /// Four writers adding the same new contacts at once: each contact gets one key, and all of
  /// its rows are sealed under it.
  @Test func writersRacingToAddOneNewContactMakeOneKey() throws {
    try withInitializedDatabase { directory, server, url in
      var random = SplitMix64(seed: TestSeed.make())
      for round in 0..<3 {
        let contacts = (0..<5).map { 100 * round + $0 }
        var writers: [Process] = []
        for member in 0..<4 {
          let batch = directory + "/race-\(round)-\(member).jsonl"
          try contacts.shuffled(using: &random).map { Self.addedLine($0) }.joined()
            .write(toFile: batch, atomically: true, encoding: .utf8)
          writers.append(Self.appending(batch, to: url))
        }
        for writer in writers { try writer.run() }
        for writer in writers {
          writer.waitUntilExit()
          #expect(writer.terminationStatus == 0)
        }
      }
      #expect(try Self.count(server, "SELECT count(*) FROM message_store.messages") == 60)
      #expect(
        try Self.count(server, "SELECT count(DISTINCT contact) FROM message_store.replay_keys")
          == 15)
      #expect(try Self.count(server, "SELECT count(*) FROM message_store.replay_keys") == 15)
      #expect(
        try Self.count(
          server,
          """
          SELECT count(*) FROM (SELECT data->>'id' FROM message_store.messages
            GROUP BY data->>'id' HAVING count(DISTINCT data->>'key') > 1) AS split
          """) == 0)
      #expect(try Self.unpairedKeysAndRows(server) == 0)
    }
  }

  /// After `contacts erase`, nothing of the contact's personal data is readable from any
  /// table: no name, email or phone in clear, the key NULL, and the key's bytes gone from the
  /// table's file on disk (`VACUUM FULL` rewrote it without the old row version); the
  /// checkpoints that held the contact are gone.
  @Test func erasureLeavesThePersonalDataInNoTable() throws {
    try withInitializedDatabase { directory, server, url in
      let batch = directory + "/batch.jsonl"
      try (Self.addedLine(7, name: "Zelda Quartz") + Self.addedLine(8))
        .write(toFile: batch, atomically: true, encoding: .utf8)
      #expect(try ReplayProcess.run(["append", "--file", batch, "--log", url]).status == 0)
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      let shown = try ReplayProcess.run(["state", "contacts", "--json", "--log", url]).output
      #expect(shown.contains("Zelda Quartz") && shown.contains("person7@example.org"))
      let key = try server.psql(
        "SELECT encode(key, 'hex') FROM message_store.replay_keys WHERE contact = '7'"
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(key.count == 64)
      let keyBytes = Data(
        stride(from: 0, to: key.count, by: 2).compactMap {
          UInt8(key.dropFirst($0).prefix(2), radix: 16)
        })
      // The table's file holds the key's bytes before the erasure.
      func tableFileHoldsKey() throws -> Bool {
        _ = try server.psql("CHECKPOINT")
        let relative = try server.psql(
          "SELECT pg_relation_filepath('message_store.replay_keys')"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: server.folder + "/data/" + relative))
        return bytes.range(of: keyBytes) != nil
      }
      #expect(try tableFileHoldsKey())

      let erased = try ReplayProcess.run(
        ["contacts", "erase", "7", "--actor", "dpo", "--reason", "request", "--log", url])
      #expect(erased.status == 0, "\(erased.error)")
      #expect(erased.output.contains("destroyed 1 key in \(url) (message_store.replay_keys)"))
      #expect(erased.output.contains("removed 1 checkpoint"))
      let tables = try Self.everyTable(server)
      for personal in ["Zelda", "Quartz", "person7@example.org", "555 1007", key] {
        #expect(!tables.contains(personal), "\(personal) is still in a table")
      }
      #expect(try !tableFileHoldsKey())
      #expect(try Self.count(server, "SELECT count(*) FROM message_store.replay_checkpoints") == 0)
      let after = try ReplayProcess.run(["state", "contacts", "--json", "--log", url]).output
      #expect(!after.contains("Zelda") && after.contains("(erased)") && after.contains("Person 8"))
      let history = try ReplayProcess.run(["history", "contact-7", "--log", url]).output
      #expect(!history.contains("Zelda") && history.contains("ContactErased"))
    }
  }
}
