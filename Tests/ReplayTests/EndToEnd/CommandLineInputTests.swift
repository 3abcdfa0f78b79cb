import Foundation
import Testing

/// What `replay` accepts from its command line, end to end: nothing it refuses reaches the log.
@Suite struct CommandLineInputTests {
  @Test func dataThatIsNotUTF8IsRefusedLikeTheSameBytesInAFile() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let replay = ReplayProcess.executable.path
      // Process takes Swift strings, which cannot hold these bytes: a shell passes them.
      let script =
        "\"$0\" append --log \"$1\" --stream contact-1 --type ContactFavorited "
        + "--data \"$(printf '{\"id\":\"1\\300\\200\"}')\""
      let result = try ReplayProcess.run(
        ["-c", script, replay, log], executable: URL(fileURLWithPath: "/bin/sh"))
      #expect(result.status == 65)
      #expect(
        result.error.hasPrefix(
          "Error: argument 9 is not valid UTF-8: byte 0xC0 at offset 8 does not begin a valid"))
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test(arguments: ["0x10", "nan", "inf", "1_0"])
  func coordinatesAreDecimalNumbers(latitude: String) throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let result = try ReplayProcess.run([
        "locations", "add", "--log", log, "--id", "a", "--name", "A", "--latitude", latitude,
        "--longitude", "1",
      ])
      #expect(result.status == 64)
      #expect(
        result.error.hasPrefix(
          "Error: The value '\(latitude)' is invalid for '--latitude <degrees>': expected a decimal number of degrees"
        ), "\(result.error)")
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test func aSecondLogIsAUsageErrorNamingBothLogs() throws {
    try withTemporaryDirectory { directory in
      let first = directory + "/a.jsonl"
      let second = directory + "/b.jsonl"
      let result = try ReplayProcess.run([
        "states", "add", "Ohio", "--log", first, "--log=\(second)",
      ])
      #expect(result.status == 64)
      #expect(
        result.error.hasPrefix(
          "Error: '--log' was given twice ('--log \(first)' and '--log \(second)'); give it once"))
      #expect(!FileManager.default.fileExists(atPath: first))
      #expect(!FileManager.default.fileExists(atPath: second))
    }
  }
}
