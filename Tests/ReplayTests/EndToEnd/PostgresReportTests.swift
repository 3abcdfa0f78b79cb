import Foundation
import ReplayTestSupport
import Testing

/// `replay report --log postgresql://…`: the page a database gives equals the page of the file
/// it was shipped from, but for what only a file has (its size, quarantine and checkpoint
/// folder) and the source's name; the digest and the tree head are the file's; the database's
/// verifier gives the verdict; nothing personal shows after an erasure.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresReportTests {
  /// The report of `log` or `url` with `arguments`, written to `output`.
  private func report(
    _ arguments: [String], log: String, output: String
  ) throws -> (result: ReplayProcess.Result, page: String) {
    let result = try ReplayProcess.run(["report", "--output", output, "--log", log] + arguments)
    let page = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return (result, page)
  }

  /// The page without what names its source: the log's name in place of the database's, the
  /// facts only a file or only a database has, and the footer.
  private func sourceFree(_ page: String, url: String, log: String) -> String {
    var page = page.replacingOccurrences(of: url, with: (log as NSString).lastPathComponent)
    for first in ["<dt>Log size</dt>", "<dt>Source</dt>"] {
      if let start = page.range(of: first), let end = page.range(of: "<dt>Warnings</dt>") {
        page.removeSubrange(start.lowerBound..<end.lowerBound)
      }
    }
    if let start = page.range(of: "<footer>"), let end = page.range(of: "</footer>") {
      page.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return page
  }

  /// The digest and the tree head a page shows, in its order.
  private func codes(in page: String) -> [String] {
    page.components(separatedBy: "<code class=\"digest\">").dropFirst().prefix(2).map {
      String($0.prefix { $0 != "<" })
    }
  }

  @Test func reportFromPostgresEqualsTheReportOfTheFile() throws {
    try withShippedSample(seed: "pgreport") { directory, _, log, url in
      let fromFile = directory + "/file.html"
      let fromDatabase = directory + "/database.html"
      for arguments in [
        [], ["--at", "88"], ["--from", "50", "--to", "300"], ["--at", "297", "--to", "500"],
        ["--as-of", "2026-11-02T00:00:00Z"], ["--as-of", "2026-11-03T00:00:00Z", "--to", "600"],
        ["--at", "0"], ["--at", "0", "--to", "10"], ["--from", "2026-11-01T00:00:00Z"],
        // Refused alike: a seq inside an atomic write, a window the wrong way round.
        ["--at", "100"], ["--from", "700", "--to", "20"],
      ] {
        try? FileManager.default.removeItem(atPath: fromFile)
        try? FileManager.default.removeItem(atPath: fromDatabase)
        let file = try report(arguments, log: log, output: fromFile)
        let database = try report(arguments, log: url, output: fromDatabase)
        #expect(database.result.status == file.result.status, "\(arguments) \(database.result)")
        #expect(
          database.result.error.replacingOccurrences(of: url, with: log) == file.result.error,
          "\(arguments)")
        #expect(
          database.result.output.replacingOccurrences(of: url, with: log)
            .replacingOccurrences(of: fromDatabase, with: fromFile)
            .replacingOccurrences(of: " \(database.page.utf8.count) bytes", with: "")
            == file.result.output.replacingOccurrences(
              of: " \(file.page.utf8.count) bytes", with: ""),
          "\(arguments)")
        guard file.result.status == 0 else {
          #expect(!FileManager.default.fileExists(atPath: fromDatabase), "\(arguments)")
          continue
        }
        #expect(!database.page.isEmpty)
        #expect(
          sourceFree(database.page, url: url, log: log)
            == sourceFree(file.page, url: url, log: log),
          "\(arguments)")
      }
      // What the database's page says in place of the file's size, quarantine and folder.
      let database = try report([], log: url, output: fromDatabase)
      #expect(
        database.page.contains(
          "<dt>Source</dt><dd>PostgreSQL database \(url), 747 rows (no file: no log size, "
            + "no quarantine)</dd><dt>Checkpoints</dt><dd>0 in message_store.replay_checkpoints"
            + "</dd>"))
      #expect(!database.page.contains("Quarantined bytes"))
      #expect(try ReplayProcess.run(["checkpoint", "--log", url]).status == 0)
      #expect(
        try report([], log: url, output: fromDatabase).page.contains(
          "<dd>1 in message_store.replay_checkpoints</dd>"))

      // --json: the same but for the output's name and size.
      func fields(_ output: String) throws -> NSDictionary {
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8))
        var dictionary = try #require(object as? [String: Any])
        dictionary["output"] = nil
        dictionary["bytes"] = nil
        return NSDictionary(dictionary: dictionary)
      }
      for arguments in [["--json"], ["--json", "--from", "50", "--to", "300"]] {
        let file = try report(arguments, log: log, output: fromFile).result
        let database = try report(arguments, log: url, output: fromDatabase).result
        #expect(file.status == 0 && database.status == 0)
        #expect(try fields(database.output) == fields(file.output), "\(arguments)")
      }
    }
  }

  /// The digest and the tree head on the database's page are `replay digest` and `replay head`
  /// of the file: a row's line is the file's line, byte for byte. A note signed on the file
  /// verifies against the database; one of a longer log does not.
  @Test func rootAndDigestFromPostgresEqualTheFile() throws {
    try withShippedSample(seed: "pgreport") { directory, _, log, url in
      let output = directory + "/database.html"
      for at in [nil, "297", "88"] as [String?] {
        let point = at.map { ["--at", $0] } ?? []
        let head = try ReplayProcess.run(["head", "--log", log, "--json"] + point)
        let digest = try ReplayProcess.run(["digest", "--log", log] + point)
        #expect(head.status == 0 && digest.status == 0)
        let headFields = try #require(
          try JSONSerialization.jsonObject(with: Data(head.output.utf8)) as? [String: Any])
        let size = try #require(headFields["treeSize"] as? Int)
        let root = try #require(headFields["rootHash"] as? String)
        try? FileManager.default.removeItem(atPath: output)
        let (result, page) = try report(point, log: url, output: output)
        #expect(result.status == 0, "\(point) \(result.error)")
        let expectedDigest = digest.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(codes(in: page) == [expectedDigest, "\(size) \(root)"], "\(point)")
      }

      let key = directory + "/signer.key"
      let verifier = try ReplayProcess.run(["keygen", "--name", "auditor", "--output", key])
      #expect(verifier.status == 0)
      let verifierKey = verifier.output.trimmingCharacters(in: .whitespacesAndNewlines)
      let note = directory + "/head.note"
      let signed = try ReplayProcess.run(["head", "--log", log, "--at", "500", "--sign", key])
      #expect(signed.status == 0)
      try signed.output.write(toFile: note, atomically: true, encoding: .utf8)
      let checked = try report(
        ["--note", note, "--key", verifierKey, "--json"], log: url, output: output)
      #expect(checked.result.status == 0, "\(checked.result.error)")
      #expect(checked.result.output.contains("\"noteVerifies\":true"))
      #expect(checked.page.contains("the log (747 events) extends it"))

      // A note of a longer log: the database has fewer events than it signs.
      _ = try ReplayProcess.run([
        "generate", "--events", "20", "--seed", "longer", "--append", "--log", log,
      ])
      let longer = try ReplayProcess.run(["head", "--log", log, "--sign", key])
      try longer.output.write(toFile: note, atomically: true, encoding: .utf8)
      let refused = try report(
        ["--note", note, "--key", verifierKey, "--json"], log: url, output: output)
      #expect(refused.result.output.contains("\"noteVerifies\":false"))
      #expect(refused.result.error.contains("the log has 747 events, fewer than the"))
    }
  }

  /// `stats`, `digest` and `head` on the database print what they print on the file (the
  /// stats name the lines' bytes where the file has its size), errors alike.
  @Test func statsDigestHeadAndProveFromPostgresEqualTheFile() throws {
    try withShippedSample(seed: "pgreport") { directory, _, log, url in
      let key = directory + "/signer.key"
      #expect(
        try ReplayProcess.run(["keygen", "--name", "auditor", "--output", key]).status == 0)
      for arguments in [
        ["stats"], ["stats", "--json"], ["digest"], ["digest", "--at", "297", "--json"],
        ["digest", "--at", "900"], ["head"], ["head", "--at", "297", "--json"],
        ["head", "--as-of", "2026-11-02T00:00:00Z"], ["head", "--at", "900"],
        ["head", "--at", "500", "--sign", key, "--origin", "example.com/log"],
        ["prove", "148"], ["prove", "148", "--head", "297", "--json"],
        ["prove", "--consistency", "100", "--head", "500"], ["prove", "--consistency", "297"],
        ["prove", "900"], ["prove", "400", "--head", "300"], ["prove", "--consistency", "600"],
      ] {
        let fromFile = try ReplayProcess.run(arguments + ["--log", log])
        let fromDatabase = try ReplayProcess.run(arguments + ["--log", url])
        #expect(fromFile.status == fromDatabase.status, "\(arguments)")
        #expect(
          fromDatabase.output.replacingOccurrences(of: "line bytes  ", with: "file size   ")
            == fromFile.output, "\(arguments)")
        #expect(
          fromDatabase.error.replacingOccurrences(of: url, with: log) == fromFile.error,
          "\(arguments)")
      }
      let stats = try ReplayProcess.run(["stats", "--log", url])
      #expect(stats.output.contains("\nline bytes  "))
    }
  }

  /// Reports written while `ship` adds rows between the report's passes: each page is of one
  /// point (its digest, tree head and title agree on the seq) and that point's digest is the
  /// file's.
  @Test func reportsRacingAShipperAreEachOfOnePoint() throws {
    try withShippedSample(seed: "pgreport") { directory, _, log, url in
      let replay = ReplayProcess.executable.path
      let shipper = Process()
      shipper.executableURL = URL(fileURLWithPath: "/bin/bash")
      shipper.arguments = [
        "-c",
        """
        for i in $(seq 1 30); do
          '\(replay)' generate --events 20 --seed race$i --append --chunk-size 5 --log '\(log)' \
            > /dev/null && '\(replay)' ship --log '\(log)' --to '\(url)' > /dev/null || exit 1
        done
        """,
      ]
      try shipper.run()
      var points: [String] = []
      // Until the shipper is done, and a few more after.
      var round = 0
      while shipper.isRunning || round < 4 {
        round += 1
        let output = directory + "/race\(round).html"
        let (result, page) = try report([], log: url, output: output)
        #expect(result.status == 0, "\(result.error)")
        let codes = codes(in: page)
        let sequence = try #require(codes.first?.split(separator: ":").first.map(String.init))
        #expect(codes.last?.hasPrefix(sequence + " ") == true, "\(codes)")
        #expect(page.contains("<title>replay report: \u{2068}\(url)\u{2069} at seq \(sequence)<"))
        points.append(codes.first ?? "")
      }
      shipper.waitUntilExit()
      #expect(shipper.terminationStatus == 0)
      for point in points {
        let sequence = String(point.prefix { $0 != ":" })
        let digest = try ReplayProcess.run(["digest", "--log", log, "--at", sequence])
        #expect(digest.output == point + "\n")
      }
      #expect(Set(points).count > 1, "the shipper added no row while the reports ran")
    }
  }

  /// A row changed in the database: with --verify, the page's verdict fails and names the
  /// row; a changed line fails the report itself, and nothing is written.
  @Test func tamperedRowFailsTheIntegrityVerdict() throws {
    try withShippedSample(seed: "pgreport") { directory, server, _, url in
      let output = directory + "/database.html"
      let clean = try report(["--verify"], log: url, output: output)
      #expect(clean.result.status == 0)
      #expect(clean.page.contains("data-problems=\"0\""))
      #expect(clean.page.contains("<dd class=\"ok\">ok: 747 events,"))

      _ = try server.psql(
        "UPDATE message_store.messages SET data = jsonb_set(data, '{title}', "
          + "'\"Red-tailed Hawl\"') WHERE global_position = 1")
      let tampered = try report(["--verify"], log: url, output: output)
      #expect(tampered.result.status == 0)
      #expect(tampered.page.contains("data-problems=\"1\""))
      #expect(tampered.page.contains("global_position 1: data differs from the line&#39;s data"))
      // Without --verify the page says the check was not run.
      #expect(try report([], log: url, output: output).page.contains("not run for this page"))

      // A byte of a line: its checksum fails the report's own pass; the old page stays.
      let before = try Data(contentsOf: URL(fileURLWithPath: output))
      _ = try server.psql(
        "UPDATE message_store.messages SET metadata = jsonb_set(metadata, '{line}', "
          + "to_jsonb(replace(metadata->>'line', 'Hawk', 'Hawl'))) WHERE global_position = 1")
      let broken = try report([], log: url, output: output)
      #expect(broken.result.status == 74, "\(broken.result)")
      #expect(broken.result.error.contains(url))
      #expect(broken.result.error.contains("checksum mismatch"))
      #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
    }
  }

  /// --output on the database path follows the file path's rules: an existing file is
  /// replaced whole, a directory is refused (exit 73, nothing changed), and a database that
  /// cannot be reached writes nothing.
  @Test func outputIsHandledAsOnTheFile() throws {
    try withShippedSample(seed: "pgreport") { directory, server, log, url in
      let output = directory + "/existing.html"
      try String(repeating: "old page ", count: 100_000).write(
        toFile: output, atomically: true, encoding: .utf8)
      let written = try report([], log: url, output: output)
      #expect(written.result.status == 0, "\(written.result.error)")
      #expect(written.page.hasPrefix("<!DOCTYPE html>"))
      #expect(!written.page.contains("old page"))
      #expect(written.page.hasSuffix("</html>\n"))

      let folder = directory + "/folder"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
      let onFile = try report([], log: log, output: folder)
      let onDatabase = try report([], log: url, output: folder)
      #expect(onFile.result.status == 73)
      #expect(onDatabase.result.status == 73)
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

      // The server gone: a clear error, and the page written before stays as it was.
      let before = try Data(contentsOf: URL(fileURLWithPath: output))
      try server.stop()
      let unreachable = try report([], log: url, output: output)
      #expect(unreachable.result.status == 69, "\(unreachable.result)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: directory).filter {
          $0.hasSuffix(".tmp")
        }.isEmpty)
    }
  }

  /// After `contacts erase` is shipped, the page from the database holds none of the contact's
  /// personal data, as the file's does not; before it, both show it. A password in the URL
  /// shows nowhere.
  @Test func erasedContactShowsNoPersonalDataAndThePasswordNowhere() throws {
    try withShippedSample(seed: "pgreport") { directory, server, log, url in
      let output = directory + "/database.html"
      let before = try report([], log: url, output: output)
      #expect(before.page.contains("Miss.Piggy@muppetsbaby.com"))
      let erased = try ReplayProcess.run(
        ["contacts", "erase", "13", "--log", log, "--actor", "dpo", "--reason", "request"])
      #expect(erased.status == 0, "\(erased.error)")
      #expect(try ReplayProcess.run(["ship", "--log", log, "--to", url]).status == 0)
      for source in [url, log] {
        let after = try report(["--verify"], log: source, output: output)
        #expect(after.result.status == 0, "\(after.result.error)")
        for personal in ["Miss.Piggy", "muppetsbaby", "Piggy"] {
          #expect(!after.page.contains(personal), "\(source): \(personal)")
        }
      }

      let withPassword = server.url(user: "scram_user", password: "secret")
      let secret = try report(["--json"], log: withPassword, output: output)
      #expect(secret.result.status == 0, "\(secret.result.error)")
      #expect(!secret.page.contains("secret"))
      #expect(!secret.result.output.contains("secret"))
      let plain = try report([], log: withPassword, output: output)
      #expect(plain.result.output.hasPrefix("wrote the report of postgresql://scram_user:***@"))
      #expect(!plain.result.output.contains("secret"))
    }
  }
}
