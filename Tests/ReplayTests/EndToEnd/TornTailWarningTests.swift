import Foundation
import Testing

/// A reader that stops before a torn write says so, once, on standard error; one that stops
/// before a write in progress (a writer holds the lock) says nothing.
@Suite struct TornTailWarningTests {
  /// A log of one write of 2,000 events, cut inside it (no newline at the end either).
  static func logTornInsideAWrite(in directory: String) throws -> String {
    let log = try ProgressTests.generatedLog(
      in: directory, events: 2000, chunkSize: 2000, seed: "torn")
    let bytes = fileBytes(log)
    try Data(bytes[..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: log))
    return log
  }

  @Test(arguments: [
    ["state", "contacts"], ["log", "--limit", "1"], ["stats"], ["rebuild"], ["digest"],
    ["diff", "contacts", "--from", "0"],
  ])
  func everyReaderSaysOnceThatItStoppedBeforeATornWrite(_ command: [String]) throws {
    try withTemporaryDirectory { directory in
      let log = try Self.logTornInsideAWrite(in: directory)
      let before = fileBytes(log)
      let result = try ReplayProcess.run(command + ["--log", log])
      #expect(result.status == 0, "\(result.error)")
      let warnings = result.error.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
      #expect(warnings.count == 1, "\(result.error)")
      let warning = try #require(warnings.first)
      #expect(
        warning.hasPrefix(
          "warning: '\(log)' ends with a torn write (no writer holds its lock, so it is not in "
            + "progress): \(before.count) bytes from byte 0 after seq 0: an unfinished write of "
            + "events 1...2000 ("))
      #expect(
        warning.hasSuffix(
          "; what is shown is the log at seq 0. 'replay verify' shows it, and 'replay repair "
            + "--apply' moves it into quarantine (so does the next append)"))
      #expect(fileBytes(log) == before)
    }
  }

  @Test func aWriteInProgressIsWaitedForQuietly() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.logTornInsideAWrite(in: directory)
      // flock(1) holds the writers' lock while the reader runs, as a writer mid-append does.
      let flock = Process()
      flock.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
      flock.arguments = [log, ReplayProcess.executable.path, "state", "contacts", "--log", log]
      let error = Pipe()
      flock.standardOutput = FileHandle.nullDevice
      flock.standardError = error
      try flock.run()
      let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      flock.waitUntilExit()
      #expect(flock.terminationStatus == 0)
      #expect(text == "")
    }
  }

  @Test func aWholeLogGetsNoWarning() throws {
    let result = try ReplayProcess.run(["state", "contacts", "--log", SampleLogTests.sample])
    #expect(result.status == 0)
    #expect(result.error == "")
  }
}
