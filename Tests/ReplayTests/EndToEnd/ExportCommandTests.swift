import Foundation
import Testing

/// The shipped sample log, copied into `directory`.
private func sampleCopy(in directory: String) throws -> String {
  try RepositoryFiles.copySampleLog(to: directory)
}

/// The layout `PropertyListDecoder` must read a zip code export into.
private struct StatesDocument: Decodable, Equatable {
  struct State: Decodable, Equatable {
    var name: String
    var zipCodes: [String]

    enum CodingKeys: String, CodingKey {
      case name = "Name"
      case zipCodes = "ZipCodes"
    }
  }

  var states: [State]

  enum CodingKeys: String, CodingKey {
    case states = "States"
  }
}

/// `replay export` end to end, on the sample log.
@Suite struct ExportCommandTests {
  /// The sample's zip codes as a property list: every state by name, California with the zip
  /// code sam modified, Arizona without the Alaska zip code he removed.
  static let samplePropertyList = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>States</key>
    \t<array>
    \t\t<dict>
    \t\t\t<key>Name</key>
    \t\t\t<string>Alabama</string>
    \t\t\t<key>ZipCodes</key>
    \t\t\t<array>
    \t\t\t\t<string>35004</string>
    \t\t\t\t<string>35005</string>
    \t\t\t\t<string>35006</string>
    \t\t\t\t<string>35007</string>
    \t\t\t\t<string>35010</string>
    \t\t\t\t<string>35014</string>
    \t\t\t\t<string>35016</string>
    \t\t\t\t<string>35019</string>
    \t\t\t\t<string>35020</string>
    \t\t\t\t<string>35022</string>
    \t\t\t\t<string>35023</string>
    \t\t\t\t<string>35031</string>
    \t\t\t\t<string>35033</string>
    \t\t\t\t<string>35034</string>
    \t\t\t\t<string>35035</string>
    \t\t\t\t<string>35036</string>
    \t\t\t</array>
    \t\t</dict>
    \t\t<dict>
    \t\t\t<key>Name</key>
    \t\t\t<string>Alaska</string>
    \t\t\t<key>ZipCodes</key>
    \t\t\t<array>
    \t\t\t\t<string>99501</string>
    \t\t\t\t<string>99502</string>
    \t\t\t\t<string>99503</string>
    \t\t\t\t<string>99504</string>
    \t\t\t\t<string>99505</string>
    \t\t\t\t<string>99506</string>
    \t\t\t\t<string>99507</string>
    \t\t\t\t<string>99508</string>
    \t\t\t\t<string>99513</string>
    \t\t\t\t<string>99515</string>
    \t\t\t\t<string>99516</string>
    \t\t\t\t<string>99517</string>
    \t\t\t\t<string>99518</string>
    \t\t\t\t<string>99540</string>
    \t\t\t\t<string>99546</string>
    \t\t\t\t<string>99547</string>
    \t\t\t\t<string>99548</string>
    \t\t\t</array>
    \t\t</dict>
    \t\t<dict>
    \t\t\t<key>Name</key>
    \t\t\t<string>Arizona</string>
    \t\t\t<key>ZipCodes</key>
    \t\t\t<array>
    \t\t\t\t<string>99502</string>
    \t\t\t\t<string>99503</string>
    \t\t\t\t<string>99504</string>
    \t\t\t\t<string>99505</string>
    \t\t\t\t<string>99506</string>
    \t\t\t\t<string>99507</string>
    \t\t\t\t<string>99508</string>
    \t\t\t\t<string>99513</string>
    \t\t\t\t<string>99515</string>
    \t\t\t\t<string>99516</string>
    \t\t\t\t<string>99517</string>
    \t\t\t\t<string>99518</string>
    \t\t\t\t<string>99540</string>
    \t\t\t\t<string>99546</string>
    \t\t\t\t<string>99547</string>
    \t\t\t\t<string>99548</string>
    \t\t\t</array>
    \t\t</dict>
    \t\t<dict>
    \t\t\t<key>Name</key>
    \t\t\t<string>Arkansas</string>
    \t\t\t<key>ZipCodes</key>
    \t\t\t<array>
    \t\t\t\t<string>99501</string>
    \t\t\t\t<string>99502</string>
    \t\t\t\t<string>99503</string>
    \t\t\t\t<string>99504</string>
    \t\t\t\t<string>99505</string>
    \t\t\t\t<string>99506</string>
    \t\t\t\t<string>99507</string>
    \t\t\t\t<string>99508</string>
    \t\t\t\t<string>99513</string>
    \t\t\t\t<string>99515</string>
    \t\t\t\t<string>99516</string>
    \t\t\t\t<string>99517</string>
    \t\t\t\t<string>99518</string>
    \t\t\t\t<string>99540</string>
    \t\t\t\t<string>99546</string>
    \t\t\t\t<string>99547</string>
    \t\t\t\t<string>99548</string>
    \t\t\t</array>
    \t\t</dict>
    \t\t<dict>
    \t\t\t<key>Name</key>
    \t\t\t<string>California</string>
    \t\t\t<key>ZipCodes</key>
    \t\t\t<array>
    \t\t\t\t<string>90011</string>
    \t\t\t\t<string>90002</string>
    \t\t\t</array>
    \t\t</dict>
    \t\t<dict>
    \t\t\t<key>Name</key>
    \t\t\t<string>New York</string>
    \t\t\t<key>ZipCodes</key>
    \t\t\t<array>
    \t\t\t\t<string>10001</string>
    \t\t\t\t<string>10002</string>
    \t\t\t</array>
    \t\t</dict>
    \t</array>
    </dict>
    </plist>

