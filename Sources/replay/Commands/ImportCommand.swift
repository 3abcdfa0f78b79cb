import Engine
import Events
import Foundation
import Importers
import Postgres
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// `replay import`: one of the five apps' source files (or URLs) into the log, through the
/// Deciders' import rules.
enum ImportCommand {
  static let kinds = ImportKind.allCases.map(\.rawValue)

  static let command = Command(
    name: "import",
    abstract:
      "Import a source file or URL of observations, states, zoo animals, locations or contacts.",
    discussion: """
      Reads every record of the source, validates it, and decides its events with the \
      domain's import rules: a new record is added; a record unchanged since the last import \
      appends nothing; a changed one appends only the change (ContactUpdated, LocationMoved, \
      ZipCodeAdded, ...), keeping users' own changes to other fields; an entity a user removed \
      stays removed. Every event is appended in one atomic write, synced every --chunk-size \
      events (into a log kept in PostgreSQL, --log postgresql://..., one transaction). \
      Re-running an import appends nothing.

      Sources:
        observations  {"status", "observations": [{classification, title,
                      description, date}]}; dates 'YYYY-MM-DD HH:MM' in
                      --time-zone, or ISO 8601 with a zone
        states        a property list or JSON, {"States": [{"Name", "ZipCodes"}]}
                      or a dictionary of state name -> zip codes
        zoo           the Taipei Zoo API's {"result": {"results": [...]}}, in
                      the old (A_Name_Ch) or current (a_name_ch) key style
        locations     a GeoJSON FeatureCollection of Point features, each with
                      an id and properties.name
        contacts      a JSON array of contacts
      <source> is a file, '-' for standard input, or an http:// or https:// URL. Events carry \
      the file's name (or the URL) as their source.

      Invalid records: by default nothing is imported if any record is invalid; every problem \
      is listed as '<kind> record <n> (<id or name>): field '<field>': <value> — <reason>' \
      (records count from 1, indexes inside a field from 0) and the exit status is 65. With \
      --skip-invalid the valid records are imported and the invalid ones listed on standard \
      error. An invalid zip code leaves out only itself, not its state.

      Event ids derive from the kind, the source name, the stream, the version the event gets \
      and a digest of the record, so identical imports racing each other append once. Every \
      event's meta holds --actor, --reason (default 'import <kind> from <source>') and a \
      correlation id derived from the source's content.

      URLs are fetched with --timeout per attempt; connection failures, timeouts and HTTP 5xx \
      or 429 are retried --retries times, waiting 0.5 s, 1 s, 2 s, ... (REPLAY_RETRY_DELAY \
      sets the first wait in seconds, for tests). Network and HTTP failures exit 69.

      Output: a summary line, e.g. 'imported 18 contact records from contacts-v3.json: \
      18 ContactAdded (seq 1...18)'. --dry-run lists the events that would be appended and \
      writes nothing. On a terminal, imports of more than 10000 records show progress on \
      standard error. --json prints one object instead:
        {"kind", "source", "dryRun", "records", "imported", "unchanged",
         "keptRemoved": [{"record", "label", "stream", "reason"}],
         "invalid": [{"record", "label", "field", "value", "reason",
                      "rejectsRecord"}],
         "appended", "duplicates", "firstSeq", "lastSeq",
         "eventsByType": {"<type>": <count>},
         "events": [{"record", "stream", "version", "type", "id", "summary"}]}
      "events" is there only with --dry-run; firstSeq and lastSeq are null when \
      nothing was appended; "invalid" lists what --skip-invalid left out. When every record \
      is invalid, --skip-invalid fails like an import without it (exit 65).
      """,
    arguments: [
      Argument(
        name: "kind",
        help: "What the source holds: observations, states, zoo, locations or contacts."),
      Argument(
        name: "source", help: "A file, '-' for standard input, or an http:// or https:// URL."),
    ],
    options: [
      timeZone, idProperty, skipInvalid, includeErased, dryRun, chunkSize, timeout, retries,
      CommonOptions.actor, CommonOptions.reason,
    ] + CommonOptions.writingWithDerivedIDs + [
      CommonOptions.json.withHelp("Print a JSON summary (its shape is described above).")
    ],
    run: run)

