import Events
import Foundation

/// The field survey's read model: every observation, for the list screen ("Field Survey") and
/// the detail screen ("Observation").
///
/// Folds `ObservationRecorded` (sets the whole observation; recording an id again replaces it),
/// `ObservationRevised` (changes only the fields it carries; a revision of an unknown id changes
/// nothing) and `ObservationRemoved`.
///
/// **Views.** ``rows(options:)``: the observations by date, oldest first, equal dates by id;
/// each with its classification's icon (`bird` → `bird.png`, `bird@2x.png`, `bird@3x.png`), its
/// title, its date and time formatted for a locale and time zone, and its description (the
/// detail). Formatting is part of the view, not of the state: the same state renders in any
/// locale.
///
/// **Date text.** `DateFormatter` with `dateStyle = .medium`, `timeStyle = .medium` (the app's brief: "the
/// medium style for both"), the given
/// locale and time zone; then U+202F NARROW NO-BREAK SPACE and U+00A0 NO-BREAK SPACE are
/// replaced by a plain space (recent ICU versions, on Linux in particular, put U+202F before
/// `AM`/`PM`), so en_US gives exactly `Jun 14, 2017 at 6:00:00 PM` on every platform.
///
/// **JSON** (`encode(to:options:)`; `locale` and `timeZone` are the options' identifiers):
/// ```
/// {"title":"Field Survey","detailTitle":"Observation","locale":"en_US","timeZone":"GMT",
///  "observations":[{"id":"3f2a9c0d41b7","classification":"bird","icon":"bird",
///   "iconFiles":["bird.png","bird@2x.png","bird@3x.png"],"title":"Red-tailed Hawk",
///   "date":"2017-06-14T18:00:00.000Z","dateText":"Jun 14, 2017 at 6:00:00 PM",
///   "description":"Standing in tree in middle of wooded area."},...]}
/// ```
///
/// **Entries** (keyed by observation id): `classification`, `title`, `description`, `date` (the
/// log's form, `2017-06-14T18:00:00.000Z`: entries do not depend on a locale).
///
/// **Checkpoint** (version 1): a varint count, then per observation: the id string, the
/// classification as a `UInt8` (its index in `Classification.allCases`), title and description
/// strings, the date as `Int64` milliseconds since 1970.
public struct ObservationList: EntityTableModel {
  public static let name = "observations"
  public static let checkpointVersion = 1

  /// The list screen's title.
  public static let listTitle = "Field Survey"
  /// The detail screen's title.
  public static let detailTitle = "Observation"

  private(set) var table = EntityTable<ObservationID, ObservationRecord>()

  public init() {}

  // MARK: Folding

  public mutating func apply(_ event: DomainEvent, at context: EventContext) {
    switch event {
    case .observation(.recorded(let recorded)):
      table.set(recorded.id, recorded.record)
    case .observation(.revised(let revision)):
      table.update(revision.id) { record in
        if let classification = revision.classification { record.classification = classification }
        if let title = revision.title { record.title = title }
        if let description = revision.description { record.description = description }
        if let date = revision.date { record.date = date }
      }
    case .observation(.removed(let removed)):
      table.remove(removed.id)
    default:
      return
    }
  }

  /// Folds one field-survey event.
  public mutating func apply(_ event: ObservationEvent) {
    apply(.observation(event), at: .unpositioned)
  }

  // MARK: State and views

  /// The observation with `id`, as the log has it.
  public func observation(_ id: ObservationID) -> ObservationRecord? { table[id] }

  /// The list (and details), oldest first, equal dates by id, dates formatted per `options`.
  /// - Complexity: O(n log n); one date formatter for the whole list.
  public func rows(options: ViewOptions = .default) -> [ObservationRow] {
    let formatter = ObservationDateFormatter(options)
    let records = Array(table.values)
    let ids = table.keys
    let order = records.indices.sorted { left, right in
      records[left].date != records[right].date
        ? records[left].date < records[right].date : ids[left] < ids[right]
    }
    return order.map { ObservationRow(id: ids[$0], record: records[$0], formatter: formatter) }
  }

  /// The detail of observation `id`, dates formatted per `options`.
  public func row(for id: ObservationID, options: ViewOptions = .default) -> ObservationRow? {
    table[id].map {
      ObservationRow(id: id, record: $0, formatter: ObservationDateFormatter(options))
    }
  }

  /// `date` as the list shows it: medium date, medium time, for `options`' locale and time zone,
  /// with no-break spaces made plain (`Jun 14, 2017 at 6:00:00 PM` in en_US).
  public static func dateText(_ date: Timestamp, options: ViewOptions = .default) -> String {
    ObservationDateFormatter(options).string(from: date)
  }

