import Foundation
import Testing

/// `--json` on the commands that write something (`generate`, `report`, `migrate`; `repair` in
/// `RepairCommandTests`), in the words the other commands use: `firstSeq`/`lastSeq`, `bytes`,
/// `seconds`, `eventsPerSecond`, `eventsByType`, `null` for what is absent.
@Suite struct JSONSummaryTests {
  /// The document printed on standard output, as an object (a test may use Foundation's
  /// decoder; the commands never do).
  static func object(_ output: String) throws -> [String: Any] {
    #expect(output.hasSuffix("}\n") && output.split(separator: "\n").count == 1, "\(output)")
    return try #require(
      try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
  }

  @Test func generateSaysWhatItAppendedAsData() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/generated.jsonl"
      let result = try ReplayProcess.run([
        "generate", "--events", "30", "--seed", "json", "--chunk-size", "10", "--log", log,
        "--json",
      ])
      #expect(result.status == 0, "\(result.error)")
      let prefix =
        #"{"log":"\#(log)","appended":30,"firstSeq":1,"lastSeq":30,"writes":3,"#
        + #""bytes":\#(fileBytes(log).count),"seconds":"#
      #expect(result.output.hasPrefix(prefix), "\(result.output)")
      let object = try Self.object(result.output)
      #expect(object["seconds"] is Double)
      #expect(object["eventsPerSecond"] is Double)
      let types = try #require(object["eventsByType"] as? [String: Int])
      #expect(types.values.reduce(0, +) == 30)
      // Without --json, the same run prints its table.
      let text = try ReplayProcess.run([
        "generate", "--events", "30", "--seed", "json", "--chunk-size", "10",
        "--log", directory + "/text.jsonl",
      ])
      #expect(text.output.hasPrefix("generated 30 events (seq 1...30) into"))
      #expect(fileBytes(directory + "/text.jsonl") == fileBytes(log))
    }
  }

  @Test func reportSaysItsPointWindowAndFileAsData() throws {
    try withTemporaryDirectory { directory in
      let output = directory + "/report.html"
      let result = try ReplayProcess.run([
        "report", "--log", SampleLogTests.sample, "--output", output, "--from", "100", "--json",
      ])
      #expect(result.status == 0, "\(result.error)")
      let changed = try #require(try Self.object(result.output)["entitiesChanged"] as? Int)
      #expect(
        result.output
          == #"{"seq":147,"window":{"firstSeq":100,"lastSeq":147,"events":48},"#
          + #""entitiesChanged":\#(changed),"output":"\#(output)","#
          + #""bytes":\#(fileBytes(output).count)}"# + "\n")
      let text = try ReplayProcess.run([
        "report", "--log", SampleLogTests.sample, "--output", directory + "/text.html",
        "--from", "100",
      ])
      #expect(text.output.contains("(48 events in the window, \(changed) entities' changes)"))
    }
  }

  @Test func migrateSaysWhatItSealedAsData() throws {
    try withTemporaryDirectory { directory in
      let old = try MigrateCommandTests.copyLogInClear(to: directory + "/old.jsonl")
      let new = directory + "/new.jsonl"
      let result = try ReplayProcess.run([
        "migrate", "--encrypt-personal-data", "--output", new, "--log", old, "--json",
      ])
      #expect(result.status == 0, "\(result.error)")
      #expect(
        result.output
          == #"{"output":"\#(new)","events":147,"sealed":18,"alreadySealed":0,"#
          + #""keys":{"path":"\#(new).keys","made":18,"carriedOver":0},"#
          + #""comparedAt":[17,88,119,137,138,140,141,142,144,145,146,147],"#
          + #""oldLogHeldPersonalDataInClear":true,"note":"the old log '\#(old)' still holds "#
          + #"the personal data in clear, with its checkpoints and index; deleting it (and its "#
          + #"backups) is your step, and erasures are complete only then"}"# + "\n")
    }
  }
}
