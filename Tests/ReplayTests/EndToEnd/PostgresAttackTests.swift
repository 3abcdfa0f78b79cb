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
  /// command.
  @Test(arguments: [
    "postgresql://ana:se%zzcret@127.0.0.1:1/app",
    "postgresql://ana:secret%@127.0.0.1:1/app",
    "postgresql://ana:secret@[::1/app",
    "postgresql://ana:secret@127.0.0.1:1/app?sslmode=bogus",
    "postgresql://127.0.0.1:1/app?password=secret&bogus=1",
  ])
  func aPasswordNeverShowsInAnErrorAboutTheURL(url: String) throws {
    try withTemporaryDirectory { directory in
      for arguments in [
        ["stats"], ["report", "--output", directory + "/report.html"],
        ["contacts", "erase", "13"],
      ] {
        let result = try ReplayProcess.run(arguments + ["--log", url])
        #expect(result.status == 69, "\(arguments): \(result.error)")
        #expect(result.error.hasPrefix("Error: cannot connect to PostgreSQL at '"))
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
