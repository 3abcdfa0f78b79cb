@testable import replay

/// A small command tree that exercises every feature of the framework; its commands print what
/// they parsed, so tests can check parsing through the output.
enum SampleCommands {
  static let version = "1.2.3"

  static let root = Command(
    name: "replay",
    abstract: "Record and replay event streams.",
    discussion: """
      Events are appended to a log file and replayed to build read models. Every command \
      reads the log given by '--log'.
      """,
    subcommands: [append, read, streams])

  static let append = Command(
    name: "append",
    abstract: "Append events to a stream.",
    arguments: [
      Argument(name: "stream", help: "The stream to append to."),
      Argument(
        name: "events",
        help: "Events as JSON objects; when none are given, one event per line is read from "
          + "standard input until it ends.",
        isOptional: true, isRepeating: true),
    ],
    options: [log, expectedVersion, tag, verbose, quiet, debugDump],
    run: { invocation in
      let summary = [
        "stream=\(invocation.argument("stream") ?? "-")",
        "events=\(invocation.arguments("events"))",
        "log=\(invocation[SampleCommands.log] ?? "-")",
        "expected=\(try invocation[SampleCommands.expectedVersion].map(String.init) ?? "-")",
        "tags=\(invocation.values(SampleCommands.tag))",
        "verbose=\(invocation[SampleCommands.verbose])",
        "quiet=\(invocation[SampleCommands.quiet])",
        "debug=\(invocation[SampleCommands.debugDump])",
      ]
      invocation.terminal.write(summary.joined(separator: " ") + "\n")
      return .success
    })

  static let log = TextOption(
    names: ["-l", "--log"], valueName: "path", help: "The event log.", defaultValue: "events.log")
  static let expectedVersion = ValueOption(
    names: ["--expected-version"], valueName: "version",
    help: "Fail unless the stream is at this version.",
    expecting: "expected a non-negative whole number"
  ) { UInt64($0) }
  static let tag = TextOption(
    names: ["--tag"], valueName: "tag", help: "A tag for every event; repeat for several.",
    isRepeating: true)
  static let verbose = Flag(["-v", "--verbose"], help: "Print each event as it is appended.")
  static let quiet = Flag(["-q", "--quiet"], help: "Print nothing.")
  static let debugDump = Flag(["--debug-dump"], help: "Dump internal state.", isHidden: true)

  static let read = Command(
    name: "read",
    abstract: "Print the events of a stream.",
    arguments: [Argument(name: "stream", help: "The stream to read.")],
    options: [from, format, limit],
    run: { invocation in
      let from = try invocation[SampleCommands.from]
      let format = try invocation[SampleCommands.format]
      let limit = try invocation[SampleCommands.limit]
      invocation.terminal.write(
        "stream=\(invocation.requiredValue("stream")) from=\(from.map(String.init) ?? "-") "
          + "format=\(format ?? "-") limit=\(limit.map(String.init) ?? "-")\n")
      return .success
    })

  static let from = ValueOption(
    names: ["--from"], valueName: "seq", help: "The first sequence number to print.",
    defaultValue: "0", expecting: "expected a non-negative whole number"
  ) { UInt64($0) }
  static let format = ValueOption(
    names: ["-f", "--format"], valueName: "format", help: "How to print events.",
    defaultValue: "json", choices: ["json", "text", "table"])
  static let limit = ValueOption(
    names: ["--limit"], valueName: "count", help: "Print at most this many events.",
    expecting: "expected a whole number"
  ) { Int($0) }
  static let prefix = TextOption(
    names: ["--prefix"], valueName: "prefix", help: "Only streams whose names start with this.")
  static let count = Flag(["--count"], help: "Print only how many there are.")

  /// A nested group with an option of its own, which its subcommand can read.
  static let streams = Command(
    name: "streams",
    abstract: "Inspect the streams in the log.",
    options: [prefix],
    subcommands: [
      Command(
        name: "list",
        abstract: "List the streams.",
        options: [count],
        run: { invocation in
          invocation.terminal.write(
            "prefix=\(invocation[SampleCommands.prefix] ?? "-") count=\(invocation[SampleCommands.count])\n"
          )
          return .success
        })
    ])

  /// Runs the sample tree in process.
  static func run(_ arguments: [String]) -> (status: ExitCode, output: String, error: String) {
    let terminal = Terminal.capturing()
    let status = runCommandLine(arguments, root: root, version: version, terminal: terminal)
    return (status, terminal.capturedOutput, terminal.capturedError)
  }
}
