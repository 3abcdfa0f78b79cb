import Foundation
import Synchronization
import Testing

/// `replay append --log postgresql://…`: the rows hold the lines the file writer writes, seqs
/// are gapless under writers racing, conflicts exit as on the file, and a replica of a file
/// and a store written directly refuse each other.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresWriteTests {
  /// Every row's `metadata.line`, in `global_position` order, each with its `\n`.
  private func lines(_ server: PostgresTestServer) throws -> String {
    let rows = try server.psql(
      """
      SELECT global_position || ' ' || (metadata->>'seq') || ' ' || (metadata->>'line')
      FROM message_store.messages ORDER BY global_position
      """)
    var text = ""
    for row in rows.split(separator: "\n") {
      let parts = row.split(separator: " ", maxSplits: 2)
      guard parts.count == 3 else { continue }
      // The seq is the row's global_position, and the line's own seq.
      #expect(parts[0] == parts[1])
      #expect(parts[2].hasPrefix("{\"seq\":\(parts[0]),"))
      text += parts[2] + "\n"
    }
    return text
  }

  /// A server with the schema, a folder, and the database's URL, for `body`.
  private func withStore(
    _ body: (PostgresTestServer, _ directory: String, _ url: String) throws -> Void
  ) throws {
    try withInitializedDatabase { directory, server, url in try body(server, directory, url) }
  }

  /// Runs each command on `file` and on the database at `url`: the same status (`status`),
  /// output and error on both; then the database holds the file's bytes and the same state.
  private func expectSame(
    _ commands: [(arguments: [String], status: Int32)], file: String, url: String,
    server: PostgresTestServer, environment: [String: String]
  ) throws {
    for command in commands {
      let onFile = try ReplayProcess.run(
        command.arguments + ["--log", file], environment: environment)
      let onDatabase = try ReplayProcess.run(
        command.arguments + ["--log", url], environment: environment)
      #expect(onFile.status == command.status, "\(command): \(onFile.error)")
      #expect(onDatabase.status == onFile.status, "\(command): \(onDatabase.error)")
      #expect(onDatabase.output == onFile.output, "\(command)")
      #expect(onDatabase.error == onFile.error, "\(command)")
    }
    #expect(try lines(server) == (try String(contentsOfFile: file, encoding: .utf8)))
    let fromFile = try ReplayProcess.run(["state", "--json", "--log", file])
    let fromDatabase = try ReplayProcess.run(["state", "--json", "--log", url])
    #expect(fromDatabase.status == 0 && fromDatabase.output == fromFile.output)
  }

  @Test func appendsWriteTheFileWritersLinesAndRefuseWhatTheFileRefuses() throws {
    try withStore { server, directory, url in
      let file = directory + "/events.jsonl"
      let batch = directory + "/batch.jsonl"
      try """
      {"stream":"contact-2","type":"ContactFavorited","data":{"id":"2"},"meta":{"actor":"ana"}}
      {"stream":"animal-user-7","type":"AnimalInserted","data":{"id":"user-7","name":"Héron \\"gris\\"","description":"a bird"},"expectedVersion":"no-stream"}
      {"stream":"contact-3","type":"ContactFavorited","data":{"id":"3"},"id":"6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"}

      """.write(toFile: batch, atomically: true, encoding: .utf8)
      // Again: the id given is a duplicate, the other event is new.
      let again = directory + "/again.jsonl"
      try """
      {"stream":"contact-3","type":"ContactFavorited","data":{"id":"3"},"id":"6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"}
      {"stream":"contact-2","type":"ContactUnfavorited","data":{"id":"2"},"expectedVersion":1}

      """.write(toFile: again, atomically: true, encoding: .utf8)
      let environment = ["REPLAY_ID_SEED": "pgwrite", "REPLAY_CLOCK": "2026-11-27T10:00:00Z"]
      // The same commands on the file and on the database.
      let commands: [(arguments: [String], status: Int32)] = [
        (
          [
            "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data",
            #"{"id":"1"}"#, "--reason", "tidy", "--correlation", "c-1",
          ], 0
        ),
        (
          [
            "append", "--stream", "contact-1", "--type", "ContactUnfavorited", "--data",
            #"{"id":"1"}"#, "--expected-version", "1",
          ], 0
        ),
        (["append", "--file", batch], 0),
        (["append", "--file", again, "--json"], 0),
      ]
      try expectSame(
        commands, file: file, url: url, server: server, environment: environment)
      let written = try lines(server)
      #expect(written.split(separator: "\n").count == 6)
      // Message DB's own readers see ordinary rows: position = version - 1.
      let stream = try server.psql(
        "SELECT position, type FROM message_store.get_stream_messages('contact-1')")
      #expect(stream.contains("0|ContactFavorited") && stream.contains("1|ContactUnfavorited"))

      // Refusals: each exits as on the file, and the database is as it was.
      let refusals: [(arguments: [String], status: Int32, says: String)] = [
        (
          [
            "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data",
            #"{"id":"1"}"#, "--expected-version", "1",
          ], 3, "has version 2, but the append expected version 1"
        ),
        (
          [
            "append", "--stream", "contact-9", "--type", "ContactFavorited", "--data",
            #"{"id":"9"}"#, "--id", "6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5",
          ], 65, "6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5"
        ),
        (["append", "--file", batch, "--chunk-size", "2"], 64, "--chunk-size"),
        (
          ["append", "--stream", "contact-1", "--type", "ContactFavorited", "--data", "{}"], 65,
          "field 'id' is missing",
        ),
      ]
      for refusal in refusals {
        let result = try ReplayProcess.run(refusal.arguments + ["--log", url])
        #expect(result.status == refusal.status, "\(refusal.arguments): \(result.error)")
        #expect(result.error.contains(refusal.says), "\(result.error)")
      }
      let mixed = directory + "/mixed.jsonl"
      try """
      {"stream":"contact-4","type":"ContactFavorited","data":{"id":"4"}}
      {"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"expectedVersion":1}

      """.write(toFile: mixed, atomically: true, encoding: .utf8)
      #expect(try ReplayProcess.run(["append", "--file", mixed, "--log", url]).status == 3)
      #expect(try lines(server) == written)
      // A chosen clock before the last event is refused; the system's is raised to it.
      let early = try ReplayProcess.run(
        [
          "append", "--stream", "contact-5", "--type", "ContactFavorited", "--data",
          #"{"id":"5"}"#, "--clock", "2026-01-01T00:00:00Z", "--log", url,
        ])
      #expect(early.status == 65 && early.error.contains("never go backwards"), "\(early.error)")
      // Another writer holding the store past --lock-timeout: exit 75, nothing written.
      let holder = Process()
      holder.executableURL = URL(fileURLWithPath: (PostgresTestServer.binaries ?? "") + "/psql")
      holder.arguments = [
        "-h", server.folder, "-p", String(server.port), "-U", "postgres", "-q", "-c",
        "BEGIN; SELECT pg_advisory_xact_lock(hashtext('replay store')); SELECT pg_sleep(3); COMMIT",
      ]
      holder.standardOutput = FileHandle.nullDevice
      try holder.run()
      Thread.sleep(forTimeInterval: 1)
      let waited = try ReplayProcess.run(
        [
          "append", "--stream", "contact-5", "--type", "ContactFavorited", "--data",
          #"{"id":"5"}"#, "--lock-timeout", "0.5", "--log", url,
        ])
      holder.waitUntilExit()
      #expect(waited.status == 75 && waited.error.contains("--lock-timeout"), "\(waited.error)")
      #expect(try lines(server) == written)
    }
  }

  @Test func domainCommandsDecideOnTheDatabaseAsOnTheFile() throws {
    try withStore { server, directory, url in
      let file = directory + "/events.jsonl"
      let environment = ["REPLAY_ID_SEED": "pgdomain", "REPLAY_CLOCK": "2026-11-27T11:00:00Z"]
      // Each command with the status it gives on both: decided on the stream read from each.
      let commands: [(arguments: [String], status: Int32)] = [
        (["states", "add", "Ohio"], 0),
        (["zipcodes", "add", "Ohio", "43001"], 0),
        (["zipcodes", "add", "Ohio", "43001"], 65),
        (["zipcodes", "modify", "Ohio", "43001", "43002", "--expected-version", "1"], 3),
        (["zipcodes", "modify", "Ohio", "43001", "43002", "--expected-version", "2"], 0),
        (["animals", "insert", "--name", "Heron", "--actor", "ana"], 0),
        (["animals", "insert", "--name", "Crane", "--json"], 0),
        (["animals", "remove", "user-1"], 0),
        (["animals", "remove", "user-1"], 65),
        (["locations", "add", "--name", "Park", "--latitude", "40.1", "--longitude", "-73.2"], 0),
        (["contacts", "favorite", "13"], 65),
      ]
      try expectSame(
        commands, file: file, url: url, server: server, environment: environment)
    }
  }

  /// `kill -9` of a writer at random instants of a 5,000-event `append --file`: each write is
  /// all there or not at all, and the next write continues the seqs without a gap.
  @Test func aWriterKilledMidWriteLeavesAllOrNothingAndNoGap() throws {
    try withStore { server, directory, url in
      let batch = directory + "/batch.jsonl"
      var text = ""
      for number in 0..<5000 {
        text +=
          #"{"stream":"contact-\#(number % 50)","type":"ContactFavorited","data":{"id":"\#(number % 50)"}}"#
        text += "\n"
      }
      try text.write(toFile: batch, atomically: true, encoding: .utf8)
      var random = SplitMix64(seed: TestSeed.make())
      var expected = 0
      for round in 0..<6 {
        try ReplayProcess.killDashNine(
          ["append", "--file", batch, "--log", url], after: Double(random.next() % 1500) / 1000)
        let count =
          Int(
            try server.psql("SELECT count(*) FROM message_store.messages")
              .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(count == expected || count == expected + 5000, "round \(round): \(count) rows")
        expected = count
        let single = try ReplayProcess.run(
          [
            "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data",
            #"{"id":"1"}"#, "--log", url,
          ])
        expected += 1
        #expect(single.output == "\(expected)\n", "round \(round): \(single.error)")
      }
      let positions = try server.psql(
        "SELECT count(*) = max(global_position) FROM message_store.messages")
      #expect(positions.trimmingCharacters(in: .whitespacesAndNewlines) == "t")
      #expect(try ReplayProcess.run(["state", "--log", url]).status == 0)
    }
  }

  @Test func aReplicaRefusesAppendsAndAStoreRefusesShipping() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestServer()
      defer { try? server.stop(removing: true) }
      _ = try server.psql("CREATE DATABASE replica")
      let store = server.url()
      let replica = String(store.dropLast("postgres".count)) + "replica"
      for url in [store, replica] {
        #expect(try ReplayProcess.run(["pg", "init", url]).status == 0)
      }
      let log = directory + "/events.jsonl"
      let append = [
        "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data", #"{"id":"1"}"#,
      ]
      #expect(try ReplayProcess.run(append + ["--log", log]).status == 0)
      #expect(try ReplayProcess.run(["ship", "--log", log, "--to", replica]).status == 0)
      let intoReplica = try ReplayProcess.run(append + ["--log", replica])
      #expect(intoReplica.status == 65)
      #expect(intoReplica.error.contains("is a replica of the log file '\(log)'"))
      let replicated = try ReplayProcess.run(["log", "--log", replica])
      #expect(replicated.output.split(separator: "\n").count == 2)  // a heading and one event

      #expect(try ReplayProcess.run(append + ["--log", store]).status == 0)
      let intoStore = try ReplayProcess.run(["ship", "--log", log, "--to", store])
      #expect(intoStore.status == 65)
      #expect(intoStore.error.contains("appended to it directly"), "\(intoStore.error)")
      #expect(try lines(server).split(separator: "\n").count == 1)
      #expect(
        try server.psql("SELECT count(*) FROM message_store.replay_shipped")
          .trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
  }

  /// Four processes append with expected versions for 10 s (30 s with `REPLAY_PG_SOAK=1`):
  /// every acknowledged append is in the table at the seq it was given, seqs run 1...n without
  /// a gap, each stream's versions 1...k without a gap, every refusal is a conflict (exit 3),
  /// and the read models from the database equal those of a file holding its lines.
  @Test func fourWritersRacingLoseNoUpdate() throws {
    try withStore { server, directory, url in
      let soak = ProcessInfo.processInfo.environment["REPLAY_PG_SOAK"] == "1"
      let end = Date().addingTimeInterval(soak ? 30 : 10)
      let streams = ["contact-1", "contact-2", "contact-3"]
      struct Acknowledged: Sendable {
        var id: String
        var sequence: Int
        var stream: String
        var version: Int
      }
      let acknowledged = Mutex<[Acknowledged]>([])
      let conflicts = Mutex(0)
      let failures = Mutex<[String]>([])
      DispatchQueue.concurrentPerform(iterations: 4) { writer in
        var versions = [String: Int]()
        var random = SplitMix64(seed: UInt64(writer + 1))
        while Date() < end {
          let stream = streams[Int(random.next() % UInt64(streams.count))]
          let expected = versions[stream] ?? 0
          let id = UUID().uuidString.lowercased()
          let type = expected % 2 == 0 ? "ContactFavorited" : "ContactUnfavorited"
          let number = stream.dropFirst("contact-".count)
          guard
            let result = try? ReplayProcess.run([
              "append", "--log", url, "--stream", stream, "--type", type, "--data",
              #"{"id":"\#(number)"}"#, "--id", id,
              "--expected-version", expected == 0 ? "no-stream" : String(expected),
            ])
          else {
            failures.withLock { $0.append("could not run replay") }
            return
          }
          switch result.status {
          case 0:
            let sequence = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            acknowledged.withLock {
              $0.append(
                Acknowledged(id: id, sequence: sequence, stream: stream, version: expected + 1))
            }
            versions[stream] = expected + 1
          case 3:
            conflicts.withLock { $0 += 1 }
            // "has version N, but ...": reload and retry, as the message says.
            let actual = result.error.split(separator: " ").drop { $0 != "version" }.dropFirst()
              .first.flatMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
            guard let actual else {
              failures.withLock { $0.append(result.error) }
              return
            }
            versions[stream] = actual
          default:
            failures.withLock { $0.append("exit \(result.status): \(result.error)") }
          }
        }
      }
      #expect(failures.withLock { $0 } == [])
      let acks = acknowledged.withLock { $0 }
      #expect(acks.count > 20, "only \(acks.count) appends in the time")
      #expect(conflicts.withLock { $0 } > 0, "the writers never raced")
      let rows = try server.psql(
        """
        SELECT global_position || ' ' || id || ' ' || stream_name || ' ' || (position + 1)
        FROM message_store.messages ORDER BY global_position
        """
      ).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
      // Seqs 1...n without a gap, and nothing that was not acknowledged.
      #expect(rows.map { Int($0[0]) ?? 0 } == Array(1...max(1, acks.count)))
      #expect(rows.count == acks.count)
      for ack in acks {
        let row = rows.indices.contains(ack.sequence - 1) ? rows[ack.sequence - 1] : []
        #expect(row == [String(ack.sequence), ack.id, ack.stream, String(ack.version)], "\(ack)")
      }
      for stream in streams {
        let versions = rows.filter { $0[2] == stream }.map { Int($0[3]) ?? 0 }
        #expect(versions == Array(0..<versions.count).map { $0 + 1 }, "\(stream)")
      }
      // The read models: the database's equal the file's of the same lines.
      let file = directory + "/from-database.jsonl"
      try lines(server).write(toFile: file, atomically: true, encoding: .utf8)
      #expect(try ReplayProcess.run(["verify", "--log", file]).status == 0)
      let fromFile = try ReplayProcess.run(["state", "--json", "--log", file])
      let fromDatabase = try ReplayProcess.run(["state", "--json", "--log", url])
      #expect(fromDatabase.status == 0 && fromDatabase.output == fromFile.output)
    }
  }
}
