import Foundation
import Testing

@testable import replay

/// A terminal whose standard output cannot be written: the failure is kept, standard error
/// falls silent, and `finish(_:)` reports it once as `ExitCode.ioError`.
@Suite struct TerminalOutputFailureTests {
  static let badDescriptor =
    "Error: cannot write to standard output: Bad file descriptor; the output is incomplete\n"

  @Test func finishKeepsTheStatusWhenEveryWriteSucceeded() throws {
    try withFileTerminal(outputIsReadOnly: false) { terminal, files throws in
      terminal.write("done\n")
      #expect(terminal.finish(.versionConflict) == .versionConflict)
      #expect(try files.output() == "done\n")
      #expect(try files.error() == "")
    }
  }

  @Test func aFailedWriteIsReportedOnceAsAnIOErrorAndSilencesStandardError() throws {
    try withFileTerminal(outputIsReadOnly: true) { terminal, files throws in
      terminal.write("lost\n")
      #expect(!terminal.hasOutputFailed)
      // Standard output is flushed first, fails, and the note is dropped.
      terminal.writeError("note: saved\n")
      #expect(terminal.outputFailure == OutputFailure(errorNumber: EBADF))
      terminal.write("dropped\n")
      terminal.writeError("note: dropped\n")
      #expect(terminal.finish(.success) == .ioError)
      #expect(terminal.finish(.success) == .ioError)
      #expect(try files.error() == Self.badDescriptor)
    }
  }

  @Test func aFullBufferThatCannotBeWrittenStopsTheOutput() throws {
    try withFileTerminal(outputIsReadOnly: true) { terminal, _ throws in
      terminal.write(String(repeating: "x", count: Terminal.outputBufferLimit))
      #expect(terminal.hasOutputFailed)
    }
  }

  @Test func runCommandLineReportsAFailedFlush() throws {
    try withFileTerminal(outputIsReadOnly: true) { terminal, files throws in
      let status = runCommandLine(
        ["--version"], root: SampleCommands.root, version: "9.9", terminal: terminal)
      #expect(status == .ioError)
      #expect(try files.error() == Self.badDescriptor)
    }
  }

  @Test func onlyAClosedPipeGoesUnreported() {
    #expect(OutputFailure(errorNumber: EPIPE).isClosedPipe)
    #expect(!OutputFailure(errorNumber: ENOSPC).isClosedPipe)
    #expect(
      OutputFailure(errorNumber: EFBIG).message
        == "cannot write to standard output: File too large; the output is incomplete")
  }

  private struct Files {
    var directory: URL
    func output() throws -> String {
      try String(contentsOf: directory.appending(path: "out"), encoding: .utf8)
    }
    func error() throws -> String {
      try String(contentsOf: directory.appending(path: "err"), encoding: .utf8)
    }
  }

  /// Runs `body` with a terminal writing to two files in a directory of its own; standard
  /// output is opened read-only when `outputIsReadOnly`, so that every write to it fails with
  /// EBADF.
  private func withFileTerminal(
    outputIsReadOnly: Bool, _ body: (Terminal, Files) throws -> Void
  ) throws {
    let directory = FileManager.default.temporaryDirectory
      .appending(path: "TerminalOutputFailureTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputURL = directory.appending(path: "out")
    let errorURL = directory.appending(path: "err")
    try Data().write(to: outputURL)
    try Data().write(to: errorURL)
    let output =
      try outputIsReadOnly
      ? FileHandle(forReadingFrom: outputURL) : FileHandle(forWritingTo: outputURL)
    let error = try FileHandle(forWritingTo: errorURL)
    defer {
      try? output.close()
      try? error.close()
    }
    try body(Terminal.writing(output: output, error: error), Files(directory: directory))
  }
}
