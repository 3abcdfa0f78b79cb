import Engine
import Events
import Foundation
import Testing

/// The real source files: the repository's copy in `eventlogs/seed-data`, or `$REPLAY_SEED_DATA`.
enum ImportSeeds {
  static var directory: String { RepositoryFiles.seedDataDirectory }

  static func path(_ name: String) -> String { directory + "/" + name }

  static func text(_ name: String) -> String {
    String(decoding: fileBytes(path(name)), as: UTF8.self)
  }
}

/// Writes `text` to `directory/name` and returns the path.
@discardableResult
private func write(_ text: String, to name: String, in directory: String) throws -> String {
  let path = directory + "/" + name
  try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  return path
}

/// `replay import` end to end: the built binary, its output, exit status and the log's bytes.
@Suite struct ImportCommandTests {
  struct SeedCase: Sendable, CustomTestStringConvertible {
    var kind: String
    var file: String
    var output: String
    var again: String
    var note = ""
    var testDescription: String { file }
  }

  static let seedCases: [SeedCase] = [
    SeedCase(
      kind: "observations", file: "field-observations.json",
      output:
        "imported 11 observation records from field-observations.json: 11 ObservationRecorded (seq 1...11)",
      again: "nothing to import: all 11 observation records are unchanged since the last import"),
    SeedCase(
      kind: "states", file: "states-zipcodes.readme-example.plist",
      output:
        "imported 2 state records from states-zipcodes.readme-example.plist: 2 StateAdded, 4 ZipCodeAdded (seq 1...6)",
      again: "nothing to import: all 2 state records are unchanged since the last import"),
    SeedCase(
      kind: "states", file: "states-zipcodes.assessment-states.json",
      output:
        "imported 4 state records from states-zipcodes.assessment-states.json: 4 StateAdded, 67 ZipCodeAdded (seq 1...71)",
      again: "nothing to import: all 4 state records are unchanged since the last import"),
    SeedCase(
      kind: "zoo", file: "taipei-zoo-animals.json",
      output:
        "imported 20 animal records from taipei-zoo-animals.json: 20 AnimalImported (seq 1...20)",
      again: "nothing to import: all 20 animal records are unchanged since the last import",
      note:
        "note: 'taipei-zoo-animals.json' is one page of the API's answer: 20 of 273 animals from offset 0; import the other pages for the rest\n"
    ),
    SeedCase(
      kind: "locations", file: "acmeaom-locations.json",
      output:
        "imported 11 location records from acmeaom-locations.json: 11 LocationAdded (seq 1...11)",
      again: "nothing to import: all 11 location records are unchanged since the last import"),
    SeedCase(
      kind: "contacts", file: "contacts-v3.json",
      output: "imported 18 contact records from contacts-v3.json: 18 ContactAdded (seq 1...18)",
      again: "nothing to import: all 18 contact records are unchanged since the last import"),
  ]

