import Events
import Projections

extension ReadModelExporter {
  /// The observations in the layout of `field-observations.json`:
  ///
  ///     {"status": "ok", "observations": [{"id": "398f8d08492d", "classification": "bird",
  ///       "title": "Red-tailed Hawk", "description": "...", "date": "2017-06-14T18:00:00Z"}]}
  ///
  /// Dates are ISO 8601 in UTC, the variant the importer reads without a time zone option:
  /// whole seconds as `2017-06-14T18:00:00Z`, milliseconds when there are any
  /// (`2017-06-14T18:00:00.250Z`), so no date changes on the way back. Observations come in
  /// the list's order: by date, equal dates by id.
  ///
  /// Each observation carries its `id` (the app's source has none; the importer reads it when
  /// present), so importing the export finds the same streams: into the log it came from it
  /// appends nothing, into an empty log it gives the same list with the same ids.
  public static func json(_ list: ObservationList) -> [UInt8] {
    var writer = JSONWriter(capacity: 256 * list.count + 64)
    writer.beginObject()
    writer.field("status", "ok")
    writer.key("observations")
    writer.beginArray()
    for row in list.rows() {
      writer.beginObject()
      writer.field("id", row.id.rawValue)
      writer.field("classification", row.classification.rawValue)
      writer.field("title", row.title)
      writer.field("description", row.description)
      writer.field("date", isoDate(row.date))
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return PrettyJSON.format(writer.bytes)
  }

  /// `2017-06-14T18:00:00Z`, or with milliseconds when they are not zero.
  static func isoDate(_ date: Timestamp) -> String {
    let text = date.description
    return text.hasSuffix(".000Z") ? String(text.dropLast(5)) + "Z" : text
  }
}
