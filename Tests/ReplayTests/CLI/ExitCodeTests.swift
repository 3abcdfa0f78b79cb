import Testing

@testable import replay

@Suite struct ExitCodeTests {
  @Test func rawValuesAreStable() {
    #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 3, 64, 65, 66, 69, 73, 74, 75, 77])
  }

  @Test func documentationListsEveryCode() {
    #expect(
      ExitCode.documentation == """
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
        """)
  }

  @Test func documentationFitsAHelpScreen() {
    let lines = ExitCode.documentation.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count < HelpGenerator.screenWidth })
  }
}