    """

  @Test func zipCodesExportAsTheDocumentedPropertyList() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["export", "zipcodes", "--log", log])
      #expect(result.status == 0)
      #expect(result.error == "")
      #expect(result.output == Self.samplePropertyList)
      let explicit = try ReplayProcess.run([
        "export", "zipcodes", "--format", "plist", "--log", log,
      ])
      #expect(explicit.output == Self.samplePropertyList)
      let decoded = try PropertyListDecoder().decode(
        StatesDocument.self, from: Data(result.output.utf8))
      #expect(decoded.states.count == 6)
      #expect(decoded.states[4] == .init(name: "California", zipCodes: ["90011", "90002"]))
      // The same layout as JSON.
      let json = try ReplayProcess.run(["export", "zipcodes", "--format", "json", "--log", log])
      #expect(json.status == 0)
      #expect(
        try JSONDecoder().decode(StatesDocument.self, from: Data(json.output.utf8)) == decoded)
    }
  }

  @Test func timeTravelExportsTheStateAtASeqOrAnInstant() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      // Before sam's changes of 11-03, California still has 90001.
      for arguments in [["--at", "139"], ["--as-of", "2026-11-03T00:00:00Z"]] {
        let result = try ReplayProcess.run(["export", "zipcodes", "--log", log] + arguments)
        #expect(result.status == 0)
        let decoded = try PropertyListDecoder().decode(
          StatesDocument.self, from: Data(result.output.utf8))
        #expect(decoded.states[4] == .init(name: "California", zipCodes: ["90001", "90002"]))
        #expect(decoded.states[2].zipCodes.first == "99501")
      }
      let empty = try ReplayProcess.run(["export", "locations", "--at", "0", "--log", log])
      #expect(
        empty.output == """
          {
            "type": "FeatureCollection",
            "features": []
          }

          """)
    }
  }

  @Test func locationsExportAsAGeoJSONFeatureCollection() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["export", "locations", "--log", log])
      #expect(result.status == 0)
      let document = try #require(
        try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
      #expect(document["type"] as? String == "FeatureCollection")
      #expect((document["features"] as? [Any])?.count == 11)
      // Echo, after kim's move to Melbourne: [longitude, latitude].
      #expect(
        result.output.contains(
          """
              {
                "type": "Feature",
                "id": "2abca2a7-d768-4db2-95e2-09002df94362",
                "geometry": {
                  "type": "Point",
                  "coordinates": [
                    144.9631,
                    -37.8136
                  ]
                },
                "properties": {
                  "name": "Echo"
                }
              },

