import Events
import Foundation
import Projections
import Testing

@testable import Engine
@testable import Importers

/// The sample log's read models at its end.
private func sampleModels(_ directory: String) throws -> ReadModels {
  try Replayer(reader: LogReader(path: try copySampleLog(to: directory))).readModels(at: .end)
    .models
}

/// The property list layout `PropertyListDecoder` must read an export into.
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

@Suite struct ReadModelExporterTests {
  @Test func theZipCodePropertyListReadsBackWithPropertyListDecoder() throws {
    try withTemporaryDirectory { directory in
      let models = try sampleModels(directory)
      let bytes = try ReadModelExporter.export(models, model: "zipcodes", format: .plist)
      let decoded = try PropertyListDecoder().decode(StatesDocument.self, from: Data(bytes))
      #expect(
        decoded.states.map(\.name) == [
          "Alabama", "Alaska", "Arizona", "Arkansas", "California", "New York",
        ])
      #expect(decoded.states[4] == .init(name: "California", zipCodes: ["90011", "90002"]))
      #expect(decoded.states.map(\.zipCodes.count) == [16, 17, 16, 17, 2, 2])
      let expected = models.zipCodes.states.map {
        StatesDocument.State(name: $0.name.rawValue, zipCodes: $0.zipCodes.map(\.rawValue))
      }
      #expect(decoded.states == expected)
      // The JSON export holds the same layout.
      let json = try ReadModelExporter.export(models, model: "zipcodes", format: .json)
      #expect(try JSONDecoder().decode(StatesDocument.self, from: Data(json)) == decoded)
    }
  }

  @Test func namesThatNeedEscapingAndEmptyStatesSurviveThePropertyList() throws {
    var list = ZipCodeList()
    list.apply(.stateAdded(StateAdded(state: try StateName("Tom & Jerry <\"Cartoon\"> 'Land'"))))
    list.apply(.stateAdded(StateAdded(state: try StateName("Empty"))))
    list.apply(
      .zipCodeAdded(
        ZipCodeAdded(
          state: try StateName("Tom & Jerry <\"Cartoon\"> 'Land'"),
          zipCode: try ZipCode("12345-6789"))))
    let bytes = try ReadModelExporter.propertyList(list)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("<string>Tom &amp; Jerry &lt;\"Cartoon\"&gt; 'Land'</string>"))
    #expect(text.contains("\t\t\t<key>ZipCodes</key>\n\t\t\t<array/>\n"))
    let decoded = try PropertyListDecoder().decode(StatesDocument.self, from: Data(bytes))
    #expect(
      decoded.states == [
        .init(name: "Empty", zipCodes: []),
        .init(name: "Tom & Jerry <\"Cartoon\"> 'Land'", zipCodes: ["12345-6789"]),
      ])
    let none = try ReadModelExporter.propertyList(ZipCodeList())
    #expect(try PropertyListDecoder().decode(StatesDocument.self, from: Data(none)).states == [])
  }

  @Test func charactersXMLCannotHoldAreRefused() throws {
    #expect(throws: ExportError.self) { try ReadModelExporter.xmlEscaped("a\u{1}b") }
    #expect(throws: ExportError.self) { try ReadModelExporter.xmlEscaped("a\u{FFFF}") }
    #expect(try ReadModelExporter.xmlEscaped("a\r\n\tb") == "a&#13;\n\tb")
  }

  @Test func locationsAreAGeoJSONFeatureCollectionOfPoints() throws {
    try withTemporaryDirectory { directory in
      let models = try sampleModels(directory)
      let bytes = try ReadModelExporter.export(models, model: "locations", format: .geojson)
      #expect(try ReadModelExporter.export(models, model: "locations", format: .json) == bytes)
      let document = try JSONValue.parse(bytes)
      #expect(document["type"]?.stringValue == "FeatureCollection")
      let features = try #require(document["features"]?.arrayValue)
      #expect(features.count == 11)
      let echo = try #require(
        features.first { $0["id"]?.stringValue == "2abca2a7-d768-4db2-95e2-09002df94362" })
      #expect(
        jsonText(echo)
          == #"{"type":"Feature","id":"2abca2a7-d768-4db2-95e2-09002df94362","geometry":{"type":"Point","coordinates":[144.9631,-37.8136]},"properties":{"name":"Echo"}}"#
      )
      #expect(features.compactMap { $0["properties"]?["name"]?.stringValue }.first == "Alpha")
    }
  }

  @Test func observationDatesAreUTCWithMillisecondsOnlyWhenThereAreSome() throws {
    var list = ObservationList()
    for (id, milliseconds) in [
      ("aaaaaaaaaaaa", 1_497_463_200_000), ("bbbbbbbbbbbb", 1_497_463_200_250),
    ] {
      let record = ObservationRecord(
        classification: .bird, title: "Hawk \(id.prefix(1))", description: "",
        date: Timestamp(millisecondsSince1970: Int64(milliseconds)))
      list.apply(.recorded(ObservationRecorded(id: try ObservationID(id), record: record)))
    }
    let text = String(decoding: ReadModelExporter.json(list), as: UTF8.self)
    #expect(
      text == """
        {
          "status": "ok",
          "observations": [
            {
              "id": "aaaaaaaaaaaa",
              "classification": "bird",
              "title": "Hawk a",
              "description": "",
              "date": "2017-06-14T18:00:00Z"
            },
            {
              "id": "bbbbbbbbbbbb",
              "classification": "bird",
              "title": "Hawk b",
              "description": "",
              "date": "2017-06-14T18:00:00.250Z"
            }
          ]
        }

        """)
  }

  @Test func contactsKeepTheSourcesKeysAndLeaveOutAbsentFields() throws {
    try withTemporaryDirectory { directory in
      let models = try sampleModels(directory)
      let document = try JSONValue.parse(
        try ReadModelExporter.export(models, model: "contacts", format: .json))
      let contacts = try #require(document.arrayValue)
      #expect(
        contacts.compactMap { $0["id"]?.stringValue } == [
          "13", "19", "1", "15", "3", "4", "6", "12", "0", "8", "9", "10", "11", "14", "2", "16",
          "17", "5",
        ])
      #expect(
        jsonText(contacts[0])
          == #"{"name":"Miss Piggy","id":"13","companyName":"Muppets, Baby","isFavorite":false,"smallImageURL":"https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-small.jpg","largeImageURL":"https://s3.amazonaws.com/technical-challenge/v3/images/miss-piggy-large.jpg","emailAddress":"Miss.Piggy@muppetsbaby.com","birthdate":"1987-05-11","phone":{"work":"602-225-9543","home":"602-225-9188"},"address":{"street":"3530 E Washington St","city":"Phoenix","state":"AZ","country":"US","zipCode":"85034"}}"#
      )
      #expect(contacts.first { $0["id"]?.stringValue == "9" }?["isFavorite"] == .bool(true))
    }
  }

  /// Each export imported into a new log gives the same read model. Zip codes, locations and
  /// contacts keep their ids (state names, feature ids, contact ids), so their entries must be
  /// equal. Observations have no ids in the source: the importer derives them from the source's
  /// name, title and date, so the new ids differ; what the app shows (every row but its id) must
  /// be equal, in the same order.
  @Test(arguments: [
    ("zipcodes", ExportFormat.plist, ImportKind.states),
    ("zipcodes", .json, .states),
    ("locations", .geojson, .locations),
    ("locations", .json, .locations),
    ("contacts", .json, .contacts),
    ("observations", .json, .observations),
  ])
  func anExportImportsAgainToTheSameReadModel(
    model: String, format: ExportFormat, kind: ImportKind
  ) throws {
    try withTemporaryDirectory { directory in
      let models = try sampleModels(directory)
      let bytes = try ReadModelExporter.export(models, model: model, format: format)
      // A time zone other than UTC: dates must carry their own.
      let parsed = try SourceParser.parse(
        bytes, kind: kind, sourceName: "export.\(format.rawValue)",
        options: SourceParser.Options(timeZone: try #require(TimeZone(identifier: "Asia/Taipei"))))
      #expect(parsed.problems.isEmpty)
      let newPath = directory + "/new.jsonl"
      try importParsed(
        parsed, into: try EventLog(path: newPath, configuration: testConfiguration()))
      let imported = try Replayer(reader: LogReader(path: newPath)).readModels(at: .end).models
      let before = try #require(models.model(named: model))
      let after = try #require(imported.model(named: model))
      #expect(after.count == before.count)
      if model == "observations" {
        func shown(_ list: ObservationList) -> [[String]] {
          list.rows().map {
            [$0.classification.rawValue, $0.icon.name, $0.title, $0.dateText, $0.description]
          }
        }
        #expect(shown(imported.observations) == shown(models.observations))
        #expect(
          Set(imported.observations.entries.values) == Set(models.observations.entries.values))
      } else {
        #expect(after.entries == before.entries)
        #expect(after.jsonText() == before.jsonText())
      }
      // Exporting the new log gives the same file.
      #expect(try ReadModelExporter.export(imported, model: model, format: format) == bytes)
    }
  }

  @Test func everyModelHasItsFormats() {
    #expect(ExportFormat.formats(forModel: "zipcodes") == [.plist, .json])
    #expect(ExportFormat.formats(forModel: "locations") == [.geojson, .json])
    #expect(ExportFormat.formats(forModel: "contacts") == [.json])
    #expect(ExportFormat.formats(forModel: "observations") == [.json])
    #expect(ExportFormat.formats(forModel: "animals") == [.json])
    #expect(ExportFormat.formats(forModel: "zoo") == [])
    #expect(
      ReadModels.modelNames.filter(ExportFormat.isReimportable) == [
        "contacts", "zipcodes", "observations", "animals", "locations",
      ])
  }
}

