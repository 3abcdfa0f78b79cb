import Foundation
import Testing

/// The shipped sample log, copied into `directory`.
private func sampleCopy(in directory: String) throws -> String {
  try RepositoryFiles.copySampleLog(to: directory)
}

/// `replay history` end to end, on the sample log.
@Suite struct HistoryCommandTests {
  @Test func aContactsHistoryShowsItsFavouritesWithWhoAndWhy() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["history", "contact-13", "--log", log])
      #expect(result.status == 0)
      #expect(result.error == "")
      #expect(
        result.output == """
          contact-13: 3 events (entity 13 of contacts)

          seq 120  2026-11-01T09:20:00.000Z  ContactAdded  by ana — "initial load of the contacts"  (imported from contacts-v3.json)
            name: Miss Piggy
            isFavorite: false
            companyName: Muppets, Baby
            smallImageURL: https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-small.jpg
            largeImageURL: https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-large.jpg
            emailAddress: Miss.Piggy@muppetsbaby.com
            birthdate: 1987-05-11
            phone.work: 602-225-9543
            phone.home: 602-225-9188
            address.street: 3530 E Washington St
            address.city: Phoenix
            address.state: AZ
            address.country: US
            address.zipCode: 85034

          seq 138  2026-11-02T10:30:00.000Z  ContactFavorited  by ana — "VIP donor"
            isFavorite: false → true

          seq 147  2026-11-08T17:30:00.000Z  ContactUnfavorited  by ana — "donation ended"
            isFavorite: true → false

          """)
      // The id alone names the same stream.
      #expect(try ReplayProcess.run(["history", "13", "--log", log]).output == result.output)
    }
  }

  @Test func aStatesHistoryShowsTheZipCodeSamModified() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["history", "California", "--log", log])
      #expect(result.status == 0)
      #expect(
        result.output == """
          state-California: 4 events (entity California of zipcodes)

          seq 12  2026-11-01T09:05:00.000Z  StateAdded  by sam — "initial load: the documented plist"  (imported from states-zipcodes.readme-example.plist)
            zipCodes: (empty)

          seq 13  2026-11-01T09:05:00.000Z  ZipCodeAdded  by sam — "initial load: the documented plist"  (imported from states-zipcodes.readme-example.plist)
            zipCodes: added 90001

          seq 14  2026-11-01T09:05:00.000Z  ZipCodeAdded  by sam — "initial load: the documented plist"  (imported from states-zipcodes.readme-example.plist)
            zipCodes: added 90002

          seq 140  2026-11-03T14:00:00.000Z  ZipCodeModified  by sam — "typo in the source file"
            zipCodes: 90001 → 90011

          """)
    }
  }

  @Test func anInsertedAnimalsHistory() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["history", "user-1", "--log", log])
      #expect(result.status == 0)
      #expect(
        result.output == """
          animal-user-1: 1 event (entity user-1 of animals)

          seq 142  2026-11-04T09:15:00.000Z  AnimalInserted  by lee — "new arrival"
            origin: inserted
            name: 臺灣黑熊 Formosan black bear
            description: Rescued in Yushan; settling into the Formosan animal area.
            picturePath: pictures/formosan-black-bear.jpg

          """)
      let json = try ReplayProcess.run(["history", "animal-user-1", "--json", "--log", log])
      #expect(json.status == 0)
      #expect(
        json.output == #"""
          {"stream":"animal-user-1","model":"animals","entity":"user-1","events":[{"seq":142,"version":1,"at":"2026-11-04T09:15:00.000Z","type":"AnimalInserted","actor":"lee","reason":"new arrival","correlation":null,"causation":null,"source":null,"changes":[{"field":"origin","before":null,"after":"inserted"},{"field":"name","before":null,"after":"臺灣黑熊 Formosan black bear"},{"field":"description","before":null,"after":"Rescued in Yushan; settling into the Formosan animal area."},{"field":"picturePath","before":null,"after":"pictures/formosan-black-bear.jpg"}]}]}

          """#)
    }
  }

  @Test func aMovedLocationShowsBothCoordinates() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run([
        "history", "2abca2a7-d768-4db2-95e2-09002df94362", "--log", log,
      ])
      #expect(result.status == 0)
      #expect(
        result.output == """
          location-2abca2a7-d768-4db2-95e2-09002df94362: 2 events (entity 2abca2a7-d768-4db2-95e2-09002df94362 of locations)

          seq 113  2026-11-01T09:15:00.000Z  LocationAdded  by kim — "initial load of the locations"  (imported from acmeaom-locations.json)
            name: Echo
            latitude: -37.99616267972812
            longitude: 29.179687499999996

          seq 144  2026-11-05T16:45:00.000Z  LocationMoved  by kim — "GPS correction: Echo is in Melbourne"
            latitude: -37.99616267972812 → -37.8136
            longitude: 29.179687499999996 → 144.9631

          """)
    }
  }

  @Test func aRevisedObservationShowsTheOldAndNewDescription() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["history", "398f8d08492d", "--log", log])
      #expect(result.status == 0)
      #expect(
        result.output == """
          observation-398f8d08492d: 2 events (entity 398f8d08492d of observations)

          seq 1  2026-11-01T09:00:00.000Z  ObservationRecorded  by mei — "initial load of the field survey"  (imported from field-observations.json)
            classification: bird
            title: Red-tailed Hawk
            description: Standing in tree in middle of wooded area.
            date: 2017-06-14T18:00:00.000Z

          seq 145  2026-11-06T08:10:00.000Z  ObservationRevised  by mei — "second visit"
            description: Standing in tree in middle of wooded area. → Standing in tree in middle of wooded area; a nest is visible higher up.

          """)
    }
  }

  @Test func theJSONShapeHasEveryKeyWithNullWhereAbsent() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["history", "contact-13", "--json", "--log", log])
      #expect(result.status == 0)
      let lines = result.output.split(separator: "\n")
      #expect(lines.count == 1)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
      #expect(object["stream"] as? String == "contact-13")
      #expect(object["model"] as? String == "contacts")
      #expect(object["entity"] as? String == "13")
      let events = try #require(object["events"] as? [[String: Any]])
      #expect(events.map { $0["seq"] as? Int } == [120, 138, 147])
      #expect(events[0]["correlation"] as? String == "c20786d9-2bc8-8706-b2ac-3471d87460be")
      #expect(events[0]["source"] as? String == "contacts-v3.json")
      #expect(events[1]["source"] is NSNull && events[1]["causation"] is NSNull)
      #expect(
        result.output.hasSuffix(
          #"{"seq":147,"version":3,"at":"2026-11-08T17:30:00.000Z","type":"ContactUnfavorited","actor":"ana","reason":"donation ended","correlation":null,"causation":null,"source":null,"changes":[{"field":"isFavorite","before":true,"after":false}]}]}"#
            + "\n"))
    }
  }

  @Test func anUnknownEntityExitsWith65AndSuggestsACloseStream() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["history", "Califronia", "--log", log])
      #expect(result.status == 65)
      #expect(result.output == "")
      #expect(
        result.error
          == "Error: no entity 'Califronia' in '\(log)': no stream 'contact-Califronia', "
          + "'state-Califronia', 'observation-Califronia', 'animal-Califronia' or "
          + "'location-Califronia' has events; did you mean 'state-California'?\n")
      let stream = try ReplayProcess.run(["history", "contact-99", "--log", log])
      #expect(stream.status == 65)
      #expect(
        stream.error == "Error: no stream 'contact-99' in '\(log)'; did you mean 'contact-19'?\n")
    }
  }

  @Test func anIDOfTwoEntitiesExitsWith65AndAsksForTheStream() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let added = try ReplayProcess.run(
        [
          "locations", "add", "--name", "Thirteen", "--latitude", "1", "--longitude", "2", "--id",
          "13", "--log", log, "--no-fsync",
        ],
        // After the sample's last event: event times never go backwards.
        environment: ["REPLAY_CLOCK": "2026-11-09T09:00:00Z", "REPLAY_ID_SEED": "tests"])
      #expect(added.status == 0, "\(added.error)")
      let result = try ReplayProcess.run(["history", "13", "--log", log])
      #expect(result.status == 65)
      #expect(
        result.error
          == "Error: '13' is the id of 2 entities, in streams 'contact-13' and 'location-13'; "
          + "give the stream name instead\n")
      let chosen = try ReplayProcess.run(["history", "location-13", "--log", log])
      #expect(chosen.status == 0)
      #expect(chosen.output.hasPrefix("location-13: 1 event (entity 13 of locations)\n"))
    }
  }

  @Test func aMissingLogExitsWith66() throws {
    try withTemporaryDirectory { directory in
      let result = try ReplayProcess.run(["history", "13", "--log", directory + "/none.jsonl"])
      #expect(result.status == 66)
      #expect(
        result.error
          == "Error: no event log at '\(directory)/none.jsonl'; pass --log <path> or set "
          + "REPLAY_LOG (the shipped sample is eventlogs/sample.jsonl)\n")
    }
  }

  @Test func aMissingEntityIsAUsageError() throws {
    let result = try ReplayProcess.run(["history"])
    #expect(result.status == 64)
    #expect(
      result.error == """
        Error: Missing expected argument '<entity>'
        Help:  <entity>  A stream (contact-13) or an entity id (13, California, user-1, zoo-panthera-pardus).
        Usage: replay history [--log <path>] [--json] <entity>
          See 'replay history --help' for more information.

        """)
  }
}
