import Foundation
import Testing

@testable import replay

@Suite struct TerminalTests {
  @Test func capturingTerminalKeepsBothStreamsApart() {
    let terminal = Terminal.capturing()
    terminal.write("out 1\n")
    terminal.writeError("err\n")
    terminal.write(bytes: Array("out 2\n".utf8))
    var output = terminal.standardOutput
    print("out", 3, to: &output)
    var error = terminal.standardError
    print("err", 2, to: &error)
    #expect(terminal.capturedOutput == "out 1\nout 2\nout 3\n")
    #expect(terminal.capturedError == "err\nerr 2\n")
  }

  @Test func fileTerminalBuffersStandardOutputUntilFlushed() throws {
    try withFileTerminal { terminal, files throws in
      terminal.write("buffered\n")
      #expect(try files.output() == "")
      terminal.flush()
      #expect(try files.output() == "buffered\n")
    }
  }

  @Test func fileTerminalFlushesStandardOutputBeforeWritingAnError() throws {
    try withFileTerminal { terminal, files throws in
      terminal.write("first\n")
      terminal.writeError("second\n")
      #expect(try files.output() == "first\n")
      #expect(try files.error() == "second\n")
    }
  }

  @Test func fileTerminalWritesOutAFullBuffer() throws {
    try withFileTerminal { terminal, files throws in
      let line = String(repeating: "x", count: 1023) + "\n"
      let lineCount = Terminal.outputBufferLimit / line.utf8.count
      for _ in 1..<lineCount {
        terminal.write(line)
      }
      #expect(try files.output() == "")
      terminal.write(line)
      #expect(try files.output().utf8.count == Terminal.outputBufferLimit)
    }
  }

  @Test func runCommandLineFlushesBeforeReturning() throws {
    try withFileTerminal { terminal, files throws in
      let status = runCommandLine(
        ["--version"], root: SampleCommands.root, version: "9.9", terminal: terminal)
      #expect(status == .success)
      #expect(try files.output() == "9.9\n")
    }
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

  /// Runs `body` with a terminal writing to two files in a directory of its own.
  private func withFileTerminal(_ body: (Terminal, Files) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory
      .appending(path: "TerminalTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputURL = directory.appending(path: "out")
    let errorURL = directory.appending(path: "err")
    try Data().write(to: outputURL)
    try Data().write(to: errorURL)
    let output = try FileHandle(forWritingTo: outputURL)
    let error = try FileHandle(forWritingTo: errorURL)
    defer {
      try? output.close()
      try? error.close()
    }
    try body(Terminal.writing(output: output, error: error), Files(directory: directory))
  }
}