  @Test(arguments: seedCases)
  func everySeedFileImportsAndAReimportAppendsNothing(_ seed: SeedCase) throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let arguments = ["import", seed.kind, ImportSeeds.path(seed.file), "--log", log]
      let first = try ReplayProcess.run(arguments, environment: reproducible)
      #expect(first.status == 0)
      #expect(first.output == seed.output + "\n")
      #expect(first.error == seed.note)
      let before = fileBytes(log)
      let again = try ReplayProcess.run(arguments, environment: reproducible)
      #expect(again.status == 0)
      #expect(again.output == seed.again + "\n")
      #expect(fileBytes(log) == before)
      #expect(try ReplayProcess.run(["verify", "--log", log]).status == 0)
    }
  }

  @Test func aChangedSourceAppendsChangeEventsNotDuplicates() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let original = ImportSeeds.text("contacts-v3.json")
      let source = try write(original, to: "contacts-v3.json", in: directory)
      let arguments = ["import", "contacts", source, "--log", log, "--actor", "importer"]
      #expect(try ReplayProcess.run(arguments, environment: reproducible).status == 0)
      // Miss Piggy's work phone changes; Charlie Brown becomes a favourite.
      var changed = original.replacingOccurrences(
        of: #""work": "602-225-9543""#, with: #""work": "602-555-0100""#)
      let charlie = try #require(changed.range(of: #""id": "1","#))
      let favorite = try #require(
        changed.range(of: #""isFavorite": false"#, range: charlie.upperBound..<changed.endIndex))
      changed.replaceSubrange(favorite, with: #""isFavorite": true"#)
      try write(changed, to: "contacts-v3.json", in: directory)
      let result = try ReplayProcess.run(arguments, environment: reproducible)
      #expect(result.status == 0)
      #expect(
        result.output
          == "imported 2 of 18 contact records from contacts-v3.json: 1 ContactUpdated, 1 ContactFavorited (seq 19...20); 16 unchanged since the last import\n"
      )
      let listing = try ReplayProcess.run(["log", "--log", log, "--from", "19"])
      #expect(
        listing.output == """
          SEQ  TIME                      STREAM      VERSION  TYPE              ACTOR     REASON
           19  2026-11-01T09:00:00.000Z  contact-13        2  ContactUpdated    importer  import contacts from contacts-v3.json
           20  2026-11-01T09:00:00.000Z  contact-1         2  ContactFavorited  importer  import contacts from contacts-v3.json

          """)
      let events = try ReplayProcess.run(["log", "--log", log, "--from", "19", "--json"]).output
      // The update is sealed in the log (only the id and the source in clear); its history
      // opens it.
      #expect(events.contains(#""data":{"id":"13","source":"contacts-v3.json","key":""#))
      #expect(!events.contains("602-555-0100"))
      let history = try ReplayProcess.run(["history", "contact-13", "--log", log]).output
      #expect(history.contains("602-555-0100"), "\(history)")
    }
  }

  @Test func aUsersFavoriteIsNotUndoneByReimportingTheSource() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let arguments = ["import", "contacts", ImportSeeds.path("contacts-v3.json"), "--log", log]
      #expect(try ReplayProcess.run(arguments, environment: reproducible).status == 0)
      let favorite = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-13", "--type", "ContactFavorited", "--data",
          #"{"id":"13"}"#, "--actor", "ana",
        ], environment: reproducible)
      #expect(favorite.output == "19\n")
      let before = fileBytes(log)
      let again = try ReplayProcess.run(arguments, environment: reproducible)
      #expect(
        again.output
          == "nothing to import: all 18 contact records are unchanged since the last import\n")
      #expect(fileBytes(log) == before)
    }
  }

  @Test func aLocationTheUserRemovedIsListedAndStaysRemoved() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let arguments = [
        "import", "locations", ImportSeeds.path("acmeaom-locations.json"), "--log", log,
      ]
      #expect(try ReplayProcess.run(arguments, environment: reproducible).status == 0)
      let charlie = "84e0c359-1e8a-434a-963a-613771dbe2c9"
      let removed = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "location-\(charlie)", "--type", "LocationRemoved",
          "--data", #"{"id":"\#(charlie)"}"#,
        ], environment: reproducible)
      #expect(removed.status == 0)
      let before = fileBytes(log)
      let again = try ReplayProcess.run(arguments, environment: reproducible)
      #expect(again.status == 0)
      #expect(
        again.output == """
          nothing to import: 10 of 11 location records are unchanged since the last import; 1 was removed by a user and stays removed:
            location record 3 (id '\(charlie)', name 'Charlie'): location '\(charlie)' was removed; the import leaves it removed

          """)
      #expect(fileBytes(log) == before)
    }
  }

  /// contacts-v3.json with three bad records: a birthdate that does not exist, a blank name, a
  /// record without an id.
  static func contactsWithThreeBadRecords() -> String {
    var text = ImportSeeds.text("contacts-v3.json")
    text = text.replacingOccurrences(of: #""1988-07-24""#, with: #""1988-02-30""#)
    text = text.replacingOccurrences(of: #""name": "Elmer Fudd""#, with: #""name": " ""#)
    text = text.replacingOccurrences(of: #""id": "0","#, with: "")
    return text
  }

  static let threeBadRecords = """
      contact record 2 (id '19', name 'Winnie-the-Pooh'): field 'birthdate': "1988-02-30" — expected a date as YYYY-MM-DD (e.g. 1987-05-11) that exists in the calendar
      contact record 5 (id '3', name ' '): field 'name': " " — expected a name that is not empty or only white space
      contact record 9 (name 'Bugs Bunny'): field 'id': missing — expected a contact id (a string)

    """

  @Test func invalidRecordsFailTheWholeImportAndLeaveTheLogAlone() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      #expect(
        try ReplayProcess.run(
          ["import", "locations", ImportSeeds.path("acmeaom-locations.json"), "--log", log],
          environment: reproducible
        ).status == 0)
      let source = try write(Self.contactsWithThreeBadRecords(), to: "bad.json", in: directory)
      let before = fileBytes(log)
      let result = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log], environment: reproducible)
      #expect(result.status == 65)
      #expect(result.output == "")
      #expect(
        result.error
          == "Error: 3 of 18 contact records in 'bad.json' are invalid; nothing was imported (--skip-invalid imports the other 15):\n"
          + Self.threeBadRecords)
      #expect(fileBytes(log) == before)
    }
  }

  @Test func skipInvalidImportsTheValidRecordsAndListsTheOthers() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let source = try write(Self.contactsWithThreeBadRecords(), to: "bad.json", in: directory)
      let result = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log, "--skip-invalid"], environment: reproducible)
      #expect(result.status == 0)
      #expect(
        result.output == "imported 15 contact records from bad.json: 15 ContactAdded (seq 1...15)\n"
      )
      #expect(
        result.error
          == "warning: skipped 3 of 18 contact records in 'bad.json' as invalid:\n"
          + Self.threeBadRecords)
      #expect(try ReplayProcess.run(["stats", "--log", log]).output.contains("events      15"))
    }
  }

  static let airports = """
    {"type":"FeatureCollection","features":[
     {"type":"Feature","properties":{"id":"KSFO","name":"San Francisco","elevation":13},
      "geometry":{"type":"Point","coordinates":[-122.375,37.619]}},
     {"type":"Feature","properties":{"id":"KOAK","name":"Oakland","elevation":9},
      "geometry":{"type":"Point","coordinates":[-122.221,37.721]}}]}
    """

  @Test func geoJSONIdsMayComeFromAPropertyAndTheErrorSaysWhichWouldServe() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let source = try write(Self.airports, to: "airports.geojson", in: directory)
      let missing = try ReplayProcess.run(
        ["import", "locations", source, "--log", log], environment: reproducible)
      #expect(missing.status == 65)
      #expect(
        missing.error.contains(
          "field 'id': missing — expected the feature's id (a string or number); every location "
            + "needs one; to take it from the properties, pass --id-property with one of 'id', "
            + "'elevation'"), "\(missing.error)")
      #expect(!FileManager.default.fileExists(atPath: log))
      let imported = try ReplayProcess.run(
        ["import", "locations", source, "--log", log, "--id-property", "id"],
        environment: reproducible)
      #expect(imported.status == 0, "\(imported.error)")
      #expect(
        imported.output
          == "imported 2 location records from airports.geojson: 2 LocationAdded (seq 1...2)\n")
      let state = try ReplayProcess.run(["state", "locations", "--log", log, "--json"])
      #expect(state.output.contains(#"{"id":"KOAK","name":"Oakland","#))
      let wrongKind = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log, "--id-property", "id"])
      #expect(wrongKind.status == 64)
    }
  }

  @Test func skipInvalidWithEveryRecordInvalidFailsAndWritesNothing() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let source = try write(
        #"[{"name":"No Id"},{"id":"2","name":" "}]"#, to: "allbad.json", in: directory)
      let result = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log, "--skip-invalid"], environment: reproducible)
      #expect(result.status == 65)
      #expect(result.output == "")
      #expect(
        result.error.hasPrefix(
          "Error: 2 of 2 contact records in 'allbad.json' are invalid; nothing was imported:\n"),
        "\(result.error)")
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test func aDryRunShowsTheEventsAndWritesNothing() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let source = ImportSeeds.path("states-zipcodes.readme-example.plist")
      let missing = try ReplayProcess.run(
        ["import", "states", source, "--log", log, "--dry-run"], environment: reproducible)
      #expect(missing.status == 0)
      #expect(!FileManager.default.fileExists(atPath: log))
      #expect(
        missing.output == """
          dry run: would import 2 state records from states-zipcodes.readme-example.plist: 2 StateAdded, 4 ZipCodeAdded
          RECORD  STREAM            VERSION  TYPE          SUMMARY
               1  state-California        1  StateAdded    'California'
               1  state-California        2  ZipCodeAdded  + 90001
               1  state-California        3  ZipCodeAdded  + 90002
               2  state-New York          1  StateAdded    'New York'
               2  state-New York          2  ZipCodeAdded  + 10001
               2  state-New York          3  ZipCodeAdded  + 10002
          nothing was written

          """)
      #expect(
        try ReplayProcess.run(
          ["import", "states", source, "--log", log], environment: reproducible
        ).status == 0)
      let edited = try write(
        #"{"States": [{"Name": "California", "ZipCodes": ["90001", "90002", "90003"]}]}"#,
        to: "states-zipcodes.readme-example.plist", in: directory)
      let before = fileBytes(log)
      let dryRun = try ReplayProcess.run(
        ["import", "states", edited, "--log", log, "--dry-run"], environment: reproducible)
      #expect(
        dryRun.output == """
          dry run: would import 1 state record from states-zipcodes.readme-example.plist: 1 ZipCodeAdded
          RECORD  STREAM            VERSION  TYPE          SUMMARY
               1  state-California        4  ZipCodeAdded  + 90003
          nothing was written

          """)
      #expect(fileBytes(log) == before)
      let real = try ReplayProcess.run(
        ["import", "states", edited, "--log", log], environment: reproducible)
      #expect(
        real.output
          == "imported 1 state record from states-zipcodes.readme-example.plist: 1 ZipCodeAdded (seq 7)\n"
      )
    }
  }

  @Test func jsonPrintsTheSummaryAsOneObject() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let result = try ReplayProcess.run(
        ["import", "contacts", ImportSeeds.path("contacts-v3.json"), "--log", log, "--json"],
        environment: reproducible)
      #expect(result.status == 0)
      let summary = try JSONValue.parse(result.output)
      #expect(
        result.output
          == #"{"kind":"contacts","source":"contacts-v3.json","dryRun":false,"records":18,"imported":18,"unchanged":0,"keptRemoved":[],"invalid":[],"appended":18,"duplicates":0,"firstSeq":1,"lastSeq":18,"eventsByType":{"ContactAdded":18}}"#
          + "\n")
      #expect(summary["events"] == nil)
      let dryRun = try ReplayProcess.run(
        [
          "import", "contacts", ImportSeeds.path("contacts-v3.json"), "--log", log, "--json",
          "--dry-run",
        ], environment: reproducible)
      let again = try JSONValue.parse(dryRun.output)
      #expect(again["unchanged"] == .number("18"))
      #expect(again["events"] == .array([]))
      #expect(again["firstSeq"] == .null)
    }
  }

  @Test func missingDirectoryAndMalformedSourcesFailWithTheirExitStatus() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let missing = try ReplayProcess.run(
        ["import", "contacts", directory + "/nope.json", "--log", log])
      #expect(missing.status == 66)
      #expect(missing.error == "Error: no such file '\(directory)/nope.json'\n")
      let folder = try ReplayProcess.run(["import", "zoo", directory, "--log", log])
      #expect(folder.status == 66)
      #expect(folder.error == "Error: '\(directory)' is a directory, not a file\n")
      let broken = try write(
        "[\n  {\"id\": \"1\"},\n  {\"id\": 2,}\n]\n", to: "x.json", in: directory)
      let notJSON = try ReplayProcess.run(["import", "contacts", broken, "--log", log])
      #expect(notJSON.status == 65)
      #expect(
        notJSON.error
          == "Error: 'x.json' is not valid JSON: line 3, column 12: expected a string, found '}'\n")
      let plist = try ReplayProcess.run(
        [
          "import", "contacts", ImportSeeds.path("states-zipcodes.readme-example.plist"), "--log",
          log,
        ])
      #expect(plist.status == 65)
      #expect(
        plist.error.hasPrefix(
          "Error: 'states-zipcodes.readme-example.plist' is not valid JSON: line 1, column 1:"))
      let zone = try ReplayProcess.run(
        ["import", "observations", broken, "--log", log, "--time-zone", "Mars/Olympus"])
      #expect(zone.status == 64)
      #expect(
        zone.error.hasPrefix(
          "Error: The value 'Mars/Olympus' is invalid for '--time-zone <zone>': expected an IANA time zone such as Asia/Taipei\n"
        ))
      let kind = try ReplayProcess.run(["import", "animals", broken, "--log", log])
      #expect(kind.status == 64)
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test func observationsReadDatesInTheGivenTimeZone() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let result = try ReplayProcess.run(
        [
          "import", "observations", ImportSeeds.path("field-observations.json"), "--log", log,
          "--time-zone", "Asia/Taipei", "--json",
        ], environment: reproducible)
      #expect(result.status == 0)
      let first = try ReplayProcess.run(["log", "--log", log, "--limit", "1", "--json"]).output
      #expect(first.contains(#""date":"2017-06-14T10:00:00.000Z""#))
    }
  }

  @Test func largeImportsPrintNoProgressWhenStandardErrorIsNotATerminal() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let records = (0..<10_001).map {
        #"{"id":"\#($0)","name":"Person \#($0)","isFavorite":false}"#
      }
      let source = try write(
        "[" + records.joined(separator: ",\n") + "]", to: "many.json", in: directory)
      let result = try ReplayProcess.run(
        ["import", "contacts", source, "--log", log, "--no-fsync", "--chunk-size", "5000"],
        environment: reproducible)
      #expect(result.status == 0)
      #expect(
        result.output
          == "imported 10001 contact records from many.json: 10001 ContactAdded (seq 1...10001)\n")
      #expect(
        result.error
          == "warning: --no-fsync: appends are not synced to disk; a machine crash can lose them\n")
    }
  }
}

