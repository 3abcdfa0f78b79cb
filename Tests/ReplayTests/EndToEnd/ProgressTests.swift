import Foundation
import Testing

/// Long work shows its progress on standard error when that is a terminal, and only then.
@Suite struct ProgressTests {
  /// Each command that shows progress (it comes every 8,192 lines of the 20,000-event log), the label it shows, and its arguments after `--log`.
  static let commands: [(label: String, arguments: [String])] = [
    ("verifying", ["verify"]),
    ("rebuilding", ["rebuild", "--no-checkpoints"]),
    ("reading the log", ["report", "--output", "report.html"]),
    ("copying and sealing", ["migrate", "--encrypt-personal-data", "--output", "new.jsonl"]),
  ]

  /// A generated log of `events` events in writes of `chunkSize`, unsynced (a scratch log).
  static func generatedLog(
    in directory: String, events: Int = 20_000, chunkSize: Int = 5000, seed: String = "progress"
  ) throws -> String {
    let log = directory + "/events.jsonl"
    let generated = try ReplayProcess.run([
      "generate", "--events", String(events), "--seed", seed, "--chunk-size", String(chunkSize),
      "--log", log, "--no-fsync",
    ])
    #expect(generated.status == 0, "\(generated.error)")
    return log
  }

  /// Runs `replay` under a pseudo-terminal (`script -qc`): what the terminal showed, standard
  /// output and error together.
  static func runOnATerminal(_ arguments: [String], in directory: String) throws
    -> ReplayProcess.Result
  {
    let command = ([ReplayProcess.executable.path] + arguments).map { "'\($0)'" }
      .joined(separator: " ")
    return try ReplayProcess.run(
      ["-qc", command, "/dev/null"], environment: ["REPLAY_PROGRESS_DELAY": "0"],
      directory: directory, executable: URL(fileURLWithPath: "/usr/bin/script"))
  }

  @Test func aTerminalSeesProgressWithARateAndAnEstimateThenTheResult() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.generatedLog(in: directory)
      for (label, arguments) in Self.commands {
        let shown = try Self.runOnATerminal(arguments + ["--log", log], in: directory)
        #expect(shown.status == 0, "\(arguments): \(shown.output)")
        // "\rverifying 2.5/6.2 MB (40%), 19.9 MB/s, about 1 s left\e[K", cleared before the result.
        let drawn = shown.output.components(separatedBy: "\r\(label) ").dropFirst()
        #expect(!drawn.isEmpty, "\(arguments): \(shown.output)")
        for line in drawn {
          #expect(line.contains(" MB ("), "\(line)")
          #expect(line.contains(" MB/s"), "\(line)")
        }
        #expect(shown.output.contains("\u{1B}[K\r\u{1B}[K"), "\(arguments): cleared")
      }
      let generated = try Self.runOnATerminal(
        [
          "generate", "--events", "20000", "--seed", "p", "--chunk-size", "5000", "--log",
          directory + "/generated.jsonl", "--no-fsync",
        ], in: directory)
      #expect(generated.output.contains("\rgenerating 20000/20000 events (100%), "))
      #expect(generated.output.contains("\rgenerating 5000/20000 events (25%), "))
      #expect(generated.output.contains(" events/s, about "))
    }
  }

  @Test func standardErrorThatIsNotATerminalSeesNoProgress() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.generatedLog(in: directory)
      #expect(!fileBytes(log).isEmpty)
      for (label, arguments) in Self.commands {
        let result = try ReplayProcess.run(
          arguments + ["--log", log], environment: ["REPLAY_PROGRESS_DELAY": "0"],
          directory: directory)
        #expect(result.status == 0, "\(arguments): \(result.error)")
        #expect(!result.error.contains(label), "\(arguments): \(result.error)")
        #expect(!result.error.contains("\r"), "\(arguments): \(result.error)")
      }
      let generated = try ReplayProcess.run(
        [
          "generate", "--events", "20000", "--seed", "p", "--chunk-size", "5000", "--log",
          directory + "/generated.jsonl",
        ], environment: ["REPLAY_PROGRESS_DELAY": "0"])
      #expect(generated.status == 0)
      #expect(generated.error == "")
    }
  }
}
