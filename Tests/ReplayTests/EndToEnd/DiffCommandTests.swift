import Foundation
import Testing

/// The shipped sample log, copied into `directory`.
private func sampleCopy(in directory: String) throws -> String {
  try RepositoryFiles.copySampleLog(to: directory)
}

/// `replay diff` end to end, on the sample log.
@Suite struct DiffCommandTests {
  @Test func theFavouritesThatChangedAfterTheContactsImport() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run([
        "diff", "contacts", "--from", "137", "--to", "147", "--log", log,
      ])
      #expect(result.status == 0)
      #expect(result.error == "")
      // Contact 13 was favourited at seq 138 and unfavourited at 147: no net change.
      #expect(
        result.output == """
          contacts from seq 137 to seq 147: 0 added, 0 removed, 2 changed
          changed 16 (Roger Rabbit)
            isFavorite: true → false
          changed 9 (Kermit the Frog)
            isFavorite: false → true

          """)
      let json = try ReplayProcess.run([
        "diff", "contacts", "--from", "137", "--to", "147", "--json", "--log", log,
      ])
      #expect(json.status == 0)
      #expect(
        json.output == #"""
          {"model":"contacts","from":{"seq":137},"to":{"seq":147},"added":[],"removed":[],"changed":[{"id":"16","fields":[{"name":"isFavorite","before":true,"after":false}]},{"id":"9","fields":[{"name":"isFavorite","before":false,"after":true}]}]}

          """#)
    }
  }

  @Test func zipCodesBetweenTwoTimes() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let arguments = [
        "diff", "zipcodes", "--from", "2026-11-01T12:00:00Z", "--to", "2026-11-04T00:00:00Z",
        "--log", log,
      ]
      let result = try ReplayProcess.run(arguments)
      #expect(result.status == 0)
      #expect(
        result.output == """
          zipcodes from 2026-11-01T12:00:00.000Z to 2026-11-04T00:00:00.000Z: 0 added, 0 removed, 2 changed
          changed Arizona
            zipCodes: removed 99501
          changed California
            zipCodes: 90001 → 90011

          """)
      let json = try ReplayProcess.run(arguments + ["--json"])
      #expect(json.status == 0)
      #expect(
        json.output == #"""
          {"model":"zipcodes","from":{"time":"2026-11-01T12:00:00.000Z"},"to":{"time":"2026-11-04T00:00:00.000Z"},"added":[],"removed":[],"changed":[{"id":"Arizona","fields":[{"name":"zipCodes","before":"99501, 99502, 99503, 99504, 99505, 99506, 99507, 99508, 99513, 99515, 99516, 99517, 99518, 99540, 99546, 99547, 99548","after":"99502, 99503, 99504, 99505, 99506, 99507, 99508, 99513, 99515, 99516, 99517, 99518, 99540, 99546, 99547, 99548"}]},{"id":"California","fields":[{"name":"zipCodes","before":"90001, 90002","after":"90011, 90002"}]}]}

          """#)
    }
  }

  @Test func addedEntitiesShowTheirFieldsAndABackwardDiffRemovesThem() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let forward = try ReplayProcess.run([
        "diff", "animals", "--from", "141", "--to", "143", "--log", log,
      ])
      #expect(forward.status == 0)
      #expect(
        forward.output == """
          animals from seq 141 to seq 143: 2 added, 0 removed, 0 changed
          added user-1 (臺灣黑熊 Formosan black bear)
            origin: inserted
            name: 臺灣黑熊 Formosan black bear
            description: Rescued in Yushan; settling into the Formosan animal area.
            picturePath: pictures/formosan-black-bear.jpg
          added user-2 (穿山甲 Chinese pangolin)
            origin: inserted
            name: 穿山甲 Chinese pangolin
            description: In quarantine until December.
            picturePath: pictures/pangolin.jpg

          """)
      let backward = try ReplayProcess.run([
        "diff", "animals", "--from", "143", "--to", "141", "--log", log,
      ])
      #expect(backward.status == 0)
      #expect(
        backward.output
          == forward.output.replacingOccurrences(of: "added user", with: "removed user")
          .replacingOccurrences(
            of: "animals from seq 141 to seq 143: 2 added, 0 removed",
            with: "animals from seq 143 to seq 141: 0 added, 2 removed"))
    }
  }

  @Test func toDefaultsToTheEndOfTheLog() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run([
        "diff", "locations", "--from", "2026-11-05T00:00:00Z", "--log", log,
      ])
      #expect(result.status == 0)
      #expect(
        result.output == """
          locations from 2026-11-05T00:00:00.000Z to seq 147: 0 added, 0 removed, 1 changed
          changed 2abca2a7-d768-4db2-95e2-09002df94362 (Echo)
            latitude: -37.99616267972812 → -37.8136
            longitude: 29.179687499999996 → 144.9631

          """)
      let same = try ReplayProcess.run(["diff", "contacts", "--from", "147", "--log", log])
      #expect(same.output == "contacts from seq 147 to seq 147: 0 added, 0 removed, 0 changed\n")
    }
  }

  @Test func anUnknownModelIsAUsageErrorWithASuggestion() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["diff", "contact", "--from", "1", "--log", log])
      #expect(result.status == 64)
      #expect(result.output == "")
      #expect(
        result.error == """
          Error: The value 'contact' is invalid for '<model>': expected one of contacts, zipcodes, observations, animals or locations. Did you mean 'contacts'?
          Help:  <model>  The read model: contacts, zipcodes, observations, animals or locations.
          Usage: replay diff [--log <path>] --from <point> [--to <point>] [--json] <model>
            See 'replay diff --help' for more information.

          """)
      let alias = try ReplayProcess.run(["diff", "states", "--from", "1", "--log", log])
      #expect(alias.status == 64)
      #expect(alias.error.contains("Did you mean 'zipcodes'?"))
    }
  }

  @Test(arguments: ["yesterday", "-3", "2026-13-01", "12a"])
  func aBadPointIsAUsageError(point: String) throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["diff", "contacts", "--from", point, "--log", log])
      #expect(result.status == 64)
      #expect(
        result.error.hasPrefix(
          """
          Error: The value '\(point)' is invalid for '--from <point>': expected a seq (a whole number ≥ 0) or an ISO 8601 time such as 2026-11-03T14:00:00Z
          Help:  --from <point>  The older point: a seq or an ISO 8601 time.

          """))
    }
  }

  @Test func aSeqPastTheEndExitsWith65() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run([
        "diff", "contacts", "--from", "0", "--to", "500", "--log", log,
      ])
      #expect(result.status == 65)
      #expect(result.error == "Error: \(log): the log has 147 events; there is no seq 500\n")
    }
  }

  @Test func aMissingLogExitsWith66() throws {
    try withTemporaryDirectory { directory in
      let result = try ReplayProcess.run([
        "diff", "contacts", "--from", "0", "--log", directory + "/none.jsonl",
      ])
      #expect(result.status == 66)
      #expect(result.error.hasPrefix("Error: no event log at '\(directory)/none.jsonl'"))
    }
  }
}