  static let timeZone = ValueOption(
    names: ["--time-zone"], valueName: "zone",
    help: "Observations: the IANA time zone of dates without one (e.g. America/Chicago).",
    defaultValue: "UTC", expecting: "expected an IANA time zone such as Asia/Taipei"
  ) { TimeZone(identifier: $0) }
  static let idProperty = TextOption(
    names: ["--id-property"], valueName: "name",
    help: "Locations: take each Feature's id from this member of its properties.")
  static let skipInvalid = Flag(
    ["--skip-invalid"], help: "Import the valid records; list the invalid ones on stderr.")
  static let includeErased = Flag(
    ["--include-erased"],
    help:
      "Contacts: bring back erased contacts the source holds, under new keys (else they stay erased and are listed)."
  )
  static let dryRun = Flag(
    ["--dry-run"], help: "Show the events that would be appended; write nothing.")
  static let chunkSize = CommonOptions.chunkSize(help: "Events per fsync.", defaultValue: 1000)
  static let timeout = ValueOption(
    names: ["--timeout"], valueName: "seconds", help: "URLs: seconds per attempt.",
    defaultValue: "30", expecting: "expected a number of seconds > 0"
  ) { DecimalNumber.parse($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
  static let retries = ValueOption(
    names: ["--retries"], valueName: "n",
    help: "URLs: retries after a connection failure, timeout, 5xx or 429.", defaultValue: "2",
    expecting: "expected a whole number ≥ 0"
  ) { Int($0).flatMap { (0...20).contains($0) ? $0 : nil } }

  /// The environment variable that sets the first retry's wait, in seconds.
  static let retryDelayVariable = "REPLAY_RETRY_DELAY"

  /// Imports of more records than this show progress on a terminal.
  static let progressThreshold = 10_000

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let terminal = invocation.terminal
    guard let kindText = try invocation.choice("kind", from: kinds),
      let kind = ImportKind(rawValue: kindText)
    else { throw UsageError("Missing expected argument '<kind>'") }
    let timeZone = try invocation[ImportCommand.timeZone] ?? TimeZone(secondsFromGMT: 0) ?? .current
    let chunkSize = try invocation[ImportCommand.chunkSize] ?? 1000
    let timeout = try invocation[ImportCommand.timeout] ?? 30
    let retries = try invocation[ImportCommand.retries] ?? 2
    let environment = ProcessInfo.processInfo.environment
    let retryDelay = environment[retryDelayVariable].flatMap(Double.init) ?? 0.5
    let skipInvalid = invocation[ImportCommand.skipInvalid]
    let includeErased = invocation[ImportCommand.includeErased]
    if includeErased, kind != .contacts {
      throw UsageError("'--include-erased' is for contacts sources only")
    }
    let idProperty = invocation[ImportCommand.idProperty]
    if idProperty != nil, kind != .locations {
      throw UsageError("'--id-property' is for locations (GeoJSON) sources only")
    }
    let dryRun = invocation[ImportCommand.dryRun]
    let json = invocation[CommonOptions.json]
    let progress = ProgressLine.forStandardError(terminal, threshold: Int64(progressThreshold))
    // Cleared before anything else is printed, errors included.
    defer { progress?.finish() }

    let source = try ImportSource(invocation.requiredValue("source"))
    let fetcher = HTTPFetcher(
      timeout: timeout, retries: retries, baseDelay: max(0, retryDelay),
      onRetry: { terminal.writeError("note: \($0)\n") })
    let bytes = try source.read(with: fetcher)
    let parsed = try SourceParser.parse(
      bytes, kind: kind, sourceName: source.name,
      options: SourceParser.Options(
        timeZone: timeZone, isRemote: source.isRemote, idProperty: idProperty),
      progress: progress?.report)
    for note in parsed.notes { terminal.writeError("note: \(note)\n") }
    if !skipInvalid { try parsed.requireValid() }
    try requireSomethingValid(parsed, problems: parsed.problems)
    let metadata = ImportPlanner.metadata(
      for: parsed, actor: invocation[CommonOptions.actor],
      reason: invocation[CommonOptions.reason])

    let result: ImportResult
    // A log kept in PostgreSQL: read and written through one connection, one transaction.
    let database = try invocation.openPostgresWriter()
    defer { database?.close() }
    if dryRun || parsed.records.isEmpty {
      let streams = ImportPlanner.streams(of: parsed)
      let histories =
        try database?.events(inStreams: streams)
        ?? invocation.logReader.events(inStreams: Set(streams))
      let plan = try ImportPlanner.plan(
        parsed, histories: histories, logPath: invocation.logName, storage: database,
        metadata: metadata, includeErased: includeErased, progress: progress?.report)
      if !skipInvalid, !plan.rejected.isEmpty {
        throw ImportError.invalidRecords(
          kind: kind, source: parsed.sourceName, recordCount: parsed.recordCount,
          problems: plan.rejected)
      }
      result = ImportResult(
        plan: plan, appendedCount: 0, duplicateCount: 0, sequences: nil, attempts: 1)
    } else if let database {
      let store = ImportStore(
        name: database.name, storage: database, read: { try database.events(inStreams: $0) },
        write: { try database.importEvents($0) })
      result = try store.importRecords(
        parsed, metadata: metadata, skipInvalid: skipInvalid, includeErased: includeErased,
        progress: progress?.report)
    } else {
      let log = try invocation.openLogForWriting()
      result = try log.importRecords(
        parsed, metadata: metadata, skipInvalid: skipInvalid, includeErased: includeErased,
        chunkSize: chunkSize, progress: progress?.report)
    }
    progress?.finish()
    let problems = parsed.problems + result.plan.rejected
    try requireSomethingValid(parsed, problems: problems)
    if !problems.isEmpty {
      terminal.writeError(ImportReport.skippedWarning(parsed, problems: problems))
    }
    if json {
      terminal.write(bytes: ImportReport.json(parsed, result, problems: problems, dryRun: dryRun))
    } else if dryRun {
      terminal.write(ImportReport.dryRun(parsed, result.plan))
    } else {
      terminal.write(ImportReport.summary(parsed, result))
    }
    return .success
  }
}

extension ImportCommand {
  /// `--skip-invalid` imports the valid records; when a source has records and none is valid,
  /// there is nothing it could mean, and "nothing to import" with exit 0 would hide that every
  /// record was refused: the import fails as it would without `--skip-invalid`.
  static func requireSomethingValid(_ parsed: ParsedSource, problems: [RecordProblem]) throws {
    let rejected = Set(problems.filter(\.rejectsRecord).map(\.index))
    guard parsed.recordCount > 0, rejected.count >= parsed.recordCount else { return }
    throw ImportError.invalidRecords(
      kind: parsed.kind, source: parsed.sourceName, recordCount: parsed.recordCount,
      problems: problems)
  }
}

extension ImportError: CLIError {
  /// Missing input 66, bad content 65, network or HTTP 69, a lost race 3.
  var exitCode: ExitCode {
    switch self {
    case .fileNotFound, .isDirectory, .unreadable: .inputUnavailable
    case .unsupportedURL: .usageError
    case .unreachable, .httpStatus: .remoteUnavailable
    case .notJSON, .notPropertyList, .unrecognizedFormat, .unexpectedLayout, .invalidRecords:
      .invalidInput
    case .raced: .versionConflict
    }
  }