          """))
      let json = try ReplayProcess.run(["export", "locations", "--format", "json", "--log", log])
      #expect(json.output == result.output)
    }
  }

  @Test func observationsAndContactsExportInTheirSourceSchemas() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let observations = try ReplayProcess.run(["export", "observations", "--log", log])
      #expect(observations.status == 0)
      #expect(
        observations.output.hasPrefix(
          """
          {
            "status": "ok",
            "observations": [
              {
                "id": "398f8d08492d",
                "classification": "bird",
                "title": "Red-tailed Hawk",
                "description": "Standing in tree in middle of wooded area; a nest is visible higher up.",
                "date": "2017-06-14T18:00:00Z"
              },

          """))
      let contacts = try ReplayProcess.run(["export", "contacts", "--log", log])
      #expect(contacts.status == 0)
      let array = try #require(
        try JSONSerialization.jsonObject(with: Data(contacts.output.utf8)) as? [[String: Any]])
      #expect(array.count == 18)
      #expect(array.first?["name"] as? String == "Miss Piggy")
      #expect(array.first { $0["id"] as? String == "9" }?["isFavorite"] as? Bool == true)
    }
  }

  @Test func animalsExportInTheZoosSourceShape() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run(["export", "animals", "--log", log])
      #expect(result.status == 0)
      #expect(result.error.isEmpty, "\(result.error)")
      // The open data's envelope; the first animal placed is the first imported one, with its
      // `_id` and Latin name; the users' animals are records of their own.
      #expect(result.output.hasPrefix("{\n  \"result\": {\n    \"count\": 22,\n"))
      #expect(result.output.contains(#""a_name_latin": "Ailuropoda melanoleuca""#))
      #expect(result.output.contains(#""replay_inserted": "user-1""#))
    }
  }

  /// Each export, imported into a new log and exported again, gives the same bytes: the read
  /// model survived the round trip. Observations have no ids in their source (the importer
  /// derives them from the source's name), so their export holds none and compares what the app
  /// shows.
  @Test(arguments: [
    ("zipcodes", "plist", "states"), ("zipcodes", "json", "states"),
    ("locations", "geojson", "locations"), ("contacts", "json", "contacts"),
    ("observations", "json", "observations"),
  ])
  func anExportImportsIntoANewLogAsTheSameReadModel(
    model: String, format: String, kind: String
  ) throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let file = directory + "/\(model).\(format)"
      let exported = try ReplayProcess.run([
        "export", model, "--format", format, "--output", file, "--log", log,
      ])
      #expect(exported.status == 0)
      #expect(exported.error == "")
      let newLog = directory + "/new.jsonl"
      let imported = try ReplayProcess.run(
        ["import", kind, file, "--log", newLog, "--no-fsync", "--time-zone", "Asia/Taipei"],
        environment: reproducible)
      #expect(imported.status == 0)
      let again = try ReplayProcess.run(["export", model, "--format", format, "--log", newLog])
      #expect(again.status == 0)
      #expect(Array(again.output.utf8) == fileBytes(file))
    }
  }

  @Test func outputIsWrittenToAFileAndSaysWhat() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let file = directory + "/states.plist"
      let result = try ReplayProcess.run(["export", "zipcodes", "--output", file, "--log", log])
      #expect(result.status == 0)
      #expect(result.output == "wrote 6 states as plist to \(file) (zipcodes at seq 147)\n")
      #expect(String(decoding: fileBytes(file), as: UTF8.self) == Self.samplePropertyList)
      let asOf = try ReplayProcess.run([
        "export", "observations", "--as-of", "2026-11-01", "--output", file, "--log", log,
      ])
      #expect(
        asOf.output
          == "wrote 0 observations as json to \(file) (observations as of 2026-11-01T00:00:00.000Z)\n"
      )
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
          "sample.jsonl", "sample.jsonl.keys", "states.plist",
        ])
    }
  }

  @Test func aFormatThatDoesNotFitTheModelIsAUsageError() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let result = try ReplayProcess.run([
        "export", "contacts", "--format", "geojson", "--log", log,
      ])
      #expect(result.status == 64)
      #expect(
        result.error == """
          Error: The value 'geojson' is invalid for '--format <format>': contacts export as json
          Help:  --format <format>  json, plist (zipcodes) or geojson (locations).
          Usage: replay export [--format <format>] [--at <seq>] [--as-of <time>] [--output <file>] [--log <path>] <model>
            See 'replay export --help' for more information.

          """)
      let plist = try ReplayProcess.run(["export", "locations", "--format", "plist", "--log", log])
      #expect(plist.status == 64)
      #expect(
        plist.error.hasPrefix(
          "Error: The value 'plist' is invalid for '--format <format>': locations export as geojson or json\n"
        ))
      let unknown = try ReplayProcess.run(["export", "contacts", "--format", "xml", "--log", log])
      #expect(unknown.status == 64)
      #expect(
        unknown.error.hasPrefix(
          "Error: The value 'xml' is invalid for '--format <format>'. Please provide one of 'json', 'plist' or 'geojson'.\n"
        ))
    }
  }

  @Test func badPointsAndModelsAreUsageErrors() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let both = try ReplayProcess.run([
        "export", "contacts", "--at", "3", "--as-of", "2026-11-01T00:00:00Z", "--log", log,
      ])
      #expect(both.status == 64)
      #expect(
        both.error.hasPrefix("Error: Give either '--at <seq>' or '--as-of <time>', not both\n"))
      let time = try ReplayProcess.run(["export", "contacts", "--at", "2026-11-01", "--log", log])
      #expect(time.status == 64)
      #expect(
        time.error.hasPrefix(
          "Error: The value '2026-11-01' is invalid for '--at <seq>': expected a seq, a whole number ≥ 0\n"
        ))
      let model = try ReplayProcess.run(["export", "zoo", "--log", log])
      #expect(model.status == 64)
      #expect(model.error.contains("Did you mean 'animals'?"))
      let past = try ReplayProcess.run(["export", "contacts", "--at", "148", "--log", log])
      #expect(past.status == 65)
      #expect(past.error == "Error: \(log): the log has 147 events; there is no seq 148\n")
    }
  }

  @Test func anOutputThatCannotBeWrittenExitsWith73AndChangesNothing() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let original = fileBytes(log)
      let missing = directory + "/missing/states.plist"
      let result = try ReplayProcess.run(["export", "zipcodes", "--output", missing, "--log", log])
      #expect(result.status == 73)
      #expect(result.output == "")
      #expect(result.error == "Error: cannot write '\(missing)': No such file or directory\n")
      let folder = try ReplayProcess.run([
        "export", "zipcodes", "--output", directory, "--log", log,
      ])
      #expect(folder.status == 73)
      #expect(folder.error == "Error: cannot write '\(directory)': Is a directory\n")
      let itself = try ReplayProcess.run(["export", "contacts", "--output", log, "--log", log])
      #expect(itself.status == 73)
      #expect(
        itself.error
          == "Error: '\(log)' is the event log '\(log)' itself; choose another --output\n")
      #expect(fileBytes(log) == original)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
          "sample.jsonl", "sample.jsonl.keys",
        ])
    }
  }

  @Test func aMissingLogExitsWith66() throws {
    try withTemporaryDirectory { directory in
      let result = try ReplayProcess.run(["export", "contacts", "--log", directory + "/none.jsonl"])
      #expect(result.status == 66)
      #expect(result.error.hasPrefix("Error: no event log at '\(directory)/none.jsonl'"))
    }
  }
}
