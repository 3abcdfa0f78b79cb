import Foundation
import Testing

/// The sidecars (`<log>.index`, `<log>.checkpoints/`) are caches: every command's output is the
/// same with them, without them, and with them lagging the log.
@Suite struct SidecarTests {
  /// The reading commands compared, each as its arguments.
  func commands(log: String, time: String, location: String) -> [[String]] {
    [
      ["state", "--json"], ["state", "contacts", "--at", "3000", "--json"],
      ["state", "zipcodes", "--as-of", time, "--json"], ["state", "animals"],
      ["history", "contact-1", "--json"], ["history", "contact-2"],
      ["log", "--stream", "contact-3", "--json"], ["log", "--category", "state", "--json"],
      ["log", "--category", "contact", "--type", "ContactFavorited", "--from", "2000"],
      ["diff", "contacts", "--from", "1000", "--json"], ["export", "locations"],
      ["export", "contacts", "--at", "4000"], ["export", "zipcodes", "--format", "json"],
      ["nearest", location, "--json"], ["stats", "--json"],
    ].map { $0 + ["--log", log] }
  }

  func outputs(of commands: [[String]]) throws -> [String] {
    try commands.map { arguments in
      let result = try ReplayProcess.run(arguments)
      return "\(arguments.dropLast(2).joined(separator: " ")) → \(result.status)\n\(result.output)"
    }
  }

  @Test func deletingOrStalingEverySidecarChangesNoAnswer() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let generated = try ReplayProcess.run([
        "generate", "--events", "6000", "--seed", "sidecars", "--chunk-size", "100", "--log", log,
        "--no-fsync",
      ])
      #expect(generated.status == 0)
      // The index `generate` saved, and checkpoints every 1000 events.
      #expect(FileManager.default.fileExists(atPath: log + ".index"))
      #expect(try ReplayProcess.run(["checkpoint", "--every", "1000", "--log", log]).status == 0)
      let line = try ReplayProcess.run([
        "log", "--from", "2500", "--limit", "1", "--json", "--log", log,
      ])
      let time = try #require(
        line.output.range(of: #""at":"[^"]+""#, options: .regularExpression).map {
          String(line.output[$0].dropFirst(6).dropLast())
        })
      let location = try #require(
        try ReplayProcess.run(["log", "--category", "location", "--limit", "1", "--log", log])
          .output.split(separator: "\n").dropFirst().first?.split(separator: " ").filter {
            !$0.isEmpty
          }.dropFirst(2).first.map { String($0.dropFirst("location-".count)) })
      let commands = commands(log: log, time: time, location: location)

      let withSidecars = try outputs(of: commands)
      for output in withSidecars { #expect(output.contains(" → 0\n"), "\(output.prefix(300))") }
      let index = try Data(contentsOf: URL(fileURLWithPath: log + ".index"))
      try FileManager.default.removeItem(atPath: log + ".index")
      try FileManager.default.removeItem(atPath: log + ".checkpoints")
      let without = try outputs(of: commands)
      for (with, alone) in zip(withSidecars, without) { #expect(with == alone) }

      // An index that lags the log: the one `generate` saved, then appends too few to save.
      try index.write(to: URL(fileURLWithPath: log + ".index"))
      for _ in 0..<5 {
        let appended = try ReplayProcess.run([
          "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data",
          #"{"id":"1"}"#, "--log", log, "--no-fsync",
        ])
        #expect(appended.status == 0)
      }
      let lagging = try outputs(of: commands)
      try FileManager.default.removeItem(atPath: log + ".index")
      let laggingAlone = try outputs(of: commands)
      for (with, alone) in zip(lagging, laggingAlone) { #expect(with == alone) }

      // An index that leads the log (the log cut back to its first 3000 events): ignored.
      let lines = try Data(contentsOf: URL(fileURLWithPath: log)).split(
        separator: 0x0A, omittingEmptySubsequences: false)
      try lines.prefix(3000).map { Data($0) + Data([0x0A]) }.reduce(Data(), +).write(
        to: URL(fileURLWithPath: log))
      try index.write(to: URL(fileURLWithPath: log + ".index"))
      let leading = try outputs(of: commands)
      try FileManager.default.removeItem(atPath: log + ".index")
      let leadingAlone = try outputs(of: commands)
      for (with, alone) in zip(leading, leadingAlone) { #expect(with == alone) }
    }
  }
}
