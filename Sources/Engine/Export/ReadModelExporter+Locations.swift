import Events
import Foundation
import Projections

extension ReadModelExporter {
  /// The locations as a GeoJSON `FeatureCollection` (RFC 7946), the layout of
  /// `acmeaom-locations.json`:
  ///
  ///     {"type": "FeatureCollection", "features": [
  ///       {"type": "Feature", "id": "2298eb8d-...",
  ///        "geometry": {"type": "Point", "coordinates": [149.98458041136354, -34.98520411042454]},
  ///        "properties": {"name": "Alpha"}}, ...]}
  ///
  /// Coordinates are `[longitude, latitude]`, each in Swift's shortest round-trip form, so they
  /// read back as the same numbers. Features come sorted as the app lists them: by name
  /// ignoring case and diacritics, then by id.
  public static func geoJSON(_ list: LocationList) -> [UInt8] {
    let records = list.records
    let keys = records.map {
      $0.name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
    let order = records.indices.sorted { left, right in
      keys[left] != keys[right]
        ? keys[left] < keys[right] : records[left].id.rawValue < records[right].id.rawValue
    }
    var writer = JSONWriter(capacity: 256 * records.count + 64)
    writer.beginObject()
    writer.field("type", "FeatureCollection")
    writer.key("features")
    writer.beginArray()
    for position in order {
      let record = records[position]
      writer.beginObject()
      writer.field("type", "Feature")
      writer.field("id", record.id.rawValue)
      writer.key("geometry")
      writer.beginObject()
      writer.field("type", "Point")
      writer.key("coordinates")
      writer.beginArray()
      writer.number(record.coordinate.longitude)
      writer.number(record.coordinate.latitude)
      writer.endArray()
      writer.endObject()
      writer.key("properties")
      writer.beginObject()
      writer.field("name", record.name)
      writer.endObject()
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return PrettyJSON.format(writer.bytes)
  }
}
