import Foundation
import Testing

/// The repository's root, found from this file (Tests/ReplayTests/EndToEnd/...).
let repositoryRoot = RepositoryFiles.root

@Suite struct SampleLogTests {
  static let sample = repositoryRoot.appendingPathComponent("eventlogs/sample.jsonl").path

  @Test func rebuildingTheSampleLogGivesIdenticalBytes() throws {
    try withTemporaryDirectory { directory in
      let output = directory + "/rebuilt.jsonl"
      let script = Process()
      script.executableURL = URL(fileURLWithPath: "/bin/bash")
      script.arguments = [
        repositoryRoot.appendingPathComponent("eventlogs/build-sample.sh").path, output,
      ]
      var environment = ProcessInfo.processInfo.environment
      environment["REPLAY_BIN"] = ReplayProcess.executable.path
      script.environment = environment
      script.standardError = FileHandle.nullDevice
      try script.run()
      script.waitUntilExit()
      #expect(script.terminationStatus == 0)
      let rebuilt = fileBytes(output)
      #expect(!rebuilt.isEmpty)
      #expect(
        rebuilt == fileBytes(Self.sample),
        "eventlogs/build-sample.sh no longer reproduces eventlogs/sample.jsonl; rerun it and commit the result"
      )
      #expect(
        fileBytes(output + ".keys") == fileBytes(Self.sample + ".keys"),
        "eventlogs/build-sample.sh no longer reproduces eventlogs/sample.jsonl.keys")
    }
  }

  @Test func theSampleLogVerifiesAndHoldsTheStory() throws {
    let verify = try ReplayProcess.run(["verify", "--log", Self.sample])
    #expect(verify.status == 0)
    #expect(verify.output == "ok: 147 events, 68 streams, last seq 147, 118479 bytes\n")
    let stats = try ReplayProcess.run(["stats", "--log", Self.sample, "--json"])
    for expected in [
      #""ObservationRecorded":11"#, #""ZipCodeAdded":71"#, #""AnimalImported":20"#,
      #""ContactAdded":18"#,
      #""LocationAdded":11"#, #""StateAdded":6"#, #""ContactFavorited":2"#,
      #""ContactUnfavorited":2"#,
      #""ZipCodeModified":1"#, #""ZipCodeRemoved":1"#, #""AnimalInserted":2"#,
      #""LocationMoved":1"#,
      #""ObservationRevised":1"#,
    ] {
      #expect(stats.output.contains(expected), "\(expected)")
    }
    #expect(
      stats.output.contains(
        #""firstTime":"2026-11-01T09:00:00.000Z","lastTime":"2026-11-08T17:30:00.000Z""#))
  }
}
