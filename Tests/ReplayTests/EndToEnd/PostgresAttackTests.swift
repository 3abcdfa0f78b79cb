import Foundation
import ReplayTestSupport
import Testing

/// A hostile pass over the commands that work on `--log postgresql://…`: URLs libpq cannot
/// parse, users the server does not know, and an erasure whose `VACUUM FULL` cannot run. Each
/// test pins a defect found by attacking the release binary against a real server.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresAttackTests {
  /// libpq quotes what it cannot parse (a percent escape, a query parameter, the whole URI), so
  /// its message can hold the password the URL carries: it is never printed, whatever the
  /// command. A URL libpq cannot parse is a usage error (64), not an unreachable server (69):
  /// trying again cannot help; a value libpq checks only when it connects (`sslmode`) is 69.
  @Test(
    arguments: zip(
      [
        "postgresql://ana:se%zzcret@127.0.0.1:1/app",
        "postgresql://ana:secret%@127.0.0.1:1/app",
        "postgresql://ana:secret@[::1/app",
        "postgresql://127.0.0.1:1/app?password=secret&bogus=1",
        "postgresql://ana:secret@127.0.0.1:1/app?sslmode=bogus",
      ], [64, 64, 64, 64, 69] as [Int32]))
  func aPasswordNeverShowsInAnErrorAboutTheURL(url: String, status: Int32) throws {
    try withTemporaryDirectory { directory in
      for arguments in [
        ["stats"], ["report", "--output", directory + "/report.html"],
        ["contacts", "erase", "13"],
      ] {
        let result = try ReplayProcess.run(arguments + ["--log", url])
        #expect(result.status == status, "\(arguments): \(result.error)")
        #expect(
          result.error.hasPrefix(
            status == 64 ? "Error: 'postgresql://" : "Error: cannot connect to PostgreSQL at '"),
          "\(result.error)")
        #expect(!result.error.contains("secret"), "\(arguments): \(result.error)")
        #expect(!result.error.contains("zzcret"), "\(arguments): \(result.error)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/report.html"))
      }
    }
  }

  /// A user the server does not know is refused credentials (exit 77), as a wrong password is,
  /// not an unreachable server (69).
  @Test func aUserTheServerDoesNotKnowIsRefusedCredentials() throws {
    try withInitializedDatabase { _, server, _ in
      let url = server.url(user: "nobody_here")
      for arguments in [["stats"], ["state", "contacts"], ["contacts", "erase", "13"]] {
        let result = try ReplayProcess.run(arguments + ["--log", url])
        #expect(result.status == 77, "\(arguments): \(result.error)")
        #expect(result.error.contains("refused the credentials"), "\(result.error)")
        #expect(result.error.contains("role \"nobody_here\" does not exist"), "\(result.error)")
      }
    }
  }

  /// `contacts erase` commits the append, the key set to NULL and the checkpoints deleted,
  /// then runs `VACUUM FULL`, which waits for every reader of the table. When it cannot run
  /// (here a reader holds `replay_keys` past `--lock-timeout`), the command says what was
  /// committed and that the vacuum is still to run, never that nothing was kept; running it
  /// again appends nothing and vacuums.
  @Test func anErasureWhoseVacuumCannotRunSaysWhatWasCommitted() throws {
    try withInitializedDatabase { _, server, url in
      let imported = try ReplayProcess.run(
        ["import", "contacts", RepositoryFiles.seedDataPath("contacts-v3.json"), "--log", url])
      #expect(imported.status == 0, "\(imported.error)")
      let reader = try Self.holdingReplayKeys(server)
      defer {
        _ = try? server.psql(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'"
        )
        reader.waitUntilExit()
      }
      let erased = try ReplayProcess.run(
        ["contacts", "erase", "13", "--lock-timeout", "1", "--log", url])
      #expect(erased.status == 75, "\(erased.error)")
      #expect(erased.output.hasPrefix("appended ContactErased to contact-13 (seq 19, version 2)\n"))
      #expect(erased.output.contains("destroyed 1 key in"))
      #expect(!erased.error.contains("nothing of it was kept"), "\(erased.error)")
      #expect(
        erased.error.contains(
          "the erasure of contact 13 is committed (every read shows it as erased), but VACUUM FULL message_store.replay_keys did not run: canceling statement due to lock timeout;"
        ), "\(erased.error)")
      #expect(erased.error.contains("run 'replay contacts erase 13' again"), "\(erased.error)")
      // Committed: the key is NULL, and every read shows the contact as erased.
      #expect(
        try server.psql(
          "SELECT count(*) FROM message_store.replay_keys WHERE contact = '13' AND key IS NOT NULL"
        ).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
      let state = try ReplayProcess.run(["state", "contacts", "--log", url])
      #expect(state.status == 0 && !state.output.contains("Miss Piggy"), "\(state.error)")

      _ = try server.psql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'")
      reader.waitUntilExit()
      let again = try ReplayProcess.run(["contacts", "erase", "13", "--log", url])
      #expect(again.status == 0, "\(again.error)")
      #expect(again.output.hasPrefix("nothing appended"), "\(again.output)")
    }
  }

  /// `replay_checkpoints` is a cache: a table altered by hand so that it cannot hold
  /// checkpoints (a column dropped) is passed over by the readers, which read every row, and
  /// named by the commands that write or list it (exit 65, as `pg init` names a difference),
  /// never an SQL error that stops `state`.
  @Test func aCheckpointTableAlteredByHandIsPassedOverByReaders() throws {
    try withShippedSample(generating: 200, seed: "altered") { directory, server, _, url in
      let saved = try ReplayProcess.run(["checkpoint", "--log", url])
      #expect(saved.status == 0, "\(saved.error)")
      try server.psql("ALTER TABLE message_store.replay_checkpoints DROP COLUMN models")
      let everyRow = try ReplayProcess.run(["state", "--json", "--no-checkpoints", "--log", url])
      let state = try ReplayProcess.run(["state", "--json", "--verbose", "--log", url])
      #expect(state.status == 0, "\(state.error)")
      #expect(state.output == everyRow.output)
      let difference = "table message_store.replay_checkpoints has no column models"
      #expect(
        state.error.contains("message_store.replay_checkpoints ignored: " + difference),
        "\(state.error)")
      let report = try ReplayProcess.run(
        ["report", "--output", directory + "/report.html", "--log", url])
      #expect(report.status == 0, "\(report.error)")
      for arguments in [["checkpoint"], ["checkpoint", "--list"]] {
        let refused = try ReplayProcess.run(arguments + ["--log", url])
        #expect(refused.status == 65, "\(arguments): \(refused.error)")
        #expect(refused.error.contains(difference + "; change or drop it by hand"))
      }
    }
  }

  /// A shipping batch rolled back (killed, cut off) burns values of `global_position`'s
  /// sequence; the shipper sets each row's `global_position` to its seq, so the rows shipped
  /// after it still sit where every reader looks for them: `verify` passes, and `state` from a
  /// checkpoint equals the file's state.
  @Test func aRolledBackShippingBatchLeavesNoGapInThePositions() throws {
    try withShippedSample(generating: 100, seed: "burned") { directory, server, log, url in
      _ = try server.psql(
        "SELECT nextval(pg_get_serial_sequence('message_store.messages', 'global_position'))"
          + " FROM generate_series(1, 5)")
      try PostgresTestSetup.generate(200, seed: "burned-2", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      let misplaced = try server.psql(
        "SELECT count(*) FROM message_store.messages"
          + " WHERE global_position <> (metadata->>'seq')::bigint")
      #expect(misplaced.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
      let verified = try ReplayProcess.run(["verify", "--log", url])
      #expect(verified.status == 0, "\(verified.output)\(verified.error)")
      let saved = try ReplayProcess.run(["checkpoint", "--log", url])
      #expect(saved.status == 0, "\(saved.error)")
      try PostgresTestSetup.generate(50, seed: "burned-3", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      let state = try ReplayProcess.run(["state", "--json", "--verbose", "--log", url])
      let file = try ReplayProcess.run(["state", "--json", "--no-checkpoints", "--log", log])
      #expect(state.status == 0, "\(state.error)")
      #expect(state.output == file.output)
      #expect(state.error.contains("checkpoint at seq"), "\(state.error)")
    }
  }

  /// A column of the tables every command reads altered to another type by hand is named as
  /// `pg init` names it (exit 65, nothing written), not an SQL error about `encode(text, …)`.
  @Test func aKeyColumnAlteredByHandIsNamedWithTheTypeExpected() throws {
    try withShippedSample(generating: 0, seed: "retyped") { _, server, _, url in
      try server.psql("ALTER TABLE message_store.replay_keys ALTER COLUMN key TYPE text")
      for arguments in [["state", "contacts"], ["history", "contact-13"], ["stats"]] {
        let result = try ReplayProcess.run(arguments + ["--log", url])
        #expect(result.status == 65, "\(arguments): \(result.error)")
        #expect(
          result.error.contains(
            "table message_store.replay_keys: column key is 'text', expected 'bytea'; change or drop it by hand"
          ), "\(arguments): \(result.error)")
      }
    }
  }

  /// A server whose disk fills during an import keeps nothing of it and the command says so as
  /// an I/O error (exit 74, as a full disk under a log file is), not as refused input (65). The
  /// database lives in a tablespace on a 4 MB tmpfs, which needs root and `CAP_SYS_ADMIN`.
  @Test(.enabled(if: canMountFileSystems, "mounting a small tmpfs needs root and CAP_SYS_ADMIN"))
  func aServerWhoseDiskFillsKeepsNothingAndIsAnIOError() throws {
    try withInitializedDatabase { directory, server, url in
      let small = server.folder + "/small"
      try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: false)
      try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", small])
      // Lazily: the server's background processes may still hold a file there.
      defer { try? Self.run("/bin/umount", ["-l", small]) }
      try FileManager.default.setAttributes(
        [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: small)
      try server.psql("CREATE TABLESPACE small LOCATION '\(small)'")
      try server.psql("CREATE DATABASE full_disk TABLESPACE small")
      // Before the unmount, whatever failed: a server that cannot write there cannot stop.
      defer {
        _ = try? server.psql("DROP DATABASE full_disk WITH (FORCE)")
        _ = try? server.psql("DROP TABLESPACE small")
      }
      let fullURL = String(url.dropLast("postgres".count)) + "full_disk"
      let initialized = try ReplayProcess.run(["pg", "init", fullURL])
      #expect(initialized.status == 0, "\(initialized.error)")
      let template = try #require(
        try JSONSerialization.jsonObject(
          with: Data(RepositoryFiles.seedData("contacts-v3.json"))) as? [[String: Any]]
      ).first
      let contacts = (0..<20_000).map { index -> [String: Any] in
        var contact = template ?? [:]
        contact["id"] = String(100_000 + index)
        contact["name"] = "Person \(index)"
        return contact
      }
      let source = directory + "/contacts.json"
      try JSONSerialization.data(withJSONObject: contacts).write(
        to: URL(fileURLWithPath: source))
      let imported = try ReplayProcess.run(["import", "contacts", source, "--log", fullURL])
      #expect(imported.status == 74, "\(imported.error)")
      #expect(imported.error.contains("No space left on device"), "\(imported.error)")
      #expect(imported.error.contains("nothing of it was kept"), "\(imported.error)")
      let counted = try ReplayProcess.run(["stats", "--json", "--log", fullURL])
      #expect(counted.status == 0, "\(counted.error)")
      #expect(counted.output.hasPrefix("{\"events\":0,"), "\(counted.output)")
    }
  }

  /// Whether this process may mount a file system: root with `CAP_SYS_ADMIN` (bit 21 of
  /// `CapEff` in `/proc/self/status`).
  static var canMountFileSystems: Bool {
    guard geteuid() == 0,
      let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
      let mask = UInt64(
        line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << 21) != 0
  }

  /// Runs `program` with `arguments`; throws when it fails.
  private static func run(_ program: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CommandFailed(program: program) }
  }

  private struct CommandFailed: Error {
    var program: String
  }

  /// `contacts erase` raced by readers in loops (`state contacts`, `history contact-13`, and
  /// `checkpoint`, which folds and saves): no read that starts after the erase returned shows
  /// the contact's name.
  @Test func readersRacingAnErasureNeverShowItsDataAfterItReturned() throws {
    try withInitializedDatabase { directory, _, url in
      let imported = try ReplayProcess.run(
        ["import", "contacts", RepositoryFiles.seedDataPath("contacts-v3.json"), "--log", url])
      #expect(imported.status == 0, "\(imported.error)")
      let readers = Process()
      readers.executableURL = URL(fileURLWithPath: "/bin/bash")
      readers.arguments = [
        "-c",
        """
        for reader in 'state contacts' 'history contact-13' 'checkpoint'; do
          ( while [ ! -e "$1/stop" ]; do
              started=$(date +%s.%N)
              seen=$("$0" $reader --log "$2" 2>&1 | grep -c 'Miss Piggy')
              echo "$started $seen" >> "$1/${reader%% *}.reads"
            done ) &
        done
        wait
        """,
        ReplayProcess.executable.path, directory, url,
      ]
      try readers.run()
      Thread.sleep(forTimeInterval: 1.5)
      let erased = try ReplayProcess.run(
        ["contacts", "erase", "13", "--actor", "dpo", "--reason", "request", "--log", url])
      let returned = Date().timeIntervalSince1970
      #expect(erased.status == 0, "\(erased.error)")
      Thread.sleep(forTimeInterval: 2)
      FileManager.default.createFile(atPath: directory + "/stop", contents: nil)
      readers.waitUntilExit()
      // The checkpoint reader only races (its saves feed the state reader); the two others show
      // names.
      for reader in ["state", "history"] {
        let reads = try String(contentsOfFile: "\(directory)/\(reader).reads", encoding: .utf8)
          .split(separator: "\n").compactMap { line -> (started: Double, seen: Int)? in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let started = Double(fields[0]), let seen = Int(fields[1])
            else { return nil }
            return (started, seen)
          }
        let after = reads.filter { $0.started > returned }
        #expect(!after.isEmpty, "\(reader): no read after the erasure")
        #expect(after.allSatisfy { $0.seen == 0 }, "\(reader): \(after)")
      }
      // The state reader saw the name before: the race was run, not only its end.
      let before = try String(contentsOfFile: directory + "/state.reads", encoding: .utf8)
      #expect(before.split(separator: "\n").contains { $0.hasSuffix(" 1") })
    }
  }

  /// `kill -9` of `contacts erase` at seeded random instants (`TestSeed` prints the seed) leaves either nothing (no
  /// `ContactErased`, the key there) or the whole erasure (`ContactErased`, the key NULL, no
  /// checkpoint left), and running it again ends erased with exit 0.
  @Test func anErasureKilledAtAnyInstantLeavesNothingOrAllOfIt() throws {
    try withInitializedDatabase { _, server, url in
      let imported = try ReplayProcess.run(
        ["import", "contacts", RepositoryFiles.seedDataPath("contacts-v3.json"), "--log", url])
      #expect(imported.status == 0, "\(imported.error)")
      var random = SplitMix64(seed: TestSeed.make())
      for contact in ["19", "1", "15", "3", "4", "6", "12", "0"] {
        let saved = try ReplayProcess.run(["checkpoint", "--log", url])
        #expect(saved.status == 0, "\(saved.error)")
        try ReplayProcess.killDashNine(
          ["contacts", "erase", contact, "--log", url],
          after: Double(random.next() % 120) / 1000)
        let history = try ReplayProcess.run(["history", "contact-\(contact)", "--log", url])
        let isErased = history.output.contains("ContactErased")
        let liveKeys = try server.psql(
          "SELECT count(*) FROM message_store.replay_keys WHERE contact = '\(contact)' AND key IS NOT NULL"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let checkpoints = try server.psql("SELECT count(*) FROM message_store.replay_checkpoints")
          .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
          isErased ? liveKeys == "0" && checkpoints == "0" : liveKeys == "1" && checkpoints == "1",
          "contact \(contact): erased \(isErased), live keys \(liveKeys), checkpoints \(checkpoints)"
        )
        let again = try ReplayProcess.run(["contacts", "erase", contact, "--log", url])
        #expect(again.status == 0, "contact \(contact): \(again.error)")
        let state = try ReplayProcess.run(["history", "contact-\(contact)", "--log", url])
        #expect(state.output.contains("ContactErased") && state.output.contains("name: (erased)"))
      }
    }
  }

  /// A `psql` session, named `holder`, that reads `replay_keys` in a transaction it keeps open
  /// (its lock blocks `VACUUM FULL`), started once the lock is granted.
  private static func holdingReplayKeys(_ server: PostgresTestServer) throws -> Process {
    let binaries = try #require(PostgresTestServer.binaries)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binaries + "/psql")
    process.arguments = [
      server.url() + "?application_name=holder", "-q", "-c",
      "BEGIN; SELECT count(*) FROM message_store.replay_keys; SELECT pg_sleep(120);",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    for _ in 0..<300 {
      let held = try server.psql(
        """
        SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE a.application_name = 'holder' AND l.granted
          AND l.relation = 'message_store.replay_keys'::regclass
        """)
      if held.trimmingCharacters(in: .whitespacesAndNewlines) != "0" { return process }
      Thread.sleep(forTimeInterval: 0.05)
    }
    process.terminate()
    throw HolderNeverLocked()
  }

  private struct HolderNeverLocked: Error {}
}
