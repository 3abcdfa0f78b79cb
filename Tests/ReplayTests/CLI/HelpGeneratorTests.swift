import Testing

@testable import replay

/// The expected help texts were produced by swift-argument-parser 1.8.2 for the same command
/// tree declared with its property wrappers, so they pin its layout, not just ours.
@Suite struct HelpGeneratorTests {
  static let rootHelp = """
    OVERVIEW: Record and replay event streams.

    Events are appended to a log file and replayed to build read models. Every
    command reads the log given by '--log'.

    USAGE: replay <subcommand>

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      append                  Append events to a stream.
      read                    Print the events of a stream.
      streams                 Inspect the streams in the log.

      See 'replay help <subcommand>' for detailed help.

    """

  static let appendHelp = """
    OVERVIEW: Append events to a stream.

    USAGE: replay append [--log <path>] [--expected-version <version>] \
    [--tag <tag> ...] [--verbose] [--quiet] <stream> [<events> ...]

    ARGUMENTS:
      <stream>                The stream to append to.
      <events>                Events as JSON objects; when none are given, one
                              event per line is read from standard input until it
                              ends.

    OPTIONS:
      -l, --log <path>        The event log. (default: events.log)
      --expected-version <version>
                              Fail unless the stream is at this version.
      --tag <tag>             A tag for every event; repeat for several.
      -v, --verbose           Print each event as it is appended.
      -q, --quiet             Print nothing.
      --version               Show the version.
      -h, --help              Show help information.


    """

  static let readHelp = """
    OVERVIEW: Print the events of a stream.

    USAGE: replay read [--from <seq>] [--format <format>] [--limit <count>] <stream>

    ARGUMENTS:
      <stream>                The stream to read.

    OPTIONS:
      --from <seq>            The first sequence number to print. (default: 0)
      -f, --format <format>   How to print events. (default: json)
      --limit <count>         Print at most this many events.
      --version               Show the version.
      -h, --help              Show help information.


    """

  static let streamsHelp = """
    OVERVIEW: Inspect the streams in the log.

    USAGE: replay streams [--prefix <prefix>] <subcommand>

    OPTIONS:
      --prefix <prefix>       Only streams whose names start with this.
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      list                    List the streams.

      See 'replay help streams <subcommand>' for detailed help.

    """

  static let streamsListHelp = """
    OVERVIEW: List the streams.

    USAGE: replay streams list [--count]

    OPTIONS:
      --count                 Print only how many there are.
      --version               Show the version.
      -h, --help              Show help information.


    """

  struct HelpCase: Sendable, CustomTestStringConvertible {
    var path: [String]
    var expected: String
    var testDescription: String { "replay " + path.joined(separator: " ") }
  }

  static let cases = [
    HelpCase(path: [], expected: rootHelp),
    HelpCase(path: ["append"], expected: appendHelp),
    HelpCase(path: ["read"], expected: readHelp),
    HelpCase(path: ["streams"], expected: streamsHelp),
    HelpCase(path: ["streams", "list"], expected: streamsListHelp),
  ]

  @Test(arguments: cases)
  func dashDashHelpPrintsTheFullHelpToStandardOutput(_ helpCase: HelpCase) {
    let result = SampleCommands.run(helpCase.path + ["--help"])
    #expect(result.output == helpCase.expected)
    #expect(result.error == "")
    #expect(result.status == .success)
  }

  @Test(arguments: cases)
  func dashHAndHelpSubcommandPrintTheSameText(_ helpCase: HelpCase) {
    let forms = [
      helpCase.path + ["-h"],
      ["help"] + helpCase.path,
      // Extra help flags after `help` are ignored, as in swift-argument-parser.
      ["help"] + helpCase.path + ["-h"],
    ]
    for arguments in forms {
      let result = SampleCommands.run(arguments)
      #expect(result.output == helpCase.expected, "replay \(arguments)")
      #expect(result.status == .success, "replay \(arguments)")
    }
  }

  @Test(arguments: [[String](), ["streams"]])
  func groupRunWithoutSubcommandPrintsItsHelp(_ path: [String]) {
    let result = SampleCommands.run(path)
    #expect(result.output == SampleCommands.run(path + ["--help"]).output)
    #expect(result.output.hasPrefix("OVERVIEW: "))
    #expect(result.error == "")
    #expect(result.status == .success)
  }

