import Foundation
import Testing

/// `replay verify` beyond the line checks: what it says of the files beside the log.
@Suite struct VerifyCommandTests {
  @Test func aLogShorterThanManyCheckpointsIsOneProblemWithTheWayForward() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/generated.jsonl"
      let generated = try ReplayProcess.run([
        "generate", "--events", "300", "--seed", "short", "--chunk-size", "10", "--log", log,
      ])
      #expect(generated.status == 0, "\(generated.error)")
      let saved = try ReplayProcess.run(["checkpoint", "--every", "50", "--log", log])
      #expect(saved.output.contains("seq 50, 100, 150, 200, 250, 300"), "\(saved.output)")
      // Cut back to its first 100 lines (a write's end): shorter than four checkpoints.
      let bytes = fileBytes(log)
      let ends = bytes.indices.filter { bytes[$0] == 0x0A }
      try Data(bytes[...ends[99]]).write(to: URL(fileURLWithPath: log))

      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 74)
      let checkpoint = log + ".checkpoints/seq-000000000300.ckpt"
      let lines = verify.output.split(separator: "\n")
      #expect(lines.count == 2)
      #expect(
        lines.first
          == "\(log): the log is shorter than it was: 4 checkpoints (at seq 150 to 300) cover more than it holds; the furthest, '\(checkpoint)', covers seq 1...300 and \(ends[299] + 1) bytes, but the log's committed events end at seq 100, byte \(ends[99] + 1); restore the log from a backup, or, if it was shortened on purpose, run 'replay checkpoint --clear --log \(log)' to delete its checkpoints"
      )
      #expect(lines.last?.hasPrefix("FAILED: 1 problem; 100 events, ") == true)
      let json = try ReplayProcess.run(["verify", "--log", log, "--json"])
      #expect(
        json.output.contains(
          #""problems":[{"line":null,"offset":null,"message":"the log is shorter"#))
      #expect(json.output.components(separatedBy: "shorter than it was").count == 2)

      // The way forward it names works.
      #expect(try ReplayProcess.run(["checkpoint", "--clear", "--log", log]).status == 0)
      #expect(try ReplayProcess.run(["verify", "--log", log]).status == 0)
    }
  }
}
