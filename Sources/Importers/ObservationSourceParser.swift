import Events
import Foundation

/// Reads the field survey's observations.
///
/// Layout: `{"status": "ok", "observations": [{"classification", "title", "description",
/// "date"}]}` (`field-observations.json`), or the array alone. Each record:
/// - `classification`: one of the seven classifications, in any letter case;
/// - `title`: not empty or only white space;
/// - `description`: a string; missing or `null` is an empty description;
/// - `date`: `YYYY-MM-DD HH:MM` (seconds allowed) read in the import's time zone, or ISO 8601
///   with a zone (`2017-06-14T18:00:03Z`), which wins over the time zone.
///
/// - `id`: optional (the app's source has none; `replay export observations` writes it): a valid
///   observation id, kept as it is.
///
/// A record without an id gets one derived from the source name, title and date
/// (`ObservationCommand.importing`), so re-importing the same file finds the same streams.
enum ObservationSourceParser {
  static let classificationExpectation =
    "one of " + Classification.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")

  static func parse(
    _ document: JSONValue, into collector: inout SourceParser.Collector, timeZone: TimeZone
  ) throws(ImportError) {
    guard let elements = SourceParser.array(in: document, at: ["observations"]) else {
      throw collector.unexpectedLayout(
        document,
        expected: "an object {\"status\", \"observations\": [...]} or an array of observations")
    }
    collector.forEachRecord(
      elements,
      expected: "an observation object {\"classification\", \"title\", \"description\", \"date\"}"
    ) { collector, index, fields in
      let object = fields.object
      let title = fields.title("title", object["title"], noun: "a title")
      var classification: Classification?
      if let text = fields.requiredText(
        "classification", object["classification"], expected: classificationExpectation)
      {
        classification = Classification(rawValue: text.lowercased())
        if classification == nil {
          fields.report(
            "classification", object["classification"], "expected \(classificationExpectation)")
        }
      }
      let description = fields.optionalText("description", object["description"]) ?? ""
      let date = fields.validated(
        "date", object["date"],
        expected: "a date as 'YYYY-MM-DD HH:MM' or ISO 8601 (e.g. '2017-06-14T18:00:03Z')"
      ) { text throws(EventsError) in try ObservationDate.parse(text, timeZone: timeZone) }
      var id: ObservationID?
      if let idValue = object["id"], idValue != .null {
        id = fields.validated("id", idValue, expected: "an observation id (a string)") {
          text throws(EventsError) in try ObservationID(text)
        }
      }
      let label = RecordLabel.quoted("title", object["title"]?.stringValue)
      collector.problems += fields.problems(label: label)
      guard !fields.isRejected, let classification, let title, let date else { return }
      let record = ObservationRecord(
        classification: classification, title: title, description: description, date: date)
      let command =
        id.map {
          ObservationCommand.importObservation(id: $0, record, source: collector.sourceName)
        }
        ?? .importing(record, source: collector.sourceName)
      collector.add(.observation(command), index: index, label: label)
    }
  }
}