  @Test func helpWinsOverErrorsInTheSameCommand() {
    let result = SampleCommands.run(["read", "--bogus", "--from", "x", "--help"])
    #expect(result.output == Self.readHelp)
    #expect(result.status == .success)
  }

  @Test func helpBeforeTheSubcommandNameShowsTheGroupHelp() {
    #expect(SampleCommands.run(["--help", "read"]).output == Self.rootHelp)
  }

  @Test func helpAmongCombinedShortFlagsShowsHelp() {
    #expect(SampleCommands.run(["append", "-vh"]).output == Self.appendHelp)
  }

  @Test func helpAfterTheTerminatorIsAValue() {
    let result = SampleCommands.run(["append", "s", "--", "--help"])
    #expect(result.output.hasPrefix("stream=s events=[\"--help\"]"))
  }

  @Test func helpForAnUnknownNameIsAUsageErrorWithASuggestion() {
    let unknown = SampleCommands.run(["help", "nope"])
    #expect(unknown.status == .usageError)
    #expect(unknown.output == "")
    #expect(unknown.error.hasPrefix("Error: Unknown subcommand 'nope'\n"))
    let misspelled = SampleCommands.run(["help", "raed"])
    #expect(misspelled.error.hasPrefix("Error: Unknown subcommand 'raed'. Did you mean 'read'?\n"))
    let extra = SampleCommands.run(["help", "read", "extra"])
    #expect(extra.status == .usageError)
    #expect(extra.error.hasPrefix("Error: Unknown subcommand 'extra'\n"))
  }

  @Test func helpOfHelpExplainsTheHelpSubcommand() {
    #expect(
      SampleCommands.run(["help", "help"]).output == """
        OVERVIEW: Show subcommand help information.

        USAGE: replay help [<subcommands> ...]

        ARGUMENTS:
          <subcommands>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.


        """)
  }

  @Test func withoutVersionThereIsNoVersionOption() {
    let help = HelpGenerator(stack: [SampleCommands.root, SampleCommands.read], hasVersion: false)
    #expect(!help.render().contains("--version"))
    #expect(help.render().contains("  -h, --help              Show help information.\n"))
  }

  @Test func defaultDescriptionReplacesTheDefaultValueInHelp() {
    let command = Command(
      name: "tool", abstract: "",
      options: [
        Option(
          names: ["--log"], valueName: "path", help: "The log.", defaultValue: "events.log",
          defaultDescription: "$REPLAY_LOG or events.log")
      ])
    #expect(
      HelpGenerator(stack: [command], hasVersion: false).render() == """
        USAGE: tool [--log <path>]

        OPTIONS:
          --log <path>            The log. (default: $REPLAY_LOG or events.log)
          -h, --help              Show help information.

        """)
  }

  @Test func requiredOptionsAndArgumentsHaveNoBracketsInTheUsage() {
    let command = Command(
      name: "tool", abstract: "",
      arguments: [Argument(name: "files", help: "", isRepeating: true)],
      options: [Option(names: ["--to"], valueName: "path", help: "", isRequired: true)])
    #expect(
      HelpGenerator(stack: [command], hasVersion: false).usage == "tool --to <path> <files> ...")
  }

  @Test func moreThanTwelveItemsShrinkTheUsageToTheRequiredOnes() {
    let optional = (1...12).map { Option(names: ["--o\($0)"], valueName: "v", help: "") }
    let required = Option(names: ["--r"], valueName: "v", help: "", isRequired: true)
    let argument = Argument(name: "file", help: "")
    func usage(_ options: [Option], _ arguments: [Argument]) -> String {
      let command = Command(name: "tool", abstract: "", arguments: arguments, options: options)
      return HelpGenerator(stack: [command], hasVersion: false).usage
    }
    #expect(usage(optional + [required], [argument]) == "tool [<options>] --r <v> <file>")
    #expect(usage(optional + [.flag(["--f"], help: "")], []) == "tool <options>")
    #expect(usage(Array(optional.prefix(11)), [argument]).hasSuffix("[--o11 <v>] <file>"))
  }
}
