import Foundation
import Testing

/// Compares `actual` with the golden file `name` in Tests/ReplayTests/Goldens; with
/// `UPDATE_GOLDENS=1` in the environment it rewrites the file instead (review the diff!).
func expectGolden(
  _ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  let url = repositoryRoot.appendingPathComponent("Tests/ReplayTests/Goldens/\(name)")
  if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] == "1" {
    try? actual.write(to: url, atomically: true, encoding: .utf8)
    return
  }
  let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "<missing golden \(name)>"
  #expect(actual == expected, "output differs from Goldens/\(name)", sourceLocation: sourceLocation)
}

@Suite struct StateCommandTests {
  static let sample = SampleLogTests.sample

  /// Runs `replay` from the repository's root with the sample log given by its relative path,
  /// as the README does, so outputs do not depend on where the repository is.
  static func run(_ arguments: [String]) throws -> ReplayProcess.Result {
    try ReplayProcess.run(
      arguments + ["--log", "eventlogs/sample.jsonl"], directory: repositoryRoot.path)
  }

  @Test(arguments: ["contacts", "zipcodes", "observations", "animals", "locations"])
  func everyModelOfTheSampleLogMatchesItsGoldenTableAndJSON(model: String) throws {
    let table = try Self.run(["state", model])
    #expect(table.status == 0)
    #expect(table.error == "")
    expectGolden(table.output, "state-\(model).txt")
    let json = try Self.run(["state", model, "--json"])
    #expect(json.status == 0)
    expectGolden(json.output, "state-\(model).json")
  }

  @Test func withoutAModelEveryModelIsShown() throws {
    let all = try Self.run(["state"])
    #expect(all.status == 0)
    for model in ["contacts", "zipcodes", "observations", "animals", "locations"] {
      #expect(all.output.contains("== \(model) =="))
    }
  }

  @Test func timeTravelByPositionAndByTime() throws {
    let before = try Self.run(["state", "contacts", "--at", "137"])
    expectGolden(before.output, "state-contacts-at-137.txt")
    let midweek = try Self.run(["state", "zipcodes", "--as-of", "2026-11-03T14:01:00Z"])
    expectGolden(midweek.output, "state-zipcodes-as-of-2026-11-03T14-01.txt")
    let json = try ReplayProcess.run(
      ["state", "zipcodes", "--log", Self.sample, "--as-of", "2026-11-03T14:01:00Z", "--json"])
    #expect(json.output.hasPrefix(#"{"seq":140,"asOf":"2026-11-03T14:01:00.000Z","zipcodes":"#))
    let empty = try ReplayProcess.run([
      "state", "contacts", "--log", Self.sample, "--at", "0", "--json",
    ])
    #expect(
      empty.output
        == #"{"seq":0,"contacts":{"sections":[{"title":"Favorite Contacts","contacts":[]},{"title":"Other Contacts","contacts":[]}]}}"#
        + "\n")
  }

  @Test func oneEntitysDetail() throws {
    let contact = try Self.run(["state", "contacts", "--id", "13"])
    #expect(contact.status == 0)
    expectGolden(contact.output, "state-contacts-id-13.txt")
    let observation = try ReplayProcess.run([
      "state", "observations", "--id", "398f8d08492d", "--log", Self.sample, "--locale", "en_US",
      "--time-zone",
      "America/Chicago",
    ])
    #expect(observation.output.contains("Jun 14, 2017 at 1:00:00 PM"))
    let missing = try ReplayProcess.run(["state", "contacts", "--id", "99", "--log", Self.sample])
    #expect(missing.status == 65)
    #expect(missing.error == "Error: contacts has no '99' at seq 147\n")
  }

  @Test func badArgumentsAreUsageErrors() throws {
    let model = try ReplayProcess.run(["state", "contact", "--log", Self.sample])
    #expect(model.status == 64)
    #expect(
      model.error.hasPrefix(
        "Error: The value 'contact' is invalid for '<model>': expected one of contacts, zipcodes, observations, animals or locations. Did you mean 'contacts'?\n"
      ))
    let both = try ReplayProcess.run([
      "state", "--log", Self.sample, "--at", "3", "--as-of", "2026-11-02T00:00:00Z",
    ])
    #expect(both.status == 64)
    #expect(both.error.hasPrefix("Error: Give either '--at <seq>' or '--as-of <time>', not both\n"))
    let beyond = try ReplayProcess.run(["state", "--log", Self.sample, "--at", "500"])
    #expect(beyond.status == 65)
    #expect(beyond.error == "Error: \(Self.sample): the log has 147 events; there is no seq 500\n")
  }
}

