import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

@Suite struct LocationSourceParserTests {
  @Test func acmeaomLocationsHoldElevenPointsReadAsLongitudeLatitude() throws {
    let parsed = try SeedData.parse(.locations, SeedData.locations)
    #expect(parsed.problems.isEmpty)
    let locations = parsed.locationRecords
    #expect(locations.count == 11)
    #expect(locations.map(\.name).prefix(4) == ["Alpha", "Bravo", "Charlie", "Delta"])
    #expect(locations[0].id.rawValue == "2298eb8d-255e-4198-a20c-cc9c2eac0cf7")
    #expect(locations[0].coordinate.latitude == -34.98520411042454)
    #expect(locations[0].coordinate.longitude == 149.98458041136354)
    #expect(parsed.records[0].label == "id '2298eb8d-255e-4198-a20c-cc9c2eac0cf7', name 'Alpha'")
  }

  @Test func memberOrderDoesNotMatter() throws {
    let original = try SeedData.parse(.locations, SeedData.locations)
    let shuffled = reversingMembers(try JSONValue.parse(try SeedData.bytes(SeedData.locations)))
    let text = jsonText(shuffled)
    #expect(text.hasPrefix(#"{"features":[{"id":"2298eb8d"#))
    let parsed = try parseSource(.locations, text, name: SeedData.locations)
    #expect(parsed.problems.isEmpty)
    #expect(parsed.locationRecords == original.locationRecords)
    #expect(parsed.records.map(\.digest) == original.records.map(\.digest))
  }

  @Test func nonPointGeometryAndMissingIDsAreRejectedWithAReason() throws {
    let parsed = try parseSource(
      .locations,
      """
      {"type": "FeatureCollection", "features": [
        {"type": "Feature", "id": "a", "properties": {"name": "A"},
         "geometry": {"type": "Point", "coordinates": [10, 20, 300]}},
        {"type": "Feature", "id": "b", "properties": {"name": "B"},
         "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}},
        {"type": "Feature", "properties": {"name": "C"},
         "geometry": {"type": "Point", "coordinates": [1, 2]}},
        {"type": "Feature", "id": 4, "properties": {"name": "D"},
         "geometry": {"type": "Point", "coordinates": [45, 120]}},
        {"type": "Feature", "id": "e", "properties": null, "geometry": null}
      ]}
      """)
    #expect(parsed.locationRecords.map(\.id.rawValue) == ["a"])
    #expect(parsed.locationRecords[0].coordinate == (try Coordinate(latitude: 20, longitude: 10)))
    #expect(
      parsed.problems.map(\.description) == [
        "location record 2 (id 'b', name 'B'): field 'geometry.type': \"LineString\" — expected \"Point\"; only point features can be imported as locations",
        "location record 3 (name 'C'): field 'id': missing — expected the feature's id (a string or number); every location needs one",
        "location record 4 (id '4', name 'D'): field 'geometry.coordinates[1]': 120 — expected a latitude in [-90, 90]; GeoJSON writes [longitude, latitude]: are they swapped?",
        "location record 5 (id 'e'): field 'properties.name': missing — expected a name that is not empty or only white space",
        "location record 5 (id 'e'): field 'geometry': null — expected a Point geometry {\"type\": \"Point\", \"coordinates\": [longitude, latitude]}",
      ])
  }

  @Test func anotherGeoJSONTypeIsALayoutError() throws {
    #expect {
      try parseSource(.locations, #"{"type": "GeometryCollection", "features": []}"#)
    } throws: { error in
      (error as? ImportError)?.description
        == "'test.json' is not laid out as locations are: expected a GeoJSON object of type "
        + "\"FeatureCollection\", found type \"GeometryCollection\""
    }
  }
}

@Suite struct SourceDocumentTests {
  @Test func invalidJSONIsReportedWithLineAndColumn() throws {
    #expect {
      try parseSource(.contacts, "[\n  {\"id\": \"1\",\n   name: 2}\n]", name: "broken.json")
    } throws: { error in
      (error as? ImportError)?.description
        == "'broken.json' is not valid JSON: line 3, column 4: expected a string, found 'n'"
    }
  }

  @Test func aByteOrderMarkBeforeTheDocumentIsSkipped() throws {
    let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"[{"id": "1", "name": "Ann"}]"#.utf8)
    let parsed = try SourceParser.parse(bytes, kind: .contacts, sourceName: "bom.json")
    #expect(parsed.contactRecords.map(\.name) == ["Ann"])
    #expect(parsed.sourceDigest == SHA256.hash(bytes))
  }

  @Test func problemsNameTheRecordFieldValueAndReason() {
    let problem = RecordProblem(
      kind: .contacts, index: 2, label: "id '19'", field: "birthdate", value: "\"1988-02-30\"",
      reason: "expected a real date")
    #expect(
      problem.description
        == "contact record 2 (id '19'): field 'birthdate': \"1988-02-30\" — expected a real date")
  }
}
