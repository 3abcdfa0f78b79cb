import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct ShipCommandTests {
  @Test func withoutLibpqTheCommandSaysHowToInstallItAndExits69() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let before = try Data(contentsOf: URL(fileURLWithPath: log))
      for arguments in [
        ["pg", "init", "postgresql://nobody@127.0.0.1:1/none"],
        ["ship", "--log", log, "--to", "postgresql://nobody@127.0.0.1:1/none"],
      ] {
        let result = try ReplayProcess.run(
          arguments, environment: ["REPLAY_LIBPQ": "/nonexistent/libpq.so.5"])
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("Error: PostgreSQL's client library libpq is not installed"))
        #expect(result.error.contains("'apt-get install libpq5'"))
        #expect(result.output == "")
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
      // The file commands do not need it.
      let state = try ReplayProcess.run(
        ["state", "--log", log], environment: ["REPLAY_LIBPQ": "/nonexistent/libpq.so.5"])
      #expect(state.status == 0)
    }
  }

  @Test(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
  func initTwiceShipTheSampleThenNothingAndAWrongPasswordIsExit77() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let url = server.url()
      let created = try ReplayProcess.run(["pg", "init", url])
      #expect(created.status == 0)
      #expect(created.output.hasPrefix("created in '\(url)': message_store.message, "))
      let again = try ReplayProcess.run(["pg", "init", url])
      #expect(again.status == 0)
      #expect(again.output == "the schema message_store at '\(url)' is complete; nothing to do\n")
      #expect(again.error == "")

      let shipped = try ReplayProcess.run(["ship", "--log", log, "--to", url])
      #expect(shipped.status == 0)
      #expect(shipped.output == "shipped 147 events (up to seq 147) to '\(url)'\n")
      let rerun = try ReplayProcess.run(["ship", "--log", log, "--to", url, "--json"])
      #expect(rerun.status == 0)
      #expect(
        rerun.output
          == "{\"shipped\":0,\"seq\":147,\"logSeq\":147,\"lag\":0,\"eventsPerSecond\":0}\n")
      // Sealed personal data is shipped sealed.
      let sealed = try server.psql(
        "SELECT count(*) FROM message_store.messages WHERE type = 'ContactAdded'"
          + " AND data ? 'sealed' AND NOT data ? 'emailAddress'")
      #expect(sealed == "18\n")

      let refused = try ReplayProcess.run(
        ["ship", "--log", log, "--to", server.url(user: "scram_user", password: "wrong")])
      #expect(refused.status == 77)
      #expect(refused.error.contains("refused the credentials"))
      #expect(!refused.error.contains("wrong"))
    }
  }

  @Test(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
  func aShipperWhoseServerStaysAwayGivesUpAfterRetryForWithExit69() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let url = server.url()
      #expect(try ReplayProcess.run(["pg", "init", url]).status == 0)
      let errorPath = directory + "/ship.err"
      FileManager.default.createFile(atPath: errorPath, contents: nil)
      let process = Process()
      process.executableURL = ReplayProcess.executable
      process.arguments = ["ship", "--log", log, "--to", url, "--follow", "--retry-for", "1"]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
      try process.run()
      let deadline = Date().addingTimeInterval(30)
      while try server.psql("SELECT count(*) FROM message_store.messages") != "147\n",
        Date() < deadline
      {
        usleep(50_000)
      }
      try server.stop()
      let appended = try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-13", "--type", "ContactFavorited", "--data",
        #"{"id":"13"}"#,
      ])
      #expect(appended.status == 0)
      process.waitUntilExit()
      #expect(process.terminationStatus == 69)
      let error = try String(contentsOfFile: errorPath, encoding: .utf8)
      #expect(error.contains("every event up to seq 147 is in the database; reconnecting"))
      #expect(error.contains("was lost and could not be made again in "))
      #expect(error.contains("run the command again once the server is back"))
      try server.start()
      let resumed = try ReplayProcess.run(["ship", "--log", log, "--to", url])
      #expect(resumed.output == "shipped 1 events (up to seq 148) to '\(url)'\n")
    }
  }

  /// `REPLAY_PG_KILLS` sets how many times the shipper is killed (20 by default).
  @Test(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
  func aShipperKilledAtRandomInstantsNeitherLosesNorRepeatsAnEvent() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      let log = directory + "/generated.jsonl"
      let kills = ProcessInfo.processInfo.environment["REPLAY_PG_KILLS"].flatMap { Int($0) } ?? 20
      // Enough events that most kills land while there is something to ship.
      let events = max(30_000, kills * 1_500)
      let generated = try ReplayProcess.run(
        ["generate", "--log", log, "--events", String(events), "--seed", "kill", "--no-fsync"])
      #expect(generated.status == 0)
      let url = server.url()
      #expect(try ReplayProcess.run(["pg", "init", url]).status == 0)
      var random = SplitMix64(seed: TestSeed.make())
      var killedMidShip = 0
      for _ in 0..<kills {
        let before =
          Int(
            try server.psql("SELECT count(*) FROM message_store.messages")
              .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let process = Process()
        process.executableURL = ReplayProcess.executable
        process.arguments = ["ship", "--log", log, "--to", url, "--batch", "200"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32(10_000 + random.next() % 150_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if before < events { killedMidShip += 1 }
      }
      // The kills must have landed while there was something to ship.
      #expect(killedMidShip >= min(kills, 5))
      let last = try ReplayProcess.run(["ship", "--log", log, "--to", url])
      #expect(last.status == 0)
      let check = try server.psql(
        """
        SELECT count(*), count(DISTINCT id),
          bool_and(seq = number), (SELECT seq FROM message_store.replay_shipped)
        FROM (SELECT id, (metadata->>'seq')::bigint AS seq,
          row_number() OVER (ORDER BY global_position) AS number
          FROM message_store.messages) AS shipped
        """)
      #expect(check == "\(events)|\(events)|t|\(events)\n")
    }
  }
}
