import Foundation
import Testing

/// Runs `replay` against one log, checking each rejected command leaves it byte-for-byte alone.
struct Session {
  let log: String

  @discardableResult
  func run(_ arguments: [String]) throws -> ReplayProcess.Result {
    try ReplayProcess.run(arguments + ["--log", log], environment: reproducible)
  }

  /// Runs a command that must fail with `status` and `message`, and must not touch the log.
  func rejects(_ arguments: [String], status: Int32, message: String) throws {
    let before = fileBytes(log)
    let result = try run(arguments)
    #expect(result.status == status, "\(arguments): \(result.error)")
    #expect(result.error == "Error: \(message)\n", "\(arguments)")
    #expect(fileBytes(log) == before, "\(arguments) changed the log")
  }

  /// Runs a command that must succeed and print exactly `output`.
  func accepts(_ arguments: [String], output: String) throws {
    let result = try run(arguments)
    #expect(result.status == 0, "\(arguments): \(result.error)")
    #expect(result.output == output, "\(arguments)")
  }
}

@Suite struct ZipCodeCommandTests {
  @Test func zipCodesAreAddedModifiedAndRemovedUnderTheirRules() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      try session.rejects(
        ["zipcodes", "add", "Ohio", "43001"], status: 65,
        message: "no state 'Ohio' exists (stream 'state-Ohio' has no events); add the state first")
      try session.accepts(
        ["states", "add", "Ohio"], output: "appended StateAdded to state-Ohio (seq 1, version 1)\n")
      try session.rejects(
        ["states", "add", "Ohio"], status: 65,
        message: "state 'Ohio' already exists (stream 'state-Ohio'); add its zip codes instead")
      try session.accepts(
        ["zipcodes", "add", "Ohio", "43001"],
        output: "appended ZipCodeAdded to state-Ohio (seq 2, version 2)\n")
      try session.accepts(
        ["zipcodes", "add", "Ohio", "43002-1234"],
        output: "appended ZipCodeAdded to state-Ohio (seq 3, version 3)\n")
      for bad in ["", "4300", "43001-12", "350HH", "4300 1"] {
        let result = try session.run(["zipcodes", "add", "Ohio", bad])
        #expect(result.status == 65, "'\(bad)'")
        #expect(
          result.error.hasPrefix("Error: <zip>: expected a zip code of 5 digits or ZIP+4"),
          "'\(bad)': \(result.error)")
      }
      try session.rejects(
        ["zipcodes", "add", "Ohio", "43001"], status: 65,
        message: "state 'Ohio' already has zip code '43001'; a zip code appears once per state")
      try session.rejects(
        ["zipcodes", "modify", "Ohio", "43009", "43010"], status: 65,
        message:
          "cannot change zip code '43009' to '43010' in state 'Ohio': the state has no '43009'")
      try session.rejects(
        ["zipcodes", "modify", "Ohio", "43001", "43002-1234"], status: 65,
        message:
          "cannot change zip code '43001' to '43002-1234' in state 'Ohio': the state already has '43002-1234'"
      )
      try session.accepts(
        ["zipcodes", "modify", "Ohio", "43001", "43005", "--actor", "sam", "--reason", "typo"],
        output: "appended ZipCodeModified to state-Ohio (seq 4, version 4)\n")
      try session.rejects(
        ["zipcodes", "remove", "Ohio", "43001"], status: 65,
        message: "state 'Ohio' has no zip code '43001'")
      try session.accepts(
        ["zipcodes", "remove", "Ohio", "43005"],
        output: "appended ZipCodeRemoved to state-Ohio (seq 5, version 5)\n")
      // The same zip may belong to two states.
      try session.accepts(
        ["states", "add", "New York"],
        output: "appended StateAdded to state-New York (seq 6, version 1)\n")
      try session.accepts(
        ["zipcodes", "add", "New York", "43002-1234"],
        output: "appended ZipCodeAdded to state-New York (seq 7, version 2)\n")
    }
  }

  @Test func anExplicitExpectedVersionThatIsStaleIsAConflict() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      try session.run(["states", "add", "Ohio"])
      try session.rejects(
        ["zipcodes", "add", "Ohio", "43001", "--expected-version", "0"], status: 3,
        message:
          "stream 'state-Ohio' has version 1, but the append expected no events; reload the stream and retry"
      )
      try session.accepts(
        ["zipcodes", "add", "Ohio", "43001", "--expected-version", "1"],
        output: "appended ZipCodeAdded to state-Ohio (seq 2, version 2)\n")
    }
  }
}