/// `replay import` from URLs served by a real HTTP server on 127.0.0.1.
@Suite struct ImportFromURLTests {
  /// Fast retries and timeouts for tests.
  static let environment = reproducible.merging(["REPLAY_RETRY_DELAY": "0.05"]) { $1 }

  static let contacts = ImportTestServer.Response(
    status: 200, reason: "OK", body: ImportSeeds.text("contacts-v3.json"))

  @Test func aURLImportsLikeAFileAndNamesTheURLAsTheSource() throws {
    let server = try ImportTestServer([Self.contacts])
    defer { server.stop() }
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let url = server.url("/v3/contacts.json")
      let result = try ReplayProcess.run(
        ["import", "contacts", url, "--log", log, "--timeout", "5"], environment: Self.environment)
      #expect(result.status == 0)
      #expect(result.error == "")
      #expect(
        result.output == "imported 18 contact records from \(url): 18 ContactAdded (seq 1...18)\n")
      #expect(server.requestedPaths == ["/v3/contacts.json"])
      #expect(String(decoding: fileBytes(log), as: UTF8.self).contains(#""source":"\#(url)""#))
    }
  }

  @Test func aServiceUnavailableAnswerIsRetried() throws {
    let server = try ImportTestServer([
      ImportTestServer.Response(status: 503, reason: "Service Unavailable", body: "busy"),
      Self.contacts,
    ])
    defer { server.stop() }
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let url = server.url("/contacts.json")
      let result = try ReplayProcess.run(
        ["import", "contacts", url, "--log", log, "--timeout", "5", "--retries", "2"],
        environment: Self.environment)
      #expect(result.status == 0)
      #expect(
        result.error
          == "note: \(url) answered HTTP 503 Service Unavailable; retrying in 0.05 s (attempt 2 of 3)\n"
      )
      #expect(result.output.hasPrefix("imported 18 contact records from \(url)"))
      #expect(server.requestedPaths.count == 2)
    }
  }

  @Test func aServerThatStaysUnavailableFailsWithExit69AfterEveryAttempt() throws {
    let server = try ImportTestServer([
      ImportTestServer.Response(status: 503, reason: "Service Unavailable", body: "busy")
    ])
    defer { server.stop() }
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let url = server.url("/contacts.json")
      let result = try ReplayProcess.run(
        ["import", "contacts", url, "--log", log, "--timeout", "5", "--retries", "1"],
        environment: Self.environment)
      #expect(result.status == 69)
      #expect(
        result.error.hasSuffix(
          "Error: \(url) answered HTTP 503 Service Unavailable (tried 2 times)\n"))
      #expect(server.requestedPaths.count == 2)
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test func notFoundFailsAtOnceAndLeavesTheLogAlone() throws {
    let server = try ImportTestServer([
      ImportTestServer.Response(status: 404, reason: "Not Found", body: "{}")
    ])
    defer { server.stop() }
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      #expect(
        try ReplayProcess.run(
          ["import", "zoo", ImportSeeds.path("taipei-zoo-animals.json"), "--log", log],
          environment: Self.environment
        ).status == 0)
      let before = fileBytes(log)
      let url = server.url("/missing.json")
      let result = try ReplayProcess.run(
        ["import", "contacts", url, "--log", log, "--timeout", "5"], environment: Self.environment)
      #expect(result.status == 69)
      #expect(
        result.error == "Error: \(url) answered HTTP 404 Not Found; a 4xx status is not retried\n")
      #expect(server.requestedPaths.count == 1)
      #expect(fileBytes(log) == before)
    }
  }

  @Test func aBodyThatIsNotJSONFailsWithExit65() throws {
    let server = try ImportTestServer([
      ImportTestServer.Response(
        status: 200, reason: "OK", body: "<html><body>Maintenance</body></html>",
        contentType: "text/html")
    ])
    defer { server.stop() }
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let url = server.url("/locations")
      let result = try ReplayProcess.run(
        ["import", "locations", url, "--log", log, "--timeout", "5"], environment: Self.environment)
      #expect(result.status == 65)
      #expect(
        result.error
          == "Error: \(url) did not return JSON: line 1, column 1: expected a value (object, array, string, number, true, false or null), found '<'\n"
      )
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }

  @Test func aClosedPortIsReportedAsUnreachable() throws {
    let port = try ImportTestServer.closedPort()
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let url = "http://127.0.0.1:\(port)/contacts.json"
      let result = try ReplayProcess.run(
        ["import", "contacts", url, "--log", log, "--timeout", "2", "--retries", "1"],
        environment: Self.environment)
      #expect(result.status == 69)
      #expect(
        result.error
          == "note: cannot reach \(url): connection refused by 127.0.0.1:\(port); retrying in 0.05 s (attempt 2 of 2)\n"
          + "Error: cannot reach \(url): connection refused by 127.0.0.1:\(port) (tried 2 times)\n")
      #expect(!FileManager.default.fileExists(atPath: log))
    }
  }
}
