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
    options: [
      Option(
        names: ["-l", "--log"], valueName: "path", help: "The event log.",
        defaultValue: "events.log"),
      Option(
        names: ["--expected-version"], valueName: "version",
        help: "Fail unless the stream is at this version."),
      Option(
        names: ["--tag"], valueName: "tag", help: "A tag for every event; repeat for several.",
        isRepeating: true),
      .flag(["-v", "--verbose"], help: "Print each event as it is appended."),
      .flag(["-q", "--quiet"], help: "Print nothing."),
      .flag(["--debug-dump"], help: "Dump internal state.", isHidden: true),
    ],
    run: { invocation in
      let summary = [
        "stream=\(invocation.argument("stream") ?? "-")",
        "events=\(invocation.arguments("events"))",
        "log=\(invocation.value("--log") ?? "-")",
        "expected=\(try invocation.uint64("--expected-version").map(String.init) ?? "-")",
        "tags=\(invocation.values("--tag"))",
        "verbose=\(invocation.flag("-v"))",
        "quiet=\(invocation.flag("--quiet"))",
        "debug=\(invocation.flag("--debug-dump"))",
      ]
      invocation.terminal.write(summary.joined(separator: " ") + "\n")
      return .success
    })

  static let read = Command(
    name: "read",
    abstract: "Print the events of a stream.",
    arguments: [Argument(name: "stream", help: "The stream to read.")],
    options: [
      Option(
        names: ["--from"], valueName: "seq", help: "The first sequence number to print.",
        defaultValue: "0"),
      Option(
        names: ["-f", "--format"], valueName: "format", help: "How to print events.",
        defaultValue: "json"),
      Option(names: ["--limit"], valueName: "count", help: "Print at most this many events."),
    ],
    run: { invocation in
      let from = try invocation.uint64("--from")
      let format = try invocation.choice("--format", from: ["json", "text", "table"])
      let limit = try invocation.int("--limit")
      invocation.terminal.write(
        "stream=\(invocation.requiredValue("stream")) from=\(from.map(String.init) ?? "-") "
          + "format=\(format ?? "-") limit=\(limit.map(String.init) ?? "-")\n")
      return .success
    })

  /// A nested group with an option of its own, which its subcommand can read.
  static let streams = Command(
    name: "streams",
    abstract: "Inspect the streams in the log.",
    options: [
      Option(
        names: ["--prefix"], valueName: "prefix", help: "Only streams whose names start with this.")
    ],
    subcommands: [
      Command(
        name: "list",
        abstract: "List the streams.",
        options: [.flag(["--count"], help: "Print only how many there are.")],
        run: { invocation in
          invocation.terminal.write(
            "prefix=\(invocation.value("--prefix") ?? "-") count=\(invocation.flag("--count"))\n")
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