  var message: String { description }
}

/// The texts `replay import` prints.
enum ImportReport {
  /// The summary of a finished import (standard output):
  ///
  ///     imported 18 contact records from contacts-v3.json: 18 ContactAdded (seq 1...18)
  ///     imported 2 of 18 contact records from contacts-v3.json: 1 ContactUpdated, 1 ContactFavorited (seq 19...20); 16 unchanged since the last import
  ///     nothing to import: all 18 contact records are unchanged since the last import
  static func summary(_ parsed: ParsedSource, _ result: ImportResult) -> String {
    let plan = result.plan
    let kind = parsed.kind
    let considered = parsed.records.count
    var text: String
    if result.appendedCount > 0 {
      let records =
        plan.changedRecordCount == considered
        ? kind.records(considered)
        : "\(plan.changedRecordCount) of \(kind.records(considered))"
      text = "imported \(records) from \(parsed.sourceName): \(counts(plan))"
      if let sequences = result.sequences { text += " (\(describe(sequences)))" }
      if result.duplicateCount > 0 {
        text += "; \(result.duplicateCount) of the events were already in the log"
      }
      if !plan.unchanged.isEmpty {
        text += "; \(plan.unchanged.count) unchanged since the last import"
      }
    } else if result.duplicateCount > 0 {
      text =
        "nothing to import: the \(result.duplicateCount) events for \(kind.records(considered)) "
        + "from \(parsed.sourceName) are already in the log (an identical import wrote them)"
    } else if considered == 0 {
      text = "nothing to import: '\(parsed.sourceName)' holds no valid \(kind.recordNoun) records"
    } else if plan.unchanged.count == considered {
      text =
        "nothing to import: \(considered == 1 ? "the" : "all") \(kind.records(considered)) "
        + "\(considered == 1 ? "is" : "are") unchanged since the last import"
    } else {
      text = "nothing to import"
      if !plan.unchanged.isEmpty {
        text +=
          ": \(plan.unchanged.count) of \(kind.records(considered)) "
          + "\(plan.unchanged.count == 1 ? "is" : "are") unchanged since the last import"
      }
    }
    if !plan.keptRemoved.isEmpty {
      let count = plan.keptRemoved.count
      text +=
        "; \(count) \(count == 1 ? "was" : "were") removed by a user and "
        + "\(count == 1 ? "stays" : "stay") removed:"
      for outcome in plan.keptRemoved {
        text += "\n  \(recordName(kind, outcome)): \(outcome.reason)"
      }
    }
    return text + "\n"
  }

