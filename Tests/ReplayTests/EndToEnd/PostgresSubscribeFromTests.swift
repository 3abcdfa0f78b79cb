import Engine
import Events
import Foundation
import Postgres
import Testing

/// A follow of a database from a bookmark (`.afterSequence`, `log -f --from`) or from `.end`
/// starts at that row: it reads no row before it, delivers what the file's follower delivers
/// (a bookmark in the middle, at the last row, past the end), and ends with
/// `Failure.rowChanged` when the row it starts from is rewritten.
///
/// The proof that the rows before the start are not read: the first row's line is broken, so
/// a follow from the first row fails on it.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresSubscribeFromTests {
  /// The lines `follower` delivers through seq `last`; `whenCaughtUp` runs at each catch-up
  /// (to ship more rows while the follower waits).
  private func delivered(
    by follower: some EventFollowing, through last: Int64,
    whenCaughtUp: () throws -> Void = {}
  ) throws -> [String] {
    var lines: [String] = []
    func caughtUp() throws -> Bool {
      try whenCaughtUp()
      return true
    }
    try follower.follow(through: last, caughtUp: caughtUp) { (line: EventLine) in
      lines.append(String(decoding: line.bytes, as: UTF8.self))
      return true
    }
    return lines
  }

  /// The database's follower, looking often.
  private func follower(
    _ url: String, from start: FollowStart, filter: EventFilter = EventFilter()
  ) -> MessageStoreFollower {
    MessageStoreFollower(
      url: url, from: start, filter: filter, pollInterval: .milliseconds(100),
      gapPatience: .milliseconds(300))
  }

  /// The lines the file's follower delivers from `start` through seq `last`.
  private func fileLines(
    _ log: String, from start: FollowStart, filter: EventFilter = EventFilter(), through last: Int64
  ) throws -> [String] {
    try delivered(by: LogFollower(path: log, from: start, filter: filter), through: last)
  }

  /// The seqs of `lines`, read from their envelopes.
  private func sequences(_ lines: [String]) -> [Int64] {
    lines.compactMap { line in
      line.range(of: #""seq":"#).flatMap { found in
        Int64(line[found.upperBound...].prefix { $0.isNumber })
      }
    }
  }

  @Test(.timeLimit(.minutes(5)), arguments: [1, 400, 746])
  func aBookmarkInsideTheTableReadsNoRowBeforeIt(bookmark: Int64) throws {
    try withShippedSample(seed: "pgfrom-middle") { _, server, log, url in
      let contacts = EventFilter(categories: ["contact"])
      let expected = try fileLines(log, from: .afterSequence(bookmark), through: 747)
      let expectedContacts = try fileLines(
        log, from: .afterSequence(bookmark), filter: contacts, through: 747)
      #expect(sequences(expected) == Array(bookmark + 1...747))
      try server.breakFirstRow()
      #expect(
        try delivered(by: follower(url, from: .afterSequence(bookmark)), through: 747)
          == expected)
      #expect(
        try delivered(
          by: follower(url, from: .afterSequence(bookmark), filter: contacts), through: 747)
          == expectedContacts)
      // From the first row, the broken line is read: the proof that it was not read above.
      #expect(throws: EngineError.self) {
        try delivered(by: follower(url, from: .beginning), through: 747)
      }
    }
  }

  @Test(.timeLimit(.minutes(5)), arguments: [747, 760])
  func aBookmarkAtOrPastTheLastRowWaitsForWhatComesAfterIt(bookmark: Int64) throws {
    try withShippedSample(seed: "pgfrom-end") { _, server, log, url in
      try server.breakFirstRow()
      var shipped = false
      let lines = try delivered(
        by: follower(url, from: .afterSequence(bookmark)), through: 777,
        whenCaughtUp: {
          guard !shipped else { return }
          shipped = true
          try PostgresTestSetup.generate(30, seed: "pgfrom-end-2", appendingTo: log)
          try PostgresTestSetup.ship(log, to: url)
        })
      #expect(shipped)
      #expect(sequences(lines) == Array(bookmark + 1...777))
      #expect(lines == (try fileLines(log, from: .afterSequence(bookmark), through: 777)))
    }
  }

  @Test(.timeLimit(.minutes(5))) func theEndStartsAfterTheLastRowAndReadsNoRowBeforeIt() throws {
    try withShippedSample(seed: "pgfrom-dotend") { _, server, log, url in
      try server.breakFirstRow()
      var caughtUp = 0
      let lines = try delivered(
        by: follower(url, from: .end), through: 757,
        whenCaughtUp: {
          caughtUp += 1
          guard caughtUp == 1 else { return }
          try PostgresTestSetup.generate(10, seed: "pgfrom-dotend-2", appendingTo: log)
          try PostgresTestSetup.ship(log, to: url)
        })
      #expect(sequences(lines) == Array(748...757))
      #expect(lines == (try fileLines(log, from: .afterSequence(747), through: 757)))
      // A bound the start is already past: nothing to deliver, the follow ends at once.
      #expect(try delivered(by: follower(url, from: .end), through: 700).isEmpty)
    }
  }

  @Test(.timeLimit(.minutes(5))) func theLibrarySubscriptionFromABookmarkReadsNoRowBeforeIt()
    async throws
  {
    try await withAsyncShippedSample(seed: "pgfrom-library") { _, server, log, url in
      try server.breakFirstRow()
      let store = try await EventStore(postgresURL: url)
      var events = store.subscribe(from: .afterSequence(740)).makeAsyncIterator()
      var seen: [Int64] = []
      while seen.count < 7, let event = try await events.next() { seen.append(event.sequence) }
      #expect(seen == Array(741...747))
      let fileStore = try await EventStore(path: log)
      var fileEvents = fileStore.subscribe(from: .afterSequence(740)).makeAsyncIterator()
      let first = try #require(try await fileEvents.next())
      var databaseEvents = store.subscribe(from: .afterSequence(740)).makeAsyncIterator()
      #expect(try await databaseEvents.next() == first)
    }
  }

  @Test(.timeLimit(.minutes(5))) func logFollowFromABookmarkPrintsWhatTheFilePrints() throws {
    try withShippedSample(seed: "pgfrom-cli") { _, server, log, url in
      for options in [["--json"], ["--category", "contact"]] {
        let arguments = ["log", "-f", "--from", "700", "--to", "747"] + options
        let file = try ReplayProcess.run(arguments + ["--log", log])
        #expect(file.status == 0, "\(file.error)")
        #expect(!file.output.isEmpty)
        try server.breakFirstRow()
        let database = try ReplayProcess.run(arguments + ["--log", url, "--retry-for", "0"])
        #expect(database.status == 0, "\(database.error)")
        #expect(database.output == file.output, "\(options)")
      }
      // From the first row, the broken line is met (exit 74 as any follow that meets one).
      let fromFirst = try ReplayProcess.run(
        ["log", "-f", "--from", "1", "--to", "747", "--log", url, "--retry-for", "0"])
      #expect(fromFirst.status == 74, "\(fromFirst.error)")
      #expect(fromFirst.error.contains("\(url):1:"), "\(fromFirst.error)")
    }
  }

  @Test(.timeLimit(.minutes(5)), arguments: ["update", "truncate"])
  func theRowABookmarkStartsFromRewrittenEndsTheFollow(rewrite: String) throws {
    try withShippedSample(seed: "pgfrom-rewritten") { _, server, _, url in
      var caughtUp = 0
      let rewriting =
        rewrite == "update"
        ? """
        UPDATE message_store.messages SET metadata = jsonb_set(metadata, '{line}',
          to_jsonb('{"seq":747,"rewritten":true}'::text)) WHERE global_position = 747
        """
        : "TRUNCATE message_store.messages RESTART IDENTITY; DELETE FROM message_store.replay_shipped"
      #expect {
        _ = try delivered(
          by: follower(url, from: .afterSequence(747)), through: 800,
          whenCaughtUp: {
            caughtUp += 1
            if caughtUp == 1 { _ = try server.psql(rewriting) }
          })
      } throws: { error in
        guard
          case .rowChanged(_, let sequence, let position, let found) =
            error as? MessageStoreFollower.Failure
        else { return false }
        return sequence == 747 && position == 747
          && found == (rewrite == "update" ? "holds another line" : "is gone")
      }
      #expect(caughtUp == 1)
    }
  }

  @Test(.timeLimit(.minutes(5))) func rowsWhosePositionsRunAheadOfTheirSeqsAreFound() throws {
    try withShippedSample(seed: "pgfrom-gap") { _, server, log, url in
      // A table shipped before the shipper set positions, after a ship rolled back: its rows
      // from seq 700 on sit 5 past their seq, and the rows shipped next follow the sequence.
      _ = try server.psql(
        "UPDATE message_store.messages SET global_position = global_position + 1000000"
          + " WHERE global_position >= 700;"
          + " UPDATE message_store.messages SET global_position = global_position - 999995"
          + " WHERE global_position >= 1000000;"
          + " SELECT setval(pg_get_serial_sequence('message_store.messages', 'global_position'),"
          + " (SELECT max(global_position) FROM message_store.messages))")
      try PostgresTestSetup.generate(100, seed: "pgfrom-gap-2", appendingTo: log)
      try PostgresTestSetup.ship(log, to: url)
      #expect(
        try server.psql(
          "SELECT global_position FROM message_store.messages WHERE metadata->>'seq' = '800'"
        ).trimmingCharacters(in: .whitespacesAndNewlines) == "805")
      try server.breakFirstRow()
      for bookmark: Int64 in [746, 747, 748, 800] {
        let lines = try delivered(by: follower(url, from: .afterSequence(bookmark)), through: 847)
        #expect(sequences(lines) == Array(bookmark + 1...847), "after seq \(bookmark)")
        #expect(lines == (try fileLines(log, from: .afterSequence(bookmark), through: 847)))
      }
      // Past the last row (seq 847, at global_position 852): the rows up to the bookmark are
      // passed over as they arrive.
      var shipped = false
      let lines = try delivered(
        by: follower(url, from: .afterSequence(850)), through: 857,
        whenCaughtUp: {
          guard !shipped else { return }
          shipped = true
          try PostgresTestSetup.generate(10, seed: "pgfrom-gap-3", appendingTo: log)
          try PostgresTestSetup.ship(log, to: url)
        })
      #expect(sequences(lines) == Array(851...857))
      #expect(lines == (try fileLines(log, from: .afterSequence(850), through: 857)))
    }
  }

  @Test(.timeLimit(.minutes(5))) func aBookmarkWhoseRowIsMissingIsReadFromTheFirstRowAsBefore()
    throws
  {
    try withShippedSample(seed: "pgfrom-missing") { _, server, _, url in
      _ = try server.psql("DELETE FROM message_store.messages WHERE global_position = 300")
      // No row holds seq 300, and the last row is past it: the search cannot be trusted, so
      // the rows are read from the first one, and the gap found there is reported.
      #expect {
        try delivered(by: follower(url, from: .afterSequence(300)), through: 747)
      } throws: { error in
        guard case .invalidEvent(_, let problem) = error as? EngineError else { return false }
        return problem.contains("expected seq 300 after seq 299, found seq 301")
      }
    }
  }
}
