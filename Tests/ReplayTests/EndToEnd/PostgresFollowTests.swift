import Foundation
import Testing

/// `log -f` and `state --follow` on `--log postgresql://…`: woken by the trigger's
/// notifications (or the poll), the same bytes as following the file, a changed row refused,
/// the server stopped and started again; and consumer groups (`--group`) on both.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresFollowTests {
  /// A `replay` running in the background, its output and errors going to files.
  ///
  /// Started with `posix_spawn`, every descriptor above 2 closed in the child, not with
  /// `Process`: a follower that lives on must not hold the descriptor through which
  /// Foundation learns that another test's child ended (its `waitUntilExit` would wait for it).
  final class Background {
    let pid: pid_t
    let output: String
    let errors: String
    let arguments: [String]
    private var status: Int32?

    init(_ arguments: [String], in directory: String, named name: String) throws {
      self.arguments = arguments
      output = "\(directory)/\(name).out"
      errors = "\(directory)/\(name).err"
      let argv = [ReplayProcess.executable.path] + arguments
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      for descriptor in 3..<min(getdtablesize(), 4096) {
        let flags = fcntl(descriptor, F_GETFD)
        if flags >= 0, flags & FD_CLOEXEC == 0 {
          _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC)
        }
      }
      let cStrings = argv.map { strdup($0) }
      defer { for cString in cStrings { free(cString) } }
      var pid: pid_t = 0
      let spawned = (cStrings + [nil]).withUnsafeBufferPointer { pointers in
        pointers.baseAddress.map { posix_spawn(&pid, argv[0], &actions, nil, $0, environ) }
          ?? EINVAL
      }
      guard spawned == 0 else { throw SpawnError(code: spawned) }
      self.pid = pid
    }

    struct SpawnError: Error {
      var code: Int32
    }

    deinit { _ = stop() }

    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
    var errorText: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    /// The exit status once it ended (128 + the signal when killed by one); nil while it runs.
    var exitStatus: Int32? {
      if let status { return status }
      var raw: Int32 = 0
      guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
      status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + raw & 0x7F
      return status
    }

    /// Waits up to `seconds` for the output to hold `count` lines; returns its text.
    @discardableResult
    func waitForLines(_ count: Int, seconds: Double = 20) -> String {
      let deadline = Date().addingTimeInterval(seconds)
      while true {
        let text = text
        if text.split(separator: "\n").count >= count || Date() > deadline { return text }
        usleep(10_000)
      }
    }

    /// Waits up to `seconds` for the process to end; its status, or nil when it still runs.
    func waitForExit(seconds: Double = 20) -> Int32? {
      let deadline = Date().addingTimeInterval(seconds)
      while exitStatus == nil, Date() < deadline { usleep(10_000) }
      return exitStatus
    }

    /// SIGTERM, as Ctrl-C: the follower ends normally (SIGKILL after 10 s).
    func stop() -> Int32? {
      if exitStatus != nil { return status }
      kill(pid, SIGTERM)
      if let status = waitForExit(seconds: 10) { return status }
      kill(pid, SIGKILL)
      return waitForExit(seconds: 10)
    }
  }

  /// A server with the schema and the sample shipped, and the sample's copy.
  private func shippedSample(in directory: String) throws -> (PostgresTestServer, String, String) {
    let server = try PostgresTestSetup.initializedServer()
    do {
      let log = try PostgresTestSetup.sampleLog(in: directory, shippingTo: server.url())
      return (server, server.url(), log)
    } catch {
      try? server.stop(removing: true)
      throw error
    }
  }

  private func favorite(_ contact: String, in log: String, on: Bool = true) throws {
    let done = try ReplayProcess.run([
      "contacts", on ? "favorite" : "unfavorite", contact, "--log", log,
    ])
    #expect(done.status == 0, "\(done.error)")
  }

  @Test func logFollowOnPostgresPrintsWhatTheFileFollowerPrints() throws {
    try withTemporaryDirectory { directory in
      let (server, url, log) = try shippedSample(in: directory)
      defer { try? server.stop(removing: true) }
      var followers: [(Background, Background)] = []
      for (index, options) in [
        ["--json"], ["--json", "--from", "140", "--category", "contact"], ["--from", "145"],
        ["--json", "--leaf-hashes", "--type", "ContactFavorited"],
      ].enumerated() {
        followers.append(
          (
            try Background(
              ["log", "-f", "--log", log] + options, in: directory, named: "file\(index)"),
            try Background(
              ["log", "-f", "--log", url] + options, in: directory, named: "database\(index)")
          ))
      }
      followers[0].1.waitForLines(147)
      try favorite("13", in: log)
      try favorite("14", in: log)
      try PostgresTestSetup.ship(log, to: url)
      try favorite("13", in: log, on: false)
      try PostgresTestSetup.ship(log, to: url)
      followers[0].0.waitForLines(150)
      followers[0].1.waitForLines(150)
      // The table flushes as each wake's rows are read; give both the time to print them.
      usleep(1_500_000)
      for (file, database) in followers {
        #expect(database.text == file.text, "\(database.arguments)")
        #expect(!database.text.isEmpty)
        #expect(file.stop() == 0)
        #expect(database.stop() == 0)
      }
      #expect(followers[0].1.text.split(separator: "\n").count == 150)
      // --to ends the follow once that seq is read.
      let bounded = try ReplayProcess.run(["log", "-f", "--json", "--log", url, "--to", "148"])
      #expect(bounded.status == 0)
      #expect(bounded.output.split(separator: "\n").count == 148)
    }
  }

  @Test func stateFollowOnPostgresPrintsWhatTheFileFollowerPrints() throws {
    try withTemporaryDirectory { directory in
      let (server, url, log) = try shippedSample(in: directory)
      defer { try? server.stop(removing: true) }
      for options in [["--json"], ["contacts"]] {
        let file = try Background(
          ["state", "--follow", "--log", log] + options, in: directory, named: "file")
        let database = try Background(
          ["state", "--follow", "--log", url] + options, in: directory, named: "database")
        // The table's header names the log: the database's URL, or the file's path.
        func named(_ text: String) -> String { text.replacingOccurrences(of: url, with: log) }
        let first = options == ["--json"] ? 1 : 3
        file.waitForLines(first)
        database.waitForLines(first)
        usleep(300_000)
        // One burst at a time, so that both see the same bursts.
        for (round, contact) in ["13", "14"].enumerated() {
          let before = file.text.count
          try favorite(contact, in: log)
          try PostgresTestSetup.ship(log, to: url)
          let deadline = Date().addingTimeInterval(20)
          while Date() < deadline,
            file.text.count == before || named(database.text).count < file.text.count
          {
            usleep(20_000)
          }
          usleep(500_000)
          #expect(named(database.text) == file.text, "\(options) after round \(round)")
        }
        #expect(file.stop() == 0)
        #expect(database.stop() == 0)
        #expect(database.text.contains(url) != options.contains("--json"))
      }
    }
  }

  @Test func theTriggerWakesFollowersAndThePollCoversAMissedNotification() throws {
    try withTemporaryDirectory { directory in
      let (server, url, log) = try shippedSample(in: directory)
      defer { try? server.stop(removing: true) }
      #expect(
        try server.psql(
          "SELECT tgname FROM pg_trigger WHERE tgrelid = 'message_store.messages'::regclass"
            + " AND NOT tgisinternal"
        ).trimmingCharacters(in: .whitespacesAndNewlines) == "messages_notify")
      let follower = try Background(
        ["log", "-f", "--json", "--log", url], in: directory, named: "follower")
      follower.waitForLines(147)
      // Woken by the notification: well before the poll's second.
      try favorite("13", in: log)
      let started = Date()
      try PostgresTestSetup.ship(log, to: url)
      follower.waitForLines(148, seconds: 5)
      #expect(Date().timeIntervalSince(started) < 0.9)
      // No trigger (a database made before it): the poll finds the rows all the same.
      try server.psql("DROP TRIGGER messages_notify ON message_store.messages")
      try favorite("14", in: log)
      try PostgresTestSetup.ship(log, to: url)
      #expect(follower.waitForLines(149, seconds: 5).split(separator: "\n").count == 149)
      #expect(follower.stop() == 0)

      // `pg init` puts it back, and only it; a differing one is refused, naming it.
      let again = try ReplayProcess.run(["pg", "init", url])
      #expect(again.status == 0)
      #expect(again.output == "created in '\(url)': message_store.messages_notify\n")
      #expect(try ReplayProcess.run(["pg", "init", url]).output.contains("created") == false)
      try server.psql(
        """
        DROP TRIGGER messages_notify ON message_store.messages;
        CREATE TRIGGER messages_notify AFTER INSERT OR UPDATE ON message_store.messages
        FOR EACH STATEMENT EXECUTE FUNCTION message_store.notify_messages()
        """)
      let differing = try ReplayProcess.run(["pg", "init", url])
      #expect(differing.status == 65)
      #expect(differing.error.contains("trigger message_store.messages_notify: definition is"))
    }
  }

  @Test func aFollowerStopsWhenARowItDeliveredChanges() throws {
    try withTemporaryDirectory { directory in
      let (server, url, _) = try shippedSample(in: directory)
      defer { try? server.stop(removing: true) }
      for (change, found) in [
        (
          """
          UPDATE message_store.messages SET metadata = jsonb_set(metadata, '{line}',
            to_jsonb(replace(metadata->>'line', '"seq":147', '"seq":147 ')))
          WHERE global_position = 147
          """, "holds another line"
        ),
        ("DELETE FROM message_store.messages WHERE global_position = 147", "is gone"),
      ] {
        let follower = try Background(
          ["log", "-f", "--json", "--log", url], in: directory, named: "follower")
        follower.waitForLines(147)
        usleep(200_000)
        try server.psql("BEGIN; \(change); NOTIFY message_store_messages; COMMIT")
        #expect(follower.waitForExit() == 74)
        #expect(follower.errorText.contains("changed while it was followed"))
        #expect(
          follower.errorText.contains("global_position 147 (seq 147), the last one read, \(found)"))
        // Back as it was, for the next change.
        try server.psql(
          """
          UPDATE message_store.messages SET metadata = jsonb_set(metadata, '{line}',
            to_jsonb(replace(metadata->>'line', '"seq":147 ', '"seq":147')))
          WHERE global_position = 147
          """)
      }
    }
  }

  @Test func aFollowerReconnectsAfterTheServerRestartsAndGivesUpPastRetryFor() throws {
    try withTemporaryDirectory { directory in
      let (server, url, log) = try shippedSample(in: directory)
      defer { try? server.stop(removing: true) }
      let follower = try Background(
        ["log", "-f", "--json", "--log", url, "--retry-for", "60"], in: directory,
        named: "follower")
      follower.waitForLines(147)
      try server.stop()
      usleep(500_000)
      try server.start()
      try favorite("13", in: log)
      try favorite("14", in: log)
      try PostgresTestSetup.ship(log, to: url)
      follower.waitForLines(149)
      usleep(500_000)
      // Nothing twice, nothing skipped: the file's lines, each once.
      #expect(follower.text == (try String(contentsOfFile: log, encoding: .utf8)))
      #expect(follower.errorText.contains("reconnected to '\(url)'"))
      #expect(follower.stop() == 0)

      let impatient = try Background(
        ["log", "-f", "--json", "--log", url, "--retry-for", "1"], in: directory,
        named: "impatient")
      let models = try Background(
        ["state", "--follow", "--json", "--log", url, "--retry-for", "0"], in: directory,
        named: "models")
      impatient.waitForLines(149)
      models.waitForLines(1)
      try server.stop()
      #expect(impatient.waitForExit() == 69)
      #expect(impatient.errorText.contains("could not be made again in 1 s"))
      #expect(impatient.errorText.contains("every event up to seq 149 was read"))
      #expect(models.waitForExit() == 69)
      #expect(models.errorText.contains("--from 150"))

      // --retry-for is for following a database.
      let onFile = try ReplayProcess.run(["log", "-f", "--log", log, "--retry-for", "3"])
      #expect(onFile.status == 64)
      let withoutFollow = try ReplayProcess.run(["log", "--log", url, "--retry-for", "3"])
      #expect(withoutFollow.status == 64)
      #expect(withoutFollow.error.contains("'--retry-for' goes with '--follow'"))
    }
  }

  @Test func consumerGroupsSplitACategorysStreamsAsMessageDBDoes() throws {
    try withTemporaryDirectory { directory in
      let server = try PostgresTestSetup.initializedServer()
      defer { try? server.stop(removing: true) }
      let url = server.url()
      let log = try PostgresTestSetup.sampleLog(
        in: directory, generating: 1500, seed: "groups", chunkSize: nil, shippingTo: url)
      let last = try ReplayProcess.run(["log", "--json", "--log", log]).output
        .split(separator: "\n").count
      for category in ["contact", "observation"] {
        let all = try ReplayProcess.run(["log", "--json", "--category", category, "--log", log])
        let everyLine = all.output.split(separator: "\n").map(String.init)
        #expect(everyLine.count > 50)
        var seen: [String] = []
        var owner: [String: Int] = [:]
        for member in 1...3 {
          let arguments = [
            "log", "-f", "--json", "--category", category, "--group", "\(member)/3", "--to",
            String(last),
          ]
          let fromFile = try ReplayProcess.run(arguments + ["--log", log])
          let fromDatabase = try ReplayProcess.run(arguments + ["--log", url])
          #expect(fromFile.status == 0 && fromDatabase.status == 0, "\(fromFile.error)")
          #expect(fromDatabase.output == fromFile.output)
          let lines = fromFile.output.split(separator: "\n").map(String.init)
          #expect(!lines.isEmpty)
          seen += lines
          let streams = Set(lines.map(Self.stream))
          for stream in streams {
            #expect(owner[stream] == nil, "\(stream) in two members")
            owner[stream] = member
          }
          // Message DB's own split of the shipped table: the same streams.
          let chosen = try server.psql(
            "SELECT DISTINCT stream_name FROM message_store.get_category_messages("
              + "'\(category)', 1, -1, NULL, \(member - 1), 3)")
          #expect(Set(chosen.split(separator: "\n").map(String.init)) == streams)
        }
        // Together: every event of the category once, each stream's in order.
        #expect(seen.sorted() == everyLine.sorted())
      }
      for bad in ["0/2", "3/2", "x", "1/0", "1/2/3"] {
        let refused = try ReplayProcess.run(["log", "-f", "--group", bad, "--log", log])
        #expect(refused.status == 64, "\(bad)")
        #expect(refused.error.contains("such as 1/3"), "\(bad)")
      }
    }
  }

  /// A line's stream.
  static func stream(_ line: String) -> String {
    guard let start = line.range(of: #""stream":""#) else { return "" }
    return String(line[start.upperBound...].prefix(while: { $0 != "\"" }))
  }
}