  /// `--dry-run`: the summary, then one row per event.
  ///
  ///     dry run: would import 18 contact records from contacts-v3.json: 18 ContactAdded
  ///     RECORD  STREAM      VERSION  TYPE          SUMMARY
  ///          1  contact-13        1  ContactAdded  'Miss Piggy'
  ///     nothing was written
  static func dryRun(_ parsed: ParsedSource, _ plan: ImportPlan) -> String {
    let kind = parsed.kind
    let considered = parsed.records.count
    var text: String
    if plan.events.isEmpty {
      text = "dry run: would import nothing from \(parsed.sourceName)"
    } else {
      let records =
        plan.changedRecordCount == considered
        ? kind.records(considered)
        : "\(plan.changedRecordCount) of \(kind.records(considered))"
      text = "dry run: would import \(records) from \(parsed.sourceName): \(counts(plan))"
    }
    if !plan.unchanged.isEmpty {
      text += "; \(plan.unchanged.count) unchanged since the last import"
    }
    if !plan.keptRemoved.isEmpty {
      text += "; \(plan.keptRemoved.count) removed by a user (left removed)"
    }
    text += "\n"
    if !plan.events.isEmpty {
      var table = TextTable([
        .init(title: "RECORD", alignment: .right), .init(title: "STREAM", maximumWidth: 56),
        .init(title: "VERSION", alignment: .right), .init(title: "TYPE"),
        .init(title: "SUMMARY", maximumWidth: 72),
      ])
      for event in plan.events {
        table.append([
          String(event.recordIndex), event.stream, String(event.version), event.type,
          event.summary,
        ])
      }
      text += table.render()
    }
    for outcome in plan.keptRemoved {
      text += "kept removed: \(recordName(kind, outcome)): \(outcome.reason)\n"
    }
    return text + "nothing was written\n"
  }

