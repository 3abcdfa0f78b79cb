import Testing

@testable import replay

@Suite struct ParsedInvocationTests {
  private static let command = Command(
    name: "tool", abstract: "",
    arguments: [
      Argument(name: "position", help: "A position."),
      Argument(name: "rest", help: "", isOptional: true, isRepeating: true),
    ],
    options: [seq, number])
  private static let seq = ValueOption(
    names: ["--seq"], valueName: "seq", help: "", defaultValue: "oops",
    expecting: "expected a whole number"
  ) { Int64($0) }
  private static let number = ValueOption(
    names: ["-n", "--number"], valueName: "n", help: "", isRepeating: true,
    expecting: "expected a whole number"
  ) { Int($0) }

  private func invocation(_ arguments: [String]) throws -> ParsedInvocation {
    let outcome = try CommandLineParser(root: Self.command, hasVersion: false).parse(arguments)
    guard case .run(let stack, let values) = outcome else {
      Issue.record("expected a command to run, got \(outcome)")
      throw CancellationError()
    }
    return ParsedInvocation(commands: stack, terminal: .capturing(), parsedValues: values)
  }

  @Test func typedAccessorsConvertValidValues() throws {
    let invocation = try invocation(["42", "--seq", "9", "-n", "-3", "--number", "4"])
    #expect(try invocation.uint64("position") == 42)
    #expect(try invocation[Self.seq] == 9)
    #expect(try invocation.values(Self.number) == [-3, 4])
    #expect(try invocation[Self.number] == 4)
  }

  @Test func absentValuesAreNil() throws {
    let invocation = try invocation(["1"])
    #expect(try invocation[Self.number] == nil)
    #expect(invocation.arguments("rest") == [])
  }

  @Test func invalidDefaultIsReportedUnderThePreferredName() throws {
    let invocation = try invocation(["1"])
    #expect(
      throws: UsageError("The value 'oops' is invalid for '--seq <seq>': expected a whole number")
    ) {
      try invocation[Self.seq]
    }
  }

  @Test func invalidArgumentIsReportedWithItsLabelAndHelp() throws {
    // A positional value starting with '-' follows '--', as in swift-argument-parser.
    let invocation = try invocation(["--", "-1"])
    #expect(
      throws: UsageError(
        "The value '-1' is invalid for '<position>': expected a non-negative whole number",
        help: "<position>  A position.")
    ) {
      try invocation.uint64("position")
    }
  }

  @Test func invalidRepeatedValueNamesTheOptionAsLastTyped() throws {
    let invocation = try invocation(["1", "--number", "x", "-n", "2"])
    #expect(throws: UsageError("The value 'x' is invalid for '-n <n>': expected a whole number")) {
      try invocation.values(Self.number)
    }
  }

  @Test func choiceListsManyChoicesOnePerLine() throws {
    let invocation = try invocation(["x"])
    let choices = ["a", "b", "c", "d", "e", "f"]
    #expect(
      throws: UsageError(
        """
        The value 'x' is invalid for '<position>'. Please provide one of the following:
          - a
          - b
          - c
          - d
          - e
          - f
        """, help: "<position>  A position.")
    ) {
      try invocation.choice("position", from: choices)
    }
    #expect(
      throws: UsageError(
        "The value 'x' is invalid for '<position>'. Please provide one of 'a' and 'b'.",
        help: "<position>  A position.")
    ) {
      try invocation.choice("position", from: ["a", "b"])
    }
  }
}
