import Testing

@testable import replay

/// How errors thrown by a command's `run` closure reach the user.
@Suite struct RunCommandLineTests {
  private static let count = ValueOption(
    names: ["--count"], valueName: "n", help: "How many.", expecting: "expected a whole number"
  ) { Int($0) }
  private struct StreamConflict: CLIError {
    var exitCode: ExitCode { .versionConflict }
    var message: String { "stream 'orders' is at version 7, not 5; reload and retry" }
  }

  private struct BadCombination: CLIError {
    var exitCode: ExitCode { .usageError }
    var message: String { "Give either '--all' or a stream, not both" }
  }

  private struct Unexpected: Error, CustomStringConvertible {
    var description: String { "something broke" }
  }

  private func run(
    _ arguments: [String] = ["go"], throwing error: (any Error)? = nil,
    returning status: ExitCode = .success
  ) -> (status: ExitCode, output: String, error: String) {
    let root = Command(
      name: "tool", abstract: "A tool.",
      subcommands: [
        Command(
          name: "go", abstract: "Go.",
          options: [Self.count],
          run: { invocation in
            invocation.terminal.write("started\n")
            _ = try invocation[Self.count]
            if let error { throw error }
            return status
          })
      ])
    let terminal = Terminal.capturing()
    let status = runCommandLine(arguments, root: root, version: "0.1", terminal: terminal)
    return (status, terminal.capturedOutput, terminal.capturedError)
  }

  @Test(arguments: [ExitCode.success, .ioError, .inputUnavailable])
  func returnsTheStatusTheCommandReturns(_ status: ExitCode) {
    let result = run(returning: status)
    #expect(result.status == status)
    #expect(result.output == "started\n")
    #expect(result.error == "")
  }

  @Test func cliErrorPrintsItsMessageWithoutUsageAndExitsWithItsStatus() {
    let result = run(throwing: StreamConflict())
    #expect(result.status == .versionConflict)
    #expect(result.error == "Error: stream 'orders' is at version 7, not 5; reload and retry\n")
    #expect(result.output == "started\n")
  }

  @Test func cliErrorWithTheUsageStatusPrintsTheUsage() {
    let result = run(throwing: BadCombination())
    #expect(result.status == .usageError)
    #expect(
      result.error == """
        Error: Give either '--all' or a stream, not both
        Usage: tool go [--count <n>]
          See 'tool go --help' for more information.

        """)
  }

  @Test func otherErrorsAreInternalErrors() {
    let result = run(throwing: Unexpected())
    #expect(result.status == .internalError)
    #expect(result.error == "Error: something broke\n")
  }

  @Test func typedValueErrorThrownWhileRunningPrintsTheUsage() {
    let result = run(["go", "--count", "many"])
    #expect(result.status == .usageError)
    #expect(
      result.error == """
        Error: The value 'many' is invalid for '--count <n>': expected a whole number
        Help:  --count <n>  How many.
        Usage: tool go [--count <n>]
          See 'tool go --help' for more information.

        """)
  }
}