  /// The standard-error listing of what `--skip-invalid` left out:
  ///
  ///     warning: skipped 3 of 21 contact records in 'bad.json' as invalid:
  ///       contact record 2 (id '19'): field 'birthdate': "1988-02-30" — expected ...
  static func skippedWarning(_ parsed: ParsedSource, problems: [RecordProblem]) -> String {
    let kind = parsed.kind
    let rejected = Set(problems.filter(\.rejectsRecord).map(\.index))
    let partial = problems.filter { !$0.rejectsRecord && !rejected.contains($0.index) }
    let partialRecords = Set(partial.map(\.index)).count
    var heading = "warning: "
    if !rejected.isEmpty {
      heading +=
        "skipped \(rejected.count) of \(kind.records(parsed.recordCount)) in "
        + "'\(parsed.sourceName)' as invalid"
      if !partial.isEmpty {
        heading +=
          ", and left out \(partial.count) invalid \(kind.entryNoun(partial.count)) of "
          + "\(partialRecords) other\(partialRecords == 1 ? "" : "s")"
      }
    } else {
      heading +=
        "left out \(partial.count) invalid \(kind.entryNoun(partial.count)) of "
        + "\(kind.records(partialRecords)) in '\(parsed.sourceName)' (the rest of "
        + "\(partialRecords == 1 ? "the record" : "those records") is imported)"
    }
    return heading + ":\n" + problems.map { "  \($0)\n" }.joined()
  }

  /// `--json`: one object, described in the command's help.
  static func json(
    _ parsed: ParsedSource, _ result: ImportResult, problems: [RecordProblem], dryRun: Bool
  ) -> [UInt8] {
    let plan = result.plan
    return JSONWriter.objectLine { writer in
      writer.member("kind", parsed.kind.rawValue)
      writer.member("source", parsed.sourceName)
      writer.member("dryRun", dryRun)
      writer.member("records", parsed.recordCount)
      writer.member("imported", plan.changedRecordCount)
      writer.member("unchanged", plan.unchanged.count)
      writer.member("keptRemoved", objects: plan.keptRemoved) { writer, outcome in
        writer.member("record", outcome.recordIndex)
        writer.member("label", outcome.label)
        writer.member("stream", outcome.stream)
        writer.member("reason", outcome.reason)
      }
      writer.member("invalid", objects: problems) { writer, problem in
        writer.member("record", problem.index)
        writer.member("label", problem.label)
        writer.member("field", problem.field)
        writer.member("value", problem.value)
        writer.member("reason", problem.reason)
        writer.member("rejectsRecord", problem.rejectsRecord)
      }
      writer.member("appended", result.appendedCount)
      writer.member("duplicates", result.duplicateCount)
      writer.sequenceMembers(result.sequences)
      writer.key("eventsByType")
      writer.beginObject()
      for count in plan.eventCounts {
        writer.key(count.type)
        writer.integer(count.count)
      }
      writer.endObject()
      if dryRun {
        writer.member("events", objects: plan.events) { writer, event in
          writer.member("record", event.recordIndex)
          writer.member("stream", event.stream)
          writer.member("version", event.version)
          writer.member("type", event.type)
          writer.member("id", event.event.id?.description ?? "")
          writer.member("summary", event.summary)
        }
      }
    }
  }

  /// `18 ContactAdded`, `1 ContactUpdated, 1 ContactFavorited`.
  static func counts(_ plan: ImportPlan) -> String {
    plan.eventCounts.map { "\($0.count) \($0.type)" }.joined(separator: ", ")
  }

  /// `seq 1...18`, or `seq 19` for one event.
  static func describe(_ sequences: ClosedRange<Int64>) -> String {
    sequences.count == 1
      ? "seq \(sequences.lowerBound)" : "seq \(sequences.lowerBound)...\(sequences.upperBound)"
  }

  static func recordName(_ kind: ImportKind, _ outcome: RecordOutcome) -> String {
    "\(kind.recordNoun) record \(outcome.recordIndex)" + (outcome.label.map { " (\($0))" } ?? "")
  }
}
