import Foundation
import Testing

/// End-to-end tests of `replay generate`: the built binary writes a log that verifies, the
/// same seed gives the same bytes, and a log with events is never written into by accident.
@Suite struct GenerateCommandTests {
  @Test func generatesAVerifiableLogAndSummarizesIt() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let result = try ReplayProcess.run([
        "generate", "--events", "2500", "--seed", "7", "--log", log, "--chunk-size", "1000",
        "--no-fsync",
      ])
      #expect(result.status == 0)
      #expect(
        result.error
          == "warning: --no-fsync: appends are not synced to disk; a machine crash can lose them\n"
      )
      let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(lines[0] == "generated 2500 events (seq 1...2500) into '\(log)' in 3 atomic writes:")
      #expect(lines[1].hasPrefix("\(fileBytes(log).count) bytes, "))
      #expect(lines[2] == "TYPE                 EVENTS  SHARE")
      #expect(lines[3].hasPrefix("ContactFavorited ") || lines[3].hasPrefix("ContactUnfavorited "))
      // One row per event type: all eighteen appear in 2500 events.
      #expect(lines.count == 3 + 18 + 1)
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0)
      #expect(verify.output.hasPrefix("ok: 2500 events, "))
    }
  }

  @Test func theSameSeedGivesTheSameBytesAndAnotherSeedOthers() throws {
    try withTemporaryDirectory { directory in
      for name in ["a", "b", "c"] {
        let seed = name == "c" ? "other" : "same"
        let result = try ReplayProcess.run([
          "generate", "--events", "1500", "--seed", seed, "--log", directory + "/\(name).jsonl",
        ])
        #expect(result.status == 0, "\(result.error)")
      }
      let first = fileBytes(directory + "/a.jsonl")
      #expect(!first.isEmpty)
      #expect(first == fileBytes(directory + "/b.jsonl"))
      #expect(first != fileBytes(directory + "/c.jsonl"))
      #expect(String(decoding: first.prefix(80), as: UTF8.self).hasPrefix(#"{"seq":1,"id":""#))
    }
  }

  @Test func aLogWithEventsIsRefusedAndLeftAlone() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run(["generate", "--events", "10", "--seed", "1", "--log", log])
      let before = fileBytes(log)
      let result = try ReplayProcess.run([
        "generate", "--events", "10", "--seed", "1", "--log", log,
      ])
      #expect(result.status == 65)
      #expect(
        result.error
          == "Error: '\(log)' already holds \(before.count) bytes; generate writes a new log, so the same seed always gives the same bytes: remove the file, choose another --log, or pass --append to add to it\n"
      )
      #expect(result.output == "")
      #expect(fileBytes(log) == before)
    }
  }

  @Test func appendAddsValidEventsAfterTheLastOne() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run(["generate", "--events", "1200", "--seed", "1", "--log", log])
      let before = fileBytes(log)
      let result = try ReplayProcess.run([
        "generate", "--events", "800", "--seed", "1", "--log", log, "--append",
      ])
      #expect(result.status == 0, "\(result.error)")
      #expect(result.output.hasPrefix("generated 800 events (seq 1201...2000) into "))
      let after = fileBytes(log)
      #expect(Array(after.prefix(before.count)) == before)
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0, "\(verify.output)")
      // The clock goes on a minute after the last event rather than back to the start.
      let appended = try ReplayProcess.run([
        "log", "--log", log, "--from", "1201", "--limit", "1", "--json",
      ])
      #expect(appended.output.contains(#""at":"2024-01-01T00:01:00.000Z""#))
    }
  }

  @Test(arguments: [
    (
      ["--events", "-3", "--seed", "1"],
      "Error: The value '-3' is invalid for '--events <n>': expected a whole number ≥ 0"
    ),
    (["--events", "10"], "Error: Missing expected argument '--seed <seed>'"),
    (
      ["--events", "10", "--seed", "1", "--chunk-size", "0"],
      "Error: The value '0' is invalid for '--chunk-size <n>': expected a whole number ≥ 1"
    ),
  ])
  func badArgumentsAreUsageErrors(arguments: [String], message: String) throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let result = try ReplayProcess.run(["generate", "--log", log] + arguments)
      #expect(result.status == 64)
      #expect(result.error.hasPrefix(message + "\n"), "\(result.error)")
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }
}
