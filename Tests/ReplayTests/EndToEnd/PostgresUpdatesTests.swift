import Engine
import Events
import Foundation
import Postgres
import Projections
import Testing

/// The read models that follow a database (`EventStore.updates(of:)`, `state --follow`) start
/// from the newest checkpoint of `replay_checkpoints` that matches, as `state` does, and fold
/// only the rows after it; a stale checkpoint, or one copied from another database, is not
/// used, and the models still equal the file's.
///
/// The proof that the rows before a checkpoint are not read: the first row's line is broken
/// after the checkpoint is saved, so a fold from the first row fails on it.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresUpdatesTests {
  /// The read models of the file at `log`, replayed from its first event.
  private func fileModels(_ log: String) throws -> ReadModels {
    try Replayer(reader: LogReader(path: log)).readModels(at: .end).models
  }

  /// The first result `follow(foldingModels:)` hands over, and what it explained.
  private func firstFollowed(
    _ url: String, usingCheckpoints: Bool = true
  ) throws -> (result: Replayer.Result, notes: [String]) {
    let follower = MessageStoreFollower(url: url)
    var first: Replayer.Result?
    var notes: [String] = []
    try follower.follow(
      usingCheckpoints: usingCheckpoints, explain: { notes.append($0) },
      foldingModels: { result, _ in
        first = result
        return false
      })
    return (try #require(first), notes)
  }

  /// Contact 13's row, as text.
  private func contact13(_ models: ReadModels) throws -> String {
    String(describing: models.contacts.row(for: try ContactID("13")))
  }

  /// A folder `name` in `directory`, made.
  private func folder(_ name: String, in directory: String) throws -> String {
    let path = directory + "/" + name
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
  }

  @Test(.timeLimit(.minutes(5)))
  func updatesStartAfterTheNewestCheckpointAndEqualReadModels() async throws {
    try await withAsyncShippedSample(seed: "pgupdates") { _, server, log, url in
      #expect(try ReplayProcess.run(["checkpoint", "--log", url, "--at", "147"]).status == 0)
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      try PostgresTestSetup.generate(100, seed: "pgupdates-2", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      try server.breakFirstRow()

      // The follow starts from the newest checkpoint and reads the 100 rows after it only.
      let (result, notes) = try firstFollowed(url)
      #expect(result.startedFrom == 747)
      #expect(result.eventsRead == 100)
      #expect(result.lastSequence == 847)
      #expect(
        notes.contains(
          "starting from the checkpoint at seq 747 in message_store.replay_checkpoints"),
        "\(notes)")
      let expected = try fileModels(log)
      #expect(result.models == expected)
      // From the first row, the broken line is read: the proof that it was not read above.
      #expect(throws: EngineError.self) { try firstFollowed(url, usingCheckpoints: false) }

      // The library's updates: the first equals readModels(), then each burst.
      let store = try await EventStore(postgresURL: url)
      var updates = store.updates().makeAsyncIterator()
      let first = try #require(try await updates.next())
      #expect(first.sequence == 847)
      #expect(first.newEventCount == 0)
      #expect(first.models == (try await store.readModels()))
      #expect(first.models == expected)
      try PostgresTestSetup.generate(10, seed: "pgupdates-3", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      let next = try #require(try await updates.next())
      #expect(next.sequence == 857)
      #expect(next.newEventCount == 10)
      #expect(next.models == (try fileModels(log)))
      #expect(next.models == (try await store.readModels()))
      // `models` narrows nothing on a database: every model is folded.
      var narrowed = store.updates(of: [ZipCodeList.name]).makeAsyncIterator()
      #expect(try await narrowed.next()?.models == next.models)
    }
  }

  @Test(.timeLimit(.minutes(5))) func aCheckpointOfRowsSinceRewrittenIsNotUsed() throws {
    try withShippedSample(seed: "pgupdates-stale") { directory, server, log, url in
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      // The table emptied and filled from another log as long: the line at the checkpoint's
      // seq is another one.
      _ = try server.psql(
        "TRUNCATE message_store.messages RESTART IDENTITY; DELETE FROM message_store.replay_shipped;"
          + " DELETE FROM message_store.replay_keys")
      let other = try PostgresTestSetup.sampleLog(
        in: folder("other", in: directory), generating: 600, seed: "pgupdates-other",
        shippingTo: url)
      let (result, notes) = try firstFollowed(url)
      #expect(result.startedFrom == nil)
      #expect(result.eventsRead == 747)
      #expect(result.models == (try fileModels(other)))
      #expect(result.models != (try fileModels(log)))
      #expect(
        notes.contains { $0.contains("checkpoint at seq 747") && $0.contains("ignored") },
        "\(notes)")
    }
  }

  @Test(.timeLimit(.minutes(5))) func aContactErasedAfterTheCheckpointReadsAsErased() throws {
    try withShippedSample(seed: "pgupdates-erase") { _, _, log, url in
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      let before = try firstFollowed(url).result
      #expect(try contact13(before.models).contains("Miss.Piggy"))
      try eraseContact13(in: log, shippingTo: url)
      // The checkpoint's line is unchanged, so it is used; its copy of the contact is sealed
      // under a key the erasure destroyed, so it reads as erased.
      let (result, _) = try firstFollowed(url)
      #expect(result.startedFrom == 747)
      #expect(result.models == (try fileModels(log)))
      #expect(try !contact13(result.models).contains("Miss.Piggy"))
    }
  }

  @Test(.timeLimit(.minutes(5))) func aCheckpointCopiedFromAnotherDatabaseIsNotUsed() throws {
    try withShippedSample(seed: "pgupdates-a") { directory, server, _, url in
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      _ = try server.psql("CREATE DATABASE other")
      let otherURL = String(url.dropLast("postgres".count)) + "other"
      #expect(try ReplayProcess.run(["pg", "init", otherURL]).status == 0)
      let otherLog = try PostgresTestSetup.sampleLog(
        in: folder("other", in: directory), generating: 600, seed: "pgupdates-b",
        shippingTo: otherURL)
      let source = try PostgresConnection(url: url)
      defer { source.close() }
      let target = try PostgresConnection(url: otherURL)
      defer { target.close() }
      let row = try #require(
        try source.query(
          "SELECT seq::text, line_sha256, encode(models, 'hex') FROM message_store.replay_checkpoints",
          []
        ).rows.first)
      #expect(row[0] == "747")
      _ = try target.query(
        """
        INSERT INTO message_store.replay_checkpoints (seq, line_sha256, models)
        VALUES ($1::bigint, $2, decode($3, 'hex'))
        """, row)
      let expected = try fileModels(otherLog)
      var (result, notes) = try firstFollowed(otherURL)
      #expect(result.startedFrom == nil)
      #expect(result.models == expected)
      #expect(notes.contains { $0.contains("is not the one it was made after") }, "\(notes)")
      // Its hash column forged to the line there: its bytes (the hash inside, the contacts
      // sealed under the other database's keys) still refuse it.
      _ = try target.execute(
        """
        UPDATE message_store.replay_checkpoints SET line_sha256 = (
          SELECT encode(sha256(convert_to(metadata->>'line', 'UTF8')), 'hex')
          FROM message_store.messages WHERE global_position = 747)
        """)
      (result, notes) = try firstFollowed(otherURL)
      #expect(result.startedFrom == nil)
      #expect(result.models == expected)
      #expect(
        notes.contains {
          $0.hasPrefix("checkpoint at seq 747 in message_store.replay_checkpoints ignored")
        }, "\(notes)")
    }
  }

  @Test(.timeLimit(.minutes(5))) func stateFollowPrintsWhatStatePrintsFromTheCheckpoint() throws {
    try withShippedSample(seed: "pgupdates-cli") { directory, server, log, url in
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      try PostgresTestSetup.generate(50, seed: "pgupdates-cli-2", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      try server.breakFirstRow()
      let state = try ReplayProcess.run(["state", "--json", "--log", url])
      #expect(state.status == 0, "\(state.error)")
      let follower = try PostgresFollowTests.Background(
        ["state", "--follow", "--json", "--verbose", "--log", url], in: directory,
        named: "follower")
      let first = follower.waitForLines(1)
      #expect(follower.stop() == 0)
      #expect(first == state.output)
      #expect(
        follower.errorText
          == "note: starting from the checkpoint at seq 747 in message_store.replay_checkpoints\n")
      // With --no-checkpoints, the fold starts at the first row, and meets the broken line.
      let fromFirst = try ReplayProcess.run(
        ["state", "--follow", "--no-checkpoints", "--log", url, "--retry-for", "0"])
      #expect(fromFirst.status == 74, "\(fromFirst.error)")
      #expect(
        fromFirst.error.hasPrefix("Error: \(url):1: line does not end with the checksum member"),
        "\(fromFirst.error)")
    }
  }
}