  public func encode(to writer: inout JSONWriter, options: ViewOptions) {
    writer.beginObject()
    writer.field("title", Self.listTitle)
    writer.field("detailTitle", Self.detailTitle)
    writer.field("locale", options.locale.identifier)
    writer.field("timeZone", options.timeZone.identifier)
    writer.member("observations", objects: rows(options: options)) { writer, row in
      writer.field("id", row.id.rawValue)
      writer.field("classification", row.classification.rawValue)
      writer.field("icon", row.icon.name)
      writer.field("iconFiles", row.icon.fileNames)
      writer.field("title", row.title)
      writer.field("date", row.date.description)
      writer.field("dateText", row.dateText)
      writer.field("description", row.description)
    }
    writer.endObject()
  }

  // MARK: Entries

  static func entry(_ record: ObservationRecord) -> ReadModelEntry {
    var entry = ReadModelEntry()
    entry.append("classification", record.classification.rawValue)
    entry.append("title", record.title)
    entry.append("description", record.description)
    entry.append("date", record.date.description)
    return entry
  }

  // MARK: Checkpoint

  private static let classifications = Classification.allCases

  public func write(to writer: inout BinaryWriter) {
    table.write(to: &writer) { record, writer in
      let index = Self.classifications.firstIndex(of: record.classification) ?? 0
      writer.writeInteger(UInt8(index))
      writer.writeString(record.title)
      writer.writeString(record.description)
      writer.writeInteger(record.date.millisecondsSince1970)
    }
  }

  /// Loads the observations with each record left in the checkpoint's bytes until it is used
  /// (see `EntityTable`): every byte is checked here, but only the ids become `String`s.
  public init(from reader: inout BinaryReader) throws(ProjectionsError) {
    let count = try reader.readCount("the number of observations", minimumSize: 23)
    table = EntityTable(minimumCapacity: count)
    try table.loadStored(count: count, from: &reader, what: "an observation id") {
      (reader) throws(ProjectionsError) in
      try reader.readIdentifier(ObservationID.init, "an observation id")
    } readValue: { id, reader, building throws(ProjectionsError) in
      try Self.readRecord(id: id, from: &reader, building: building)
    }
  }

  /// Reads one observation after its id (see `EntityTable.loadStored`).
  private static func readRecord(
    id: ObservationID, from reader: inout BinaryReader, building: Bool
  ) throws(ProjectionsError) -> ObservationRecord {
    let classificationOffset = reader.offset
    let index = Int(try reader.readInteger(UInt8.self, "a classification"))
    guard index < Self.classifications.count else {
      throw reader.invalid(
        "observation '\(id)' classification",
        expected: "0 to \(Self.classifications.count - 1)", found: "\(index)",
        at: classificationOffset)
    }
    func text(_ what: StaticString) throws(ProjectionsError) -> String {
      guard building else {
        _ = try reader.skipString(what)
        return ""
      }
      return try reader.readString(what)
    }
    let title = try text("an observation's title")
    let description = try text("an observation's description")
    let milliseconds = try reader.readInteger(Int64.self, "an observation's date")
    return ObservationRecord(
      classification: Self.classifications[index], title: title, description: description,
      date: Timestamp(millisecondsSince1970: milliseconds))
  }
}

/// An observation as the list and the detail show it.
public struct ObservationRow: Sendable, Equatable {
  /// The observation's id.
  public var id: ObservationID
  /// What was observed.
  public var classification: Classification
  /// The classification's icon.
  public var icon: ClassificationIcon
  /// The title (`Red-tailed Hawk`).
  public var title: String
  /// When it was seen.
  public var date: Timestamp
  /// `date` formatted for the view's locale and time zone (`Jun 14, 2017 at 6:00:00 PM`).
  public var dateText: String
  /// The detail's text.
  public var description: String

  init(id: ObservationID, record: ObservationRecord, formatter: ObservationDateFormatter) {
    self.id = id
    classification = record.classification
    icon = ClassificationIcon(record.classification)
    title = record.title
    date = record.date
    dateText = formatter.string(from: record.date)
    description = record.description
  }
}

/// A classification's icon: `<classification>.png` with `@2x` and `@3x` variants.
public struct ClassificationIcon: Sendable, Equatable, Hashable {
  /// The icon's name, the classification's raw value (`bird`).
  public var name: String

  /// The icon of `classification`.
  public init(_ classification: Classification) {
    name = classification.rawValue
  }

  /// The image files: `bird.png`, `bird@2x.png`, `bird@3x.png`.
  public var fileNames: [String] { [name + ".png", name + "@2x.png", name + "@3x.png"] }
}

/// The date formatter of one view: medium date, medium time, no-break spaces made plain.
struct ObservationDateFormatter {
  private let formatter: DateFormatter

  init(_ options: ViewOptions) {
    formatter = DateFormatter()
    formatter.locale = options.locale
    formatter.timeZone = options.timeZone
    formatter.dateStyle = .medium
    formatter.timeStyle = .medium
  }

  func string(from date: Timestamp) -> String {
    let text = formatter.string(from: date.date)
    guard text.unicodeScalars.contains(where: { $0 == "\u{202F}" || $0 == "\u{00A0}" }) else {
      return text
    }
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      scalars.append(scalar == "\u{202F}" || scalar == "\u{00A0}" ? " " : scalar)
    }
    return String(scalars)
  }
}
