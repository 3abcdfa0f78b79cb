import Testing

@testable import replay

/// Parsing, checked through what the sample commands print about their parsed values.
@Suite struct CommandLineParserTests {
  private func output(_ arguments: [String]) -> String {
    let result = SampleCommands.run(arguments)
    #expect(result.error == "", "replay \(arguments)")
    #expect(result.status == .success, "replay \(arguments)")
    return result.output
  }

  @Test func absentOptionsGiveDefaultsAndFlagsAreOff() {
    #expect(
      output(["append", "s"])
        == "stream=s events=[] log=events.log expected=- tags=[] verbose=false quiet=false"
        + " debug=false\n")
  }

  @Test func optionsAndPositionalsMayBeMixed() {
    #expect(
      output(["append", "--log", "a.log", "s", "-v", "e1", "--tag", "t", "e2"])
        == "stream=s events=[\"e1\", \"e2\"] log=a.log expected=- tags=[\"t\"] verbose=true"
        + " quiet=false debug=false\n")
  }

  @Test(arguments: [
    ["read", "s", "--limit=5"],
    ["read", "s", "--limit", "5"],
    ["read", "--limit", "5", "s"],
  ])
  func valueMayBeAttachedWithEqualsOrFollow(_ arguments: [String]) {
    #expect(output(arguments) == "stream=s from=0 format=json limit=5\n")
  }

  @Test func shortNameTakesAValueLikeTheLongName() {
    #expect(output(["read", "s", "-f", "text"]) == "stream=s from=0 format=text limit=-\n")
    #expect(output(["read", "s", "-f=text"]) == "stream=s from=0 format=text limit=-\n")
  }

  @Test func attachedValueMayContainEqualsAndDashes() {
    #expect(output(["append", "s", "--log=--x=y"]).contains(" log=--x=y "))
  }

  @Test func nonRepeatingOptionGivenTwiceIsAUsageErrorNamingBothValues() {
    let result = SampleCommands.run(["read", "s", "--limit", "1", "--limit=2"])
    #expect(result.status == .usageError)
    #expect(
      result.error.hasPrefix(
        "Error: '--limit' was given twice ('--limit 1' and '--limit 2'); give it once\n"))
    #expect(result.output == "")
  }

  @Test func repeatingOptionCollectsEveryValueInOrder() {
    #expect(
      output(["append", "s", "--tag", "b", "--tag=a", "--tag", "b"]).contains(
        " tags=[\"b\", \"a\", \"b\"] "))
  }

  @Test func combinedShortFlagsSetEachFlag() {
    #expect(output(["append", "s", "-qv"]).hasSuffix(" verbose=true quiet=true debug=false\n"))
  }

  @Test func terminatorMakesEverythingAfterItAValue() {
    #expect(
      output(["append", "s", "--", "--tag", "-v", "--"])
        == "stream=s events=[\"--tag\", \"-v\", \"--\"] log=events.log expected=- tags=[]"
        + " verbose=false quiet=false debug=false\n")
  }

  @Test func terminatorMayPrecedeTheFirstPositional() {
    #expect(output(["read", "--", "-s"]) == "stream=-s from=0 format=json limit=-\n")
  }

  @Test func singleDashIsAValue() {
    #expect(output(["read", "-"]) == "stream=- from=0 format=json limit=-\n")
    #expect(output(["append", "s", "--log", "-"]).contains(" log=- "))
  }

  @Test func valueStartingWithOneDashIsTakenByAnOptionThatNeedsOne() {
    #expect(output(["append", "s", "--log", "-x"]).contains(" log=-x "))
  }

  @Test func hiddenOptionIsStillParsed() {
    #expect(output(["append", "s", "--debug-dump"]).hasSuffix(" debug=true\n"))
  }

  @Test func groupOptionBeforeTheSubcommandIsVisibleToIt() {
    #expect(
      output(["streams", "--prefix", "order-", "list", "--count"]) == "prefix=order- count=true\n")
    #expect(output(["streams", "list"]) == "prefix=- count=false\n")
  }

  @Test func versionPrintsTheVersionAtAnyLevel() {
    #expect(output(["--version"]) == "1.2.3\n")
    #expect(output(["read", "s", "--version"]) == "1.2.3\n")
  }

  @Test func helpWinsOverVersion() {
    #expect(output(["--version", "--help"]) == HelpGeneratorTests.rootHelp)
  }

  @Test func withoutVersionTheVersionOptionIsUnknown() {
    let terminal = Terminal.capturing()
    let status = runCommandLine(
      ["--version"], root: SampleCommands.root, version: nil, terminal: terminal)
    #expect(status == .usageError)
    #expect(terminal.capturedError.hasPrefix("Error: Unknown option '--version'\n"))
  }

  @Test func invocationKnowsItsCommandPath() throws {
    let root = Command(
      name: "tool", abstract: "",
      subcommands: [
        Command(
          name: "sub", abstract: "",
          run: { invocation in
            invocation.terminal.write(invocation.commandPath.joined(separator: "/"))
            return .success
          })
      ])
    let terminal = Terminal.capturing()
    #expect(runCommandLine(["sub"], root: root, version: nil, terminal: terminal) == .success)
    #expect(terminal.capturedOutput == "tool/sub")
  }
}

extension CommandLineParserTests {
  @Test func negativeNumberAsPositionalNeedsTheTerminator() {
    let result = SampleCommands.run(["read", "-1"])
    #expect(result.error.hasPrefix("Error: Unknown option '-1'\n"))
    #expect(output(["read", "--", "-1"]) == "stream=-1 from=0 format=json limit=-\n")
  }
}