@Suite struct PrettyJSONTests {
  @Test func indentingKeepsTheValue() throws {
    let compact = #"{"a":[1,{"b":"x,y:{z}[\"q\\]"},[],{}],"c":{"d":null,"e":true},"f":-1.5e-7}"#
    let pretty = PrettyJSON.format(Array(compact.utf8))
    #expect(try JSONValue.parse(pretty) == (try JSONValue.parse(compact)))
    #expect(
      String(decoding: pretty, as: UTF8.self) == #"""
        {
          "a": [
            1,
            {
              "b": "x,y:{z}[\"q\\]"
            },
            [],
            {}
          ],
          "c": {
            "d": null,
            "e": true
          },
          "f": -1.5e-7
        }

        """#)
  }
}

@Suite struct AtomicFileTests {
  @Test func writingReplacesTheFileAndKeepsItsPermissions() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/out.plist"
      try AtomicFile.write(Array("one\n".utf8), to: path)
      #expect(try fileBytes(path) == Array("one\n".utf8))
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
      try AtomicFile.write(Array("two\n".utf8), to: path)
      #expect(try fileBytes(path) == Array("two\n".utf8))
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      #expect((attributes[.posixPermissions] as? Int) == 0o600)
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.plist"])
    }
  }

  @Test func aFolderThatIsNotThereIsCannotCreateOutput() throws {
    try withTemporaryDirectory { directory throws in
      let path = directory + "/missing/out.json"
      #expect(
        throws: ExportError.cannotCreateOutput(path: path, reason: "No such file or directory")
      ) { try AtomicFile.write([0x7B, 0x7D], to: path) }
      #expect(
        throws: ExportError.cannotCreateOutput(path: directory, reason: "Is a directory")
      ) {
        try AtomicFile.write([0x7B, 0x7D], to: directory)
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])
    }
  }

  @Test func theLogItselfIsNeverReplaced() throws {
    try withTemporaryDirectory { directory in
      let path = try copySampleLog(to: directory)
      let original = try fileBytes(path)
      let error = try #require(throws: ExportError.self) {
        try AtomicFile.write([0x7B, 0x7D], to: directory + "/./sample.jsonl", protecting: path)
      }
      #expect(
        error.description
          == "'\(directory)/./sample.jsonl' is the event log '\(path)' itself; choose another --output"
      )
      #expect(try fileBytes(path) == original)
      // Nor any other file of the log: its key store, through a hard link too.
      let keys = try fileBytes(path + ".keys")
      try FileManager.default.linkItem(atPath: path + ".keys", toPath: directory + "/keys.json")
      for output in [path + ".keys", directory + "/keys.json"] {
        #expect(
          throws: ExportError.fileOfLog(
            path: output, role: .keyStore, log: path, option: "--output")
        ) { try AtomicFile.write([0x7B, 0x7D], to: output, protecting: path) }
      }
      #expect(try fileBytes(path + ".keys") == keys)
    }
  }
}
