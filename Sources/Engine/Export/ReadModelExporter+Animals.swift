import Events
import Projections

extension ReadModelExporter {
  /// The key an exported record writes each text field under: the zoo's current key style
  /// (the importer reads both styles). The video's key keeps the source's spelling.
  static let zooTextKeys:
    [(key: String, path: any WritableKeyPath<AnimalRecord, String> & Sendable)] =
      ZooSourceFields.text.filter { $0.key != "a_video_url" }.sorted { $0.key < $1.key }
      .map { ($0.key, $0.value) }

  /// The catalogue as the Taipei Zoo open data writes it, `{"result": {"results": [...]}}`,
  /// so that `replay import zoo` reads it back: each imported animal's whole source record as
  /// last imported (`records`, read from the log: the catalogue keeps only what its screen
  /// shows; `_id`, every text field, the media slots in order, the coordinate), and
  /// each animal a user inserted as a record `{"replay_inserted": "user-<n>", "a_name_ch",
  /// "replay_description", "replay_picture"?}` (members the open data does not have, which
  /// the importer turns back into the insertion). Animals come in the order the log placed
  /// them, so an import into an empty log gives every one the same place in the catalogue.
  /// - Throws: `ExportError.unrepresentable` when an imported animal has no record.
  public static func zooSource(
    _ catalog: AnimalCatalog, records: [AnimalID: AnimalRecord]
  ) throws(ExportError) -> [UInt8] {
    var writer = JSONWriter(capacity: 2048 * catalog.count + 64)
    writer.beginObject()
    writer.key("result")
    writer.beginObject()
    writer.key("count")
    writer.integer(Int64(catalog.count))
    writer.key("results")
    writer.beginArray()
    for animal in catalog.animalsInLogOrder {
      writer.beginObject()
      if !animal.isInserted {
        guard let record = records[animal.id] else {
          throw .unrepresentable(
            format: .json, value: "animal '\(animal.id)'",
            reason: "its source record was not found in the log at the export's point")
        }
        writeSourceRecord(record, to: &writer)
      } else {
        writer.field("replay_inserted", animal.id.rawValue)
        writer.field("a_name_ch", animal.name)
        writer.field("replay_description", animal.description)
        if case .local(let path) = animal.picture {
          writer.field("replay_picture", path)
        }
      }
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    writer.endObject()
    return PrettyJSON.format(writer.bytes)
  }

  private static func writeSourceRecord(_ record: AnimalRecord, to writer: inout JSONWriter) {
    writer.key("_id")
    writer.integer(Int64(record.sourceID))
    for (key, path) in zooTextKeys where !record[keyPath: path].isEmpty {
      writer.key(key)
      writer.string(record[keyPath: path])
    }
    for (prefix, list) in ZooSourceFields.links {
      for (offset, link) in record[keyPath: list].enumerated() {
        let slot = offset + 1 < 10 ? "0\(offset + 1)" : "\(offset + 1)"
        writer.key(prefix + slot + "_url")
        writer.string(link.url)
        writer.key(prefix + slot + "_alt")
        writer.string(link.alternativeText)
      }
    }
    if let coordinate = record.coordinate {
      writer.key("a_longitude")
      writer.numberLiteral(String(describing: coordinate.longitude))
      writer.key("a_latitude")
      writer.numberLiteral(String(describing: coordinate.latitude))
    }
  }
}
