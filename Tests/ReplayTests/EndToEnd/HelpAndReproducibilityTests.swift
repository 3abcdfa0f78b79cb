import Foundation
import Testing

@Suite struct HelpTests {
  @Test func helpFlagsAndTheHelpSubcommandPrintTheSameTextToStandardOutput() throws {
    let long = try ReplayProcess.run(["verify", "--help"])
    let short = try ReplayProcess.run(["verify", "-h"])
    let subcommand = try ReplayProcess.run(["help", "verify"])
    #expect(long.status == 0 && short.status == 0 && subcommand.status == 0)
    #expect(long.error == "" && short.output == long.output && subcommand.output == long.output)
    #expect(
      long.output == """
        OVERVIEW: Check the whole log's integrity without changing it.

        Checks every line: its checksum and envelope, seq gapless from 1, versions
        consecutive per stream, ids unique, multi-event writes complete, payloads valid
        JSON. Also re-hashes the prefix every checkpoint in <log>.checkpoints/ covers
        (a checkpoint past the log's end means the log is shorter than it was) and
        lists the files in <log>.quarantine/ (bytes recovery or 'replay repair' cut).
        Prints a one-line summary and exits 0, or lists every problem with its line
        number and exits 74. It never repairs anything ('replay repair' does). On a
        terminal, standard error shows the progress of a long check.

        USAGE: replay verify [--log <path>] [--digest <seq:sha256>] [--note <file>] [--key <verifier-key>] [--rehash] [--json]

        OPTIONS:
          --log <path>            The event log file. (default: $REPLAY_LOG, else
                                  ./events.jsonl)
          --digest <seq:sha256>   Also prove the log still begins with the events a
                                  'replay digest' covered.
          --note <file>           Instead: check the log against a signed tree head
                                  ('replay head --sign').
          --key <verifier-key>    The key the --note must be signed with (or a file
                                  holding it).
          --rehash                With --note: rebuild the tree from every line, not
                                  from the <log>.tree cache.
          --json                  Print JSON instead of a table.
          --version               Show the version.
          -h, --help              Show help information.


        """)
  }

  @Test func rootHelpListsTheExitCodes() throws {
    let help = try ReplayProcess.run(["--help"])
    #expect(help.status == 0)
    #expect(
      help.output.contains(
        """
        EXIT CODES:
          0   Success.
          1   Unexpected internal error.
          3   Expected-version conflict: the stream changed; reload and retry.
          64  Usage error: bad command line.
          65  Invalid input data: bad JSON, unknown event type, rule violation.
          66  Input file missing or unreadable, including a missing log.
          69  A remote source is unavailable: network or HTTP failure.
          73  Cannot create an output file.
          74  Log corrupt or I/O error; also 'verify' finding problems.
          75  Temporary failure: lock timeout.
          77  Permission denied: the database refused the user or password.
        """))
  }

  @Test func versionPrintsTheVersion() throws {
    let result = try ReplayProcess.run(["--version"])
    #expect(result.status == 0)
    #expect(result.output == "0.1.0\n")
  }

  @Test func aMissingValueIsAUsageErrorNamingTheOption() throws {
    let result = try ReplayProcess.run(["log", "--from"])
    #expect(result.status == 64)
    #expect(
      result.error == """
        Error: Missing value for '--from <seq|time>'
        Help:  --from <seq|time>  The first seq to list, or the first time (ISO 8601) to list from.
        Usage: replay log [--log <path>] [--from <seq|time>] [--to <seq>] [--stream <stream>] [--category <category>] [--type <type>] [--group <member/size>] [--limit <n>] [--follow] [--retry-for <seconds>] [--json] [--leaf-hashes]
          See 'replay log --help' for more information.

        """)
  }
}

@Suite struct ReproducibilityTests {
  @Test func aFixedClockAndIDSeedGiveByteIdenticalLogs() throws {
    try withTemporaryDirectory { directory in
      var logs: [[UInt8]] = []
      for run in 1...2 {
        let log = directory + "/run\(run).jsonl"
        for number in 1...3 {
          let result = try ReplayProcess.run(
            [
              "append", "--log", log, "--stream", "contact-\(number)", "--type", "ContactFavorited",
              "--data", #"{"id":"\#(number)"}"#,
            ],
            environment: ["REPLAY_CLOCK": "2026-11-01T09:00:00+01:00", "REPLAY_ID_SEED": "story"])
          #expect(result.status == 0)
        }
        logs.append(fileBytes(directory + "/run\(run).jsonl"))
      }
      #expect(logs[0] == logs[1])
      let text = String(decoding: logs[0], as: UTF8.self)
      #expect(text.contains(#""at":"2026-11-01T08:00:00.000Z""#))
      let options = try ReplayProcess.run(
        [
          "append", "--log", directory + "/run3.jsonl", "--stream", "contact-1", "--type",
          "ContactFavorited", "--data", #"{"id":"1"}"#,
          "--clock", "2026-11-01T08:00:00Z", "--id-seed", "story",
        ])
      #expect(options.status == 0)
      #expect(
        fileBytes(directory + "/run3.jsonl")
          == Array(logs[0].prefix(through: logs[0].firstIndex(of: 0x0A) ?? 0)))
    }
  }

  @Test func aBadClockIsAUsageError() throws {
    try withTemporaryDirectory { directory in
      let result = try ReplayProcess.run(
        [
          "append", "--log", directory + "/log.jsonl", "--stream", "contact-1", "--type",
          "ContactFavorited", "--data", #"{"id":"1"}"#, "--clock", "yesterday",
        ])
      #expect(result.status == 64)
      #expect(
        result.error.hasPrefix(
          "Error: The value 'yesterday' is invalid for '--clock <time>' (or $REPLAY_CLOCK): expected an ISO 8601 time such as 2026-11-22T10:15:00Z\n"
        ))
    }
  }
}
