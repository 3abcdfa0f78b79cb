import Engine
import Events
import Postgres
import Projections

/// `replay export <model>`: a read model written back in its app's source format.
enum ExportCommand {
  static let formats = ExportFormat.allCases.map(\.rawValue)

  static let command = Command(
    name: "export",
    abstract: "Write a read model in its app's source format, at any point of the log.",
    discussion: """
      Formats (the first is the model's default):
        zipcodes      plist: the documented layout {"States": [{"Name",
                      "ZipCodes"}]} as an XML property list; json: the same as JSON
        locations     geojson: a GeoJSON FeatureCollection of Point features,
                      coordinates [longitude, latitude]; json: the same
        contacts      json: the array of contacts-v3.json, absent fields left out
        observations  json: {"status": "ok", "observations": [{id, classification,
                      title, description, date}]}, dates in ISO 8601 UTC
        animals       json: the Taipei Zoo open data's {"result": {"results": [...]}},
                      each imported animal's whole source record as last imported;
                      animals users inserted as {"replay_inserted": "user-<n>",
                      "a_name_ch", "replay_description", "replay_picture"?}

      Every export imports again ('replay import \
      states|locations|contacts|observations|zoo <file>'): into an empty log it gives the same \
      read model with the same ids (observations carry their id), into the log it came from it \
      appends nothing. States are in the \
      app's order (by name), locations by name, contacts in the order they were added, \
      observations by date. JSON is indented with two spaces.

      --at <seq> exports the state after that event, --as-of <time> the state after every \
      event whose time is at or before it; by default, the end of the log. --output writes \
      the file atomically (a temporary file renamed over it; exit 73 if it cannot be \
      written) and prints what it wrote; without it the export goes to standard output. \
      --output is never a file of the log: the log, <log>.keys, <log>.index, anything in \
      <log>.checkpoints/ or <log>.quarantine/, or a writer's temporary file beside the log, \
      through links too (exit 73, nothing written).
      """,
    arguments: [ReadModelArguments.model],
    options: [format, at, asOf, output, CommonOptions.log],
    run: run)

  static let format = ValueOption(
    names: ["--format"], valueName: "format",
    help: "json, plist (zipcodes) or geojson (locations).",
    defaultDescription: "the model's source format", choices: formats)
  static let at = ValueOption(
    names: ["--at"], valueName: "seq", help: "Export the state after this event.",
    expecting: "expected a seq, a whole number ≥ 0"
  ) { text -> Int64? in
    guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return Int64(text)
  }
  static let asOf = ValueOption(
    names: ["--as-of"], valueName: "time",
    help: "Export the state after every event at or before this ISO 8601 time.",
    expecting: "expected an ISO 8601 time such as 2026-11-03T14:00:00Z", ParsedInvocation.instant)
  static let output = TextOption(
    names: ["--output"], valueName: "file",
    help: "Write to this file (atomically) instead of standard output.")

  /// What one entity of each model is called, singular and plural.
  static let nouns: [String: (String, String)] = [
    ContactList.name: ("contact", "contacts"), ZipCodeList.name: ("state", "states"),
    ObservationList.name: ("observation", "observations"),
    AnimalCatalog.name: ("animal", "animals"), LocationList.name: ("location", "locations"),
  ]

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let model = try invocation.readModelName()
    let fitting = ExportFormat.formats(forModel: model)
    let format: ExportFormat
    if let text = try invocation[ExportCommand.format],
      let chosen = ExportFormat(rawValue: text)
    {
      guard fitting.contains(chosen) else {
        let names = ReadModelArguments.listing(fitting.map(\.rawValue), conjunction: "or")
        throw UsageError.invalidValue(
          text, for: "--format <format>", reason: ": \(model) export as \(names)",
          help: ExportCommand.format.option.help)
      }
      format = chosen
    } else {
      format = fitting[0]
    }
    let at = try invocation[ExportCommand.at]
    let asOf = try invocation[ExportCommand.asOf]
    if at != nil, asOf != nil {
      throw UsageError.notBoth(ExportCommand.at, ExportCommand.asOf)
    }
    let point: ReplayPoint = at.map { .sequence($0) } ?? asOf.map { .instant($0) } ?? .end
    // Refused before the replay: the log's own files are never an export's output.
    if let output = invocation[output] {
      try LogFiles(logPath: invocation.logPath).refuseAsOutput(output)
    }
    let result: Replayer.Result
    // An export may stop inside a multi-event write, as it always could.
    if let database = invocation.postgresLog {
      result = try database.readModels(at: point, refusingSeqsInsideWrites: false)
    } else {
      var replayer = invocation.replayer
      replayer.refusesSeqsInsideWrites = false
      result = try replayer.readModels(at: point, models: [model])
    }
    // The animals' source records come from the log: the catalogue keeps only its screen.
    var records: [AnimalID: AnimalRecord] = [:]
    if model == AnimalCatalog.name {
      let animals = result.models.animals
      let last = result.lastFoldedSequence
      records =
        try invocation.postgresLog?.animalRecords(for: animals, through: last)
        ?? invocation.logReader.animalRecords(for: animals, through: last)
    }
    let bytes = try ReadModelExporter.export(
      result.models, model: model, format: format, animalRecords: records)
    guard let output = invocation[output] else {
      invocation.terminal.write(bytes: bytes)
      return .success
    }
    try AtomicFile.write(bytes, to: output, protecting: invocation.logPath)
    let count = ReadModelExporter.count(result.models, model: model)
    let noun = nouns[model].map { count == 1 ? $0.0 : $0.1 } ?? "entries"
    let when: String
    switch point {
    case .instant(let instant): when = "as of \(instant)"
    default: when = "at seq \(result.lastSequence)"
    }
    invocation.terminal.write(
      "wrote \(count) \(noun) as \(format.rawValue) to \(output) (\(model) \(when))\n")
    return .success
  }
}

extension ExportError: CLIError {
  /// An output that cannot be written, or that is a file of the log, is 73; a value the
  /// format cannot hold is bad data, 65.
  var exitCode: ExitCode {
    switch self {
    case .cannotCreateOutput, .fileOfLog, .sharedFile: .cannotCreateOutput
    case .unrepresentable: .invalidInput
    }
  }

  var message: String { description }
}
