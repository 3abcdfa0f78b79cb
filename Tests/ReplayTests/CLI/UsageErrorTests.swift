import Testing

@testable import replay

/// Every usage error: the exact text on standard error, nothing on standard output, status 64.
@Suite struct UsageErrorTests {
  static let appendFooter = """
    Usage: replay append [--log <path>] [--expected-version <version>] \
    [--tag <tag> ...] [--verbose] [--quiet] <stream> [<events> ...]
      See 'replay append --help' for more information.

    """

  static let readFooter = """
    Usage: replay read [--from <seq>] [--format <format>] [--limit <count>] <stream>
      See 'replay read --help' for more information.

    """

  static let rootFooter = """
    Usage: replay <subcommand>
      See 'replay --help' for more information.

    """

  struct ErrorCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var expected: String
    var testDescription: String { "replay " + arguments.joined(separator: " ") }
  }

  static let cases = [
    ErrorCase(
      arguments: ["read", "s", "--bogus"],
      expected: "Error: Unknown option '--bogus'\n" + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--fomr", "3"],
      expected: "Error: Unknown option '--fomr'. Did you mean '--from'?\n" + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--formt=json"],
      expected: "Error: Unknown option '--formt'. Did you mean '--format'?\n" + readFooter),
    ErrorCase(
      arguments: ["read", "s", "-from", "3"],
      expected: "Error: Unknown option '-from'. Did you mean '--from'?\n" + readFooter),
    ErrorCase(
      arguments: ["read", "s", "-x"],
      expected: "Error: Unknown option '-x'\n" + readFooter),
    ErrorCase(
      arguments: ["append", "s", "-qx"],
      expected: "Error: Unknown option '-x'\n" + appendFooter),
    ErrorCase(
      arguments: ["read", "s", "---from"],
      expected: "Error: Invalid option: ---from\n" + readFooter),
    ErrorCase(
      arguments: ["apend", "s"],
      expected: "Error: Unknown subcommand 'apend'. Did you mean 'append'?\n" + rootFooter),
    ErrorCase(
      arguments: ["hepl"],
      expected: "Error: Unknown subcommand 'hepl'. Did you mean 'help'?\n" + rootFooter),
    ErrorCase(
      arguments: ["frobnicate"],
      expected: "Error: Unknown subcommand 'frobnicate'\n" + rootFooter),
    ErrorCase(
      arguments: ["streams", "lst"],
      expected: """
        Error: Unknown subcommand 'lst'. Did you mean 'list'?
        Usage: replay streams [--prefix <prefix>] <subcommand>
          See 'replay streams --help' for more information.

        """),
    ErrorCase(
      arguments: ["--", "read"],
      expected: "Error: Unexpected argument 'read'\n" + rootFooter),
    ErrorCase(
      arguments: ["read"],
      expected: """
        Error: Missing expected argument '<stream>'
        Help:  <stream>  The stream to read.

        """ + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--from"],
      expected: """
        Error: Missing value for '--from <seq>'
        Help:  --from <seq>  The first sequence number to print.

        """ + readFooter),
    ErrorCase(
      arguments: ["read", "s", "-f"],
      expected: """
        Error: Missing value for '-f <format>'
        Help:  -f <format>  How to print events.

        """ + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--from", "--limit", "3"],
      expected: """
        Error: Missing value for '--from <seq>'
        Help:  --from <seq>  The first sequence number to print.

        """ + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--from="],
      expected: """
        Error: Missing value for '--from <seq>'
        Help:  --from <seq>  The first sequence number to print.

        """ + readFooter),
    ErrorCase(
      arguments: ["append", "s", "--verbose=yes"],
      expected: """
        Error: The option '--verbose' does not take any value, but 'yes' was specified.

        """ + appendFooter),
    ErrorCase(
      arguments: ["read", "s", "t"],
      expected: "Error: Unexpected argument 't'\n" + readFooter),
    ErrorCase(
      arguments: ["read", "s", "t", "u"],
      expected: "Error: 2 unexpected arguments: 't', 'u'\n" + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--from", "-1"],
      expected: """
        Error: The value '-1' is invalid for '--from <seq>': expected a non-negative whole number
        Help:  --from <seq>  The first sequence number to print.

        """ + readFooter),
    ErrorCase(
      arguments: ["read", "s", "--limit", "abc"],
      expected: """
        Error: The value 'abc' is invalid for '--limit <count>': expected a whole number
        Help:  --limit <count>  Print at most this many events.

        """ + readFooter),
    ErrorCase(
      arguments: ["read", "s", "-f", "xml"],
      expected: """
        Error: The value 'xml' is invalid for '-f <format>'. \
        Please provide one of 'json', 'text' or 'table'.
        Help:  -f <format>  How to print events.

        """ + readFooter),
  ]

  @Test(arguments: cases)
  func printsTheErrorWithUsageToStandardError(_ errorCase: ErrorCase) {
    let result = SampleCommands.run(errorCase.arguments)
    #expect(result.error == errorCase.expected)
    #expect(result.output == "")
    #expect(result.status == .usageError)
    #expect(result.status.rawValue == 64)
  }

  @Test func unknownOptionIsReportedBeforeTheMissingArgumentItCaused() {
    let result = SampleCommands.run(["read", "--strem", "s"])
    #expect(result.error.hasPrefix("Error: Unknown option '--strem'\n"))
  }

  @Test func missingRequiredOptionNamesItsSynopsis() {
    let root = Command(
      name: "tool", abstract: "",
      options: [
        Option(names: ["-t", "--to"], valueName: "path", help: "Where to write.", isRequired: true)
      ],
      run: { _ in .success })
    let terminal = Terminal.capturing()
    #expect(runCommandLine([], root: root, version: nil, terminal: terminal) == .usageError)
    #expect(
      terminal.capturedError == """
        Error: Missing expected argument '--to <path>'
        Help:  -t <path>  Where to write.
        Usage: tool --to <path>
          See 'tool --help' for more information.

        """)
  }
}