@Suite struct LocationCommandTests {
  @Test func locationsAreAddedRenamedMovedAndRemovedUnderTheirRules() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      try session.accepts(
        [
          "locations", "add", "--id", "alpha", "--name", "Alpha", "--latitude", "-34.98",
          "--longitude", "149.98",
        ],
        output: "appended LocationAdded to location-alpha (seq 1, version 1)\n")
      try session.rejects(
        [
          "locations", "add", "--id", "alpha", "--name", "Again", "--latitude", "1", "--longitude",
          "1",
        ], status: 65,
        message: "location 'alpha' already exists (stream 'location-alpha'); choose another id")
      for (latitude, longitude, message) in [
        ("90.0001", "0", "invalid coordinate: expected a latitude in [-90, 90], found 90.0001"),
        ("-90.5", "0", "invalid coordinate: expected a latitude in [-90, 90], found -90.5"),
        (
          "0", "180.0001", "invalid coordinate: expected a longitude in [-180, 180], found 180.0001"
        ),
      ] {
        try session.rejects(
          [
            "locations", "add", "--id", "b", "--name", "B", "--latitude", latitude, "--longitude",
            longitude,
          ],
          status: 65, message: message)
      }
      try session.rejects(
        ["locations", "add", "--id", "b", "--name", " ", "--latitude", "1", "--longitude", "1"],
        status: 65,
        message:
          "'replay locations add': '--name': expected a name that is not empty or only white space, found ' '"
      )
      try session.accepts(
        [
          "locations", "add", "--id", "pole", "--name", "Pole", "--latitude", "90", "--longitude",
          "-180",
        ],
        output: "appended LocationAdded to location-pole (seq 2, version 1)\n")
      try session.accepts(
        ["locations", "rename", "alpha", "Alpha Prime"],
        output: "appended LocationRenamed to location-alpha (seq 3, version 2)\n")
      try session.accepts(
        ["locations", "rename", "alpha", "Alpha Prime"],
        output: "nothing appended: location 'alpha' is already named 'Alpha Prime'\n")
      try session.accepts(
        ["locations", "move", "alpha", "--latitude", "-35", "--longitude", "150"],
        output: "appended LocationMoved to location-alpha (seq 4, version 3)\n")
      try session.rejects(
        ["locations", "move", "nowhere", "--latitude", "1", "--longitude", "1"], status: 65,
        message:
          "no location 'nowhere' exists (stream 'location-nowhere' has no events); add or import it first"
      )
      try session.accepts(
        ["locations", "remove", "alpha"],
        output: "appended LocationRemoved to location-alpha (seq 5, version 4)\n")
      try session.rejects(
        ["locations", "rename", "alpha", "Back"], status: 65,
        message: "location 'alpha' was removed; a removed location cannot be changed")
    }
  }
}

@Suite struct ObservationCommandTests {
  @Test(arguments: ["amphibian", "bird", "fish", "insect", "mammal", "plant", "reptile"])
  func everyClassificationIsAccepted(classification: String) throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      let result = try session.run([
        "observations", "record", "--classification", classification, "--title", "Seen", "--date",
        "2017-06-14 18:00",
      ])
      #expect(result.status == 0)
      #expect(result.output.hasPrefix("appended ObservationRecorded to observation-"))
    }
  }

  @Test func observationsFollowTheirRules() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      let unknown = try session.run([
        "observations", "record", "--classification", "dragon", "--title", "x", "--date",
        "2017-06-14 18:00",
      ])
      #expect(unknown.status == 64)
      #expect(
        unknown.error.hasPrefix(
          "Error: The value 'dragon' is invalid for '--classification <classification>'"))
      try session.rejects(
        [
          "observations", "record", "--classification", "bird", "--title", "  ", "--date",
          "2017-06-14 18:00",
        ],
        status: 65,
        message:
          "'replay observations record': '--title': expected a title that is not empty or only white space, found '  '"
      )
      try session.rejects(
        [
          "observations", "record", "--classification", "bird", "--title", "Hawk", "--date",
          "14/06/2017",
        ],
        status: 65,
        message:
          "'--date': expected a date as 'YYYY-MM-DD HH:MM' or ISO 8601 with a zone (e.g. '2017-06-14T18:00:03Z'), found '14/06/2017'"
      )
      let zone = try session.run([
        "observations", "record", "--classification", "bird", "--title", "Hawk", "--date",
        "2017-06-14 18:00",
        "--time-zone", "Mars/Olympus",
      ])
      #expect(zone.status == 64)
      #expect(
        zone.error.hasPrefix(
          "Error: The value 'Mars/Olympus' is invalid for '--time-zone <zone>': expected an IANA time zone such as UTC or America/Chicago\n"
        ))
      try session.accepts(
        [
          "observations", "record", "--classification", "bird", "--title", "Red-tailed Hawk",
          "--date",
          "2017-06-14 18:00", "--time-zone", "America/Chicago", "--id", "0000000000a1",
        ],
        output: "appended ObservationRecorded to observation-0000000000a1 (seq 1, version 1)\n")
      let stored = String(decoding: fileBytes(session.log), as: UTF8.self)
      #expect(stored.contains(#""date":"2017-06-14T23:00:00.000Z""#))
      try session.accepts(
        ["observations", "revise", "0000000000a1", "--title", "Red-tailed Hawk"],
        output: "nothing appended: observation '0000000000a1' already has these values\n")
      try session.accepts(
        [
          "observations", "revise", "0000000000a1", "--description", "High in an oak", "--date",
          "2017-06-14T18:00:03Z",
        ],
        output: "appended ObservationRevised to observation-0000000000a1 (seq 2, version 2)\n")
      try session.accepts(
        ["observations", "remove", "0000000000a1"],
        output: "appended ObservationRemoved to observation-0000000000a1 (seq 3, version 3)\n")
      try session.rejects(
        ["observations", "revise", "0000000000a1", "--title", "Gone"], status: 65,
        message: "observation '0000000000a1' was removed; a removed observation cannot be changed")
    }
  }
}