@Suite struct NearestAndCheckpointCommandTests {
  @Test func nearestByIdOrNameMatchesTheLocationsModel() throws {
    let byName = try ReplayProcess.run(["nearest", "Echo", "--log", SampleLogTests.sample])
    let byID = try ReplayProcess.run([
      "nearest", "2abca2a7-d768-4db2-95e2-09002df94362", "--log", SampleLogTests.sample,
    ])
    #expect(byName.status == 0)
    #expect(byName.output == byID.output)
    #expect(
      byName.output == """
        nearest to Echo (2abca2a7-d768-4db2-95e2-09002df94362) at seq 147:
        #  NAME     ID                                      MILES
        1  Alpha    2298eb8d-255e-4198-a20c-cc9c2eac0cf7   340.76
        2  Hotel    d8010c95-e91b-4f53-b687-5c9e368ab582  4168.46
        3  Charlie  84e0c359-1e8a-434a-963a-613771dbe2c9  4371.07

        """)
    // Before the move on day 5, Echo was in the South Atlantic.
    let before = try ReplayProcess.run([
      "nearest", "echo", "--k", "1", "--at", "143", "--log", SampleLogTests.sample, "--json",
    ])
    #expect(before.output.contains(#""nearest":[{"id":"#))
    #expect(!before.output.contains("340.76"))
    let unknown = try ReplayProcess.run(["nearest", "Atlantis", "--log", SampleLogTests.sample])
    #expect(unknown.status == 65)
    #expect(unknown.error == "Error: no location has the id or name 'Atlantis'\n")
  }

  @Test func checkpointsAreSavedListedUsedVerifiedAndCleared() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let save = try ReplayProcess.run(["checkpoint", "--every", "50", "--log", log])
      #expect(save.status == 0)
      #expect(save.output == "saved checkpoints at seq 50, 100, 147 in \(log).checkpoints\n")
      let list = try ReplayProcess.run(["checkpoint", "--list", "--log", log])
      #expect(list.output.hasPrefix("3 checkpoints in \(log).checkpoints; saved every 50 events\n"))
      #expect(list.output.components(separatedBy: "sample lines match").count == 4)
      let full = try ReplayProcess.run(["state", "--log", log, "--json", "--no-checkpoints"])
      let fromCheckpoint = try ReplayProcess.run([
        "state", "--log", log, "--json", "--at", "120", "--verbose",
      ])
      #expect(fromCheckpoint.error.hasPrefix("note: starting from the checkpoint at seq 100\n"))
      let plain = try ReplayProcess.run([
        "state", "--log", log, "--json", "--at", "120", "--no-checkpoints",
      ])
      #expect(fromCheckpoint.output == plain.output)
      #expect(try ReplayProcess.run(["state", "--log", log, "--json"]).output == full.output)
      let verify = try ReplayProcess.run(["checkpoint", "--verify", "--log", log])
      #expect(verify.status == 0)
      #expect(verify.output.components(separatedBy: "digest matches").count == 4)
      // Appending past a multiple of the interval saves the next checkpoint on the next full replay.
      let clear = try ReplayProcess.run(["checkpoint", "--clear", "--log", log])
      #expect(clear.output == "removed \(log).checkpoints\n")
      #expect(!FileManager.default.fileExists(atPath: log + ".checkpoints"))
      #expect(try ReplayProcess.run(["state", "--log", log, "--json"]).output == full.output)
    }
  }

  @Test func checkpointEverySavesTheMissingMultiplesBeforeALaterCheckpoint() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let last = try ReplayProcess.run(["checkpoint", "--log", log])
      #expect(last.output == "saved checkpoints at seq 147 in \(log).checkpoints\n")
      // A checkpoint after every multiple exists: the replay still starts before the first.
      let every = try ReplayProcess.run(["checkpoint", "--every", "50", "--log", log])
      #expect(every.status == 0)
      #expect(every.output == "saved checkpoints at seq 50, 100 in \(log).checkpoints\n")
      let again = try ReplayProcess.run(["checkpoint", "--every", "50", "--log", log])
      #expect(again.output == "checkpoints are up to date (the newest is at seq 147)\n")
      let smaller = try ReplayProcess.run(["checkpoint", "--every", "40", "--log", log])
      #expect(smaller.output == "saved checkpoints at seq 40, 80, 120 in \(log).checkpoints\n")
      let verify = try ReplayProcess.run(["checkpoint", "--verify", "--log", log])
      #expect(verify.status == 0)
      #expect(verify.output.components(separatedBy: "digest matches").count == 7)
    }
  }

  @Test func rebuildReportsCountsPerModel() throws {
    let result = try ReplayProcess.run(["rebuild", "--log", SampleLogTests.sample, "--json"])
    #expect(result.status == 0)
    #expect(
      result.output.contains(
        #""entities":{"contacts":18,"zipcodes":6,"observations":11,"animals":22,"locations":11}"#))
    #expect(result.output.hasPrefix(#"{"seq":147,"eventsRead":147,"startedFromCheckpoint":null,"#))
  }
}
