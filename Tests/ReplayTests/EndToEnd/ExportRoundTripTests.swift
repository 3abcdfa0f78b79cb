import Foundation
import Testing

/// Every export that `replay import` reads must come back unchanged: into the log it came from,
/// appending nothing; into an empty log, giving the same read model.
@Suite struct ExportRoundTripTests {
  /// The export's model, the import kind that reads it back, and the file's name.
  static let cases: [(model: String, kind: String, file: String)] = [
    ("contacts", "contacts", "contacts.json"),
    ("zipcodes", "states", "states.plist"),
    ("locations", "locations", "locations.geojson"),
    ("observations", "observations", "observations.json"),
    // The zoo's open-data shape, with the animals users inserted as records of their own.
    ("animals", "zoo", "animals.json"),
  ]

  @Test(arguments: cases)
  func anExportReimportedIntoItsLogAppendsNothing(model: String, kind: String, file: String)
    throws
  {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let export = directory + "/" + file
      let exported = try ReplayProcess.run(["export", model, "--log", log, "--output", export])
      #expect(exported.status == 0, "\(exported.error)")
      let before = try Data(contentsOf: URL(fileURLWithPath: log))
      let imported = try ReplayProcess.run(
        ["import", kind, export, "--log", log], environment: reproducible)
      #expect(imported.status == 0, "\(imported.error)")
      #expect(imported.output.hasPrefix("nothing to import"), "\(imported.output)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
    }
  }

  @Test(arguments: cases)
  func anExportImportedIntoAnEmptyLogGivesTheSameReadModel(
    model: String, kind: String, file: String
  ) throws {
    try withTemporaryDirectory { directory in
      let export = directory + "/" + file
      let exported = try ReplayProcess.run([
        "export", model, "--log", SampleLogTests.sample, "--output", export,
      ])
      #expect(exported.status == 0, "\(exported.error)")
      let log = directory + "/fresh.jsonl"
      let imported = try ReplayProcess.run(
        ["import", kind, export, "--log", log], environment: reproducible)
      #expect(imported.status == 0, "\(imported.error)")
      let original = try ReplayProcess.run([
        "state", model, "--log", SampleLogTests.sample, "--json",
      ])
      let copy = try ReplayProcess.run(["state", model, "--log", log, "--json"])
      #expect(Self.withoutSeq(copy.output) == Self.withoutSeq(original.output))
    }
  }

  /// The state's JSON without its leading `{"seq":<n>,`, which differs between the two logs.
  static func withoutSeq(_ json: String) -> Substring {
    guard let comma = json.firstIndex(of: ",") else { return json[...] }
    return json[comma...]
  }
}