@Suite struct ContactAndAnimalCommandTests {
  @Test func favouritingFollowsItsRules() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      try session.rejects(
        ["contacts", "favorite", "13"], status: 65,
        message:
          "no contact '13' exists (stream 'contact-13' has no events); add or import it first")
      try session.run([
        "append", "--stream", "contact-13", "--type", "ContactAdded", "--data",
        #"{"id":"13","name":"Miss Piggy","isFavorite":false}"#,
      ])
      try session.accepts(
        ["contacts", "favorite", "13", "--actor", "ana"],
        output: "appended ContactFavorited to contact-13 (seq 2, version 2)\n")
      let before = fileBytes(session.log)
      try session.accepts(
        ["contacts", "favorite", "13"],
        output: "nothing appended: contact '13' is already a favorite\n")
      #expect(fileBytes(session.log) == before)
      try session.accepts(
        ["contacts", "unfavorite", "13"],
        output: "appended ContactUnfavorited to contact-13 (seq 3, version 3)\n")
      try session.accepts(
        ["contacts", "unfavorite", "13"],
        output: "nothing appended: contact '13' is not a favorite\n")
    }
  }

  @Test func insertedAnimalsGetIDsThatAreNeverReused() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      try session.accepts(
        [
          "animals", "insert", "--name", "Otter", "--description", "Playful", "--picture",
          "pictures/otter.jpg",
        ],
        output: "appended AnimalInserted to animal-user-1 (seq 1, version 1)\n")
      try session.accepts(
        ["animals", "insert", "--name", "Seal"],
        output: "appended AnimalInserted to animal-user-2 (seq 2, version 1)\n")
      try session.accepts(
        ["animals", "remove", "user-2"],
        output: "appended AnimalRemoved to animal-user-2 (seq 3, version 2)\n")
      try session.accepts(
        ["animals", "insert", "--name", "Heron"],
        output: "appended AnimalInserted to animal-user-3 (seq 4, version 1)\n")
      try session.rejects(
        ["animals", "insert", "--name", " "], status: 65,
        message:
          "'replay animals insert': '--name': expected a name that is not empty or only white space, found ' '"
      )
      try session.rejects(
        ["animals", "remove", "zoo-7"], status: 65,
        message:
          "no animal 'zoo-7' exists (stream 'animal-zoo-7' has no events); add or import it first")
    }
  }

  @Test func jsonOutputHoldsTheEnvelopes() throws {
    try withTemporaryDirectory { directory in
      let session = Session(log: directory + "/events.jsonl")
      let result = try session.run(["states", "add", "Ohio", "--json"])
      #expect(result.status == 0)
      let stored = String(decoding: fileBytes(session.log), as: UTF8.self).dropLast()
      #expect(result.output == #"{"appended":["# + stored + #"],"noChangeReason":null}"# + "\n")
      let again = try session.run(["states", "add", "Ohio", "--json"])
      #expect(again.status == 65)
    }
  }
}
