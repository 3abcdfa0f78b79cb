import Events

/// Reads a GeoJSON `FeatureCollection` of named points (`acmeaom-locations.json`).
///
/// Layout: `{"type": "FeatureCollection", "features": [...]}` (an array of features, or a single
/// `Feature`, is accepted too). Each feature, its members in any order:
/// - `id`: a string or number (GeoJSON allows both), a valid location id; required, unless
///   `idProperty` names the member of `properties` that holds it (`--id-property`: RFC 7946
///   makes a Feature's `id` optional, and many files keep it in `properties`);
/// - `properties.name`: not empty or only white space;
/// - `geometry`: a `Point` whose `coordinates` are `[longitude, latitude]` (an altitude after
///   them is ignored), in degrees. Other geometries are rejected: only points are locations.
enum LocationSourceParser {
  static func parse(
    _ document: JSONValue, idProperty: String? = nil, into collector: inout SourceParser.Collector
  ) throws(ImportError) {
    let elements: [JSONValue]
    if document["type"]?.stringValue == "Feature" {
      elements = [document]
    } else if let features = SourceParser.array(in: document, at: ["features"]) {
      if let type = document["type"], type.stringValue != "FeatureCollection" {
        throw ImportError.unexpectedLayout(
          source: collector.sourceName, kind: .locations,
          expected: "a GeoJSON object of type \"FeatureCollection\"", found: "type \(type.snippet)")
      }
      elements = features
    } else {
      throw collector.unexpectedLayout(
        document,
        expected:
          "a GeoJSON FeatureCollection {\"type\": \"FeatureCollection\", \"features\": [...]}")
    }
    collector.forEachRecord(
      elements, expected: "a GeoJSON Feature {\"type\", \"id\", \"geometry\", \"properties\"}"
    ) { collector, index, fields in
      let object = fields.object
      if let type = object["type"], type.stringValue != "Feature" {
        fields.report("type", type, "expected \"Feature\"")
      }
      let properties = fields.optionalObject(
        "properties", object["properties"], expected: "an object {\"name\"}")
      let idField = idProperty.map { "properties.\($0)" } ?? "id"
      let idValue = idProperty.map { properties[$0] } ?? object["id"]
      var id: LocationID?
      if idValue == nil {
        fields.report(idField, nil, missingID(idProperty: idProperty, properties: properties))
      } else {
        id = fields.validated(
          idField, idValue, expected: "the feature's id (a string or number)",
          acceptingNumbers: true
        ) { text throws(EventsError) in try LocationID(text) }
      }
      let name = fields.title("properties.name", properties["name"], noun: "a name")
      let coordinate = point(object["geometry"], &fields)
      let idText = idValue?.stringValue ?? idValue.flatMap { $0.int64Value.map(String.init) }
      let label = RecordLabel.joined(
        RecordLabel.quoted("id", idText),
        RecordLabel.quoted("name", properties["name"]?.stringValue))
      collector.problems += fields.problems(label: label)
      guard !fields.isRejected, let id, let name, let coordinate else { return }
      collector.add(
        .location(
          .importLocation(
            LocationRecord(id: id, name: name, coordinate: coordinate),
            source: collector.sourceName)),
        index: index, label: label)
    }
  }

  /// Why a feature has no id, naming the properties that could give one with `--id-property`:
  /// those holding a string or a whole number, other than `name`.
  private static func missingID(idProperty: String?, properties: JSONObject) -> String {
    if let idProperty {
      return "expected the feature's id in properties.\(idProperty) (a string or number); "
        + "every location needs one"
    }
    var message = "expected the feature's id (a string or number); every location needs one"
    let candidates = properties.members.filter { member in
      member.key != "name" && (member.value.stringValue != nil || member.value.int64Value != nil)
    }.map { "'\($0.key)'" }
    if !candidates.isEmpty {
      message +=
        "; to take it from the properties, pass --id-property with one of "
        + candidates.joined(separator: ", ")
    }
    return message
  }

  /// The point of a `Point` geometry, or `nil` after reporting why there is none.
  private static func point(_ geometry: JSONValue?, _ fields: inout RecordFields) -> Coordinate? {
    guard case .object(let object)? = geometry else {
      fields.report(
        "geometry", geometry,
        "expected a Point geometry {\"type\": \"Point\", \"coordinates\": [longitude, latitude]}")
      return nil
    }
    guard object["type"]?.stringValue == "Point" else {
      fields.report(
        "geometry.type", object["type"],
        "expected \"Point\"; only point features can be imported as locations")
      return nil
    }
    let expectation = "[longitude, latitude] in degrees"
    guard case .array(let numbers)? = object["coordinates"], (2...3).contains(numbers.count) else {
      fields.report("geometry.coordinates", object["coordinates"], "expected \(expectation)")
      return nil
    }
    guard let longitude = numbers[0].doubleValue else {
      fields.report("geometry.coordinates[0]", numbers[0], "expected a longitude (a number)")
      return nil
    }
    guard let latitude = numbers[1].doubleValue else {
      fields.report("geometry.coordinates[1]", numbers[1], "expected a latitude (a number)")
      return nil
    }
    do throws(EventsError) {
      return try Coordinate(latitude: latitude, longitude: longitude)
    } catch {
      // Coordinate checks the latitude first.
      let latitudeIsValid = (-90...90).contains(latitude)
      let swappedWouldFit = (-90...90).contains(longitude) && (-180...180).contains(latitude)
      fields.report(
        latitudeIsValid ? "geometry.coordinates[0]" : "geometry.coordinates[1]",
        latitudeIsValid ? numbers[0] : numbers[1],
        RecordProblem.reason(from: error)
          + (swappedWouldFit ? "; GeoJSON writes [longitude, latitude]: are they swapped?" : ""))
      return nil
    }
  }
}
