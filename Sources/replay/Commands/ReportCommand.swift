import Engine
import Events
import Postgres
import Projections
import Report

/// `replay report`: the audit report as one self-contained HTML page.
enum ReportCommand {
  static let command = Command(
    name: "report",
    abstract: "Write an audit report: a timeline, what changed, the five screens and a map.",
    discussion: """
      Writes one self-contained HTML file (inline CSS and SVG, a few lines of script that only \
      add a filter; no font, image or script is fetched from anywhere): open it from disk with \
      no connection.

      The page shows: the integrity of the log (lines checked, the digest at the report's \
      point, quarantined bytes, warnings; with --verify, the verdict of 'replay verify'); a timeline of the window's events by time and \
      domain, with their types, actors and busiest entities; what changed: the history of each \
      entity changed in the window, as 'replay history' shows it, with a filter; the five \
      apps' screens at the report's point; and a map of the locations with each one's three \
      nearest neighbours and their miles.

      The point (--at <seq> or --as-of <time>; by default the end of the log) is where the \
      screens, the map and the digest are taken. The window (--from and --to, each a seq or \
      an ISO 8601 time; by default the first event through the point) is what the timeline \
      and the changes cover. Large logs are aggregated: the page says what it left out.

      --output is written atomically (a temporary file renamed over it) under the same rules \
      as 'replay export --output'; exit 73 if it cannot be written, or if it is a file of the \
      log (the log, <log>.keys, <log>.index, anything in <log>.checkpoints/ or \
      <log>.quarantine/, a writer's temporary file; through links too). Nothing else is \
      written. On a terminal, standard error shows the progress of each pass over a long \
      log, with a rate and an estimate of the time left.
      """,
    options: ReadOptions.point + [
      from, to, output, verify, note, key, CommonOptions.log,
      CommonOptions.json.withHelp(
        "Print what was written as JSON: {\"seq\", \"window\": {\"firstSeq\", \"lastSeq\", \"events\"}, \"entitiesChanged\", \"output\", \"bytes\"}, and \"noteVerifies\" with --note."
      ),
    ],
    run: run)

  static let from = ReadModelArguments.point(
    names: ["--from"], valueName: "seq|time",
    help: "The window's first event: a seq, or the first event at or after an ISO 8601 time.",
    defaultDescription: "the first event")
  static let to = ReadModelArguments.point(
    names: ["--to"], valueName: "seq|time",
    help: "The window's last event: a seq, or the last event at or before an ISO 8601 time.",
    defaultDescription: "the report's point")
  static let output = TextOption(
    names: ["--output"], valueName: "file", help: "The HTML file to write.", isRequired: true)
  static let verify = Flag(
    ["--verify"], help: "Also run 'replay verify' (one more pass) and show its verdict on the page."
  )

  static let note = CheckCommand.note.withHelp(
    "Also check the log against a signed tree head ('replay head --sign') and show the verdict "
      + "on the page.")
  static let key = CheckCommand.key.withHelp(
    "The key the --note must be signed with (or a file holding it).")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let output = invocation.requiredValue(ReportCommand.output)
    // Refused before the report is built: the log's own files are never its output.
    try LogFiles(logPath: invocation.logPath).refuseAsOutput(output)
    var request = AuditReport.Request(
      point: try invocation.replayPoint(), from: try invocation[from]?.bound,
      to: try invocation[to]?.bound, verifies: invocation[verify])
    switch (invocation[note], invocation[key]) {
    case (nil, nil): break
    case (let note?, let key?):
      // A note whose signature does not check is refused before anything is written.
      let verifier = try CheckCommand.readVerifier(key)
      let head = try CheckCommand.openNote(note, verifier: verifier)
      request.signedHead = AuditReport.TreeHead(size: head.size, root: head.root)
      request.signedBy = "'\(verifier.name)' (\(head.origin))"
    default:
      throw UsageError("'--note <file>' and '--key <verifier key>' go together: give both")
    }
    let report: AuditReport
    if let database = invocation.postgresLog {
      report = try AuditReport.build(database: try database.reportSource(), request: request)
    } else {
      let progress = ProgressLine.forStandardError(invocation.terminal)
      defer { progress?.finish() }
      var replayer = invocation.replayer
      replayer.reader.progress = progress?.reading("reading the log")
      report = try AuditReport.build(replayer: replayer, request: request)
      progress?.finish()
    }
    let bytes = Array(report.html().utf8)
    try AtomicFile.write(bytes, to: output, protecting: invocation.logPath)
    if let problem = report.integrity.noteCheck?.problem {
      invocation.terminal.writeError("warning: the signed note does not verify: \(problem)\n")
    }
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("seq", report.pointSequence)
        writer.key("window")
        writer.beginObject()
        writer.sequenceMembers(report.timeline.sequences)
        writer.member("events", report.timeline.eventCount)
        writer.endObject()
        writer.member("entitiesChanged", report.changes.count)
        writer.member("output", output)
        writer.member("bytes", bytes.count)
        if let check = report.integrity.noteCheck {
          writer.member("noteVerifies", check.problem == nil)
        }
      }
      return .success
    }
    invocation.terminal.write(
      "wrote the report of \(invocation.logName) at seq \(report.pointSequence) "
        + "(\(report.timeline.eventCount) events in the window, "
        + "\(report.changes.count) entities' changes) to \(output), \(bytes.count) bytes\n")
    return .success
  }
}

extension MessageStoreLog {
  /// The database as `replay report` reads it: its lines, its fold, its keys and its verifier.
  /// - Throws: `PostgresError` (unreachable, refused, no schema).
  fileprivate func reportSource() throws -> AuditReport.DatabaseLog {
    let (rowCount, checkpoints) = try withConnection { connection in
      let rows = try connection.query("SELECT count(*) FROM message_store.messages", []).rows
      let entries: Result<[MessageStoreCheckpoints.Entry], PostgresError>
      do {
        entries = .success(try MessageStoreCheckpoints(log: self).entries(on: connection))
      } catch PostgresError.schemaMismatch(let differences) {
        // A cache the page only lists: a table that cannot hold checkpoints is named, not fatal.
        entries = .failure(.schemaMismatch(differences: differences))
      }
      return (rows.first?.first?.flatMap { Int64($0) } ?? 0, entries)
    }
    let table: String
    switch checkpoints {
    case .success(let checkpoints):
      let stale = checkpoints.filter { $0.problem != nil }.count
      table =
        "\(checkpoints.count) in message_store.replay_checkpoints"
        + (stale == 0 ? "" : ", \(stale) of them no longer matching the rows")
    case .failure(let error):
      table = "none used: \(error)"
    }
    return AuditReport.DatabaseLog(
      description: "PostgreSQL database \(name)", rowCount: rowCount, checkpoints: table,
      name: name, keyStoreName: keyStoreName,
      keys: {
        let found = try self.keys()
        return { found[$0] ?? .missing }
      }, lines: lineSource,
      readModels: { try readModels(at: $0) },
      verify: {
        let report = try MessageStoreVerifier(url: url).verify()
        return AuditReport.Verification(
          eventCount: report.eventCount, streamCount: report.streamCount,
          lastSequence: report.lastSequence,
          alsoChecked:
            "every row's columns compared with its line, every sealed contact's key row found",
          problems: report.problems.map { "global_position \($0.globalPosition): \($0.message)" })
      })
  }
}

extension ReplayPoint {
  /// The point as a window bound (`.end` is no bound).
  fileprivate var bound: ReportBound? {
    switch self {
    case .end: nil
    case .sequence(let sequence): .sequence(sequence)
    case .instant(let instant): .instant(instant)
    }
  }
}

extension ReportError: CLIError {
  /// Bounds the wrong way round are a usage error: 64.
  var exitCode: ExitCode { .usageError }

  var message: String { description }
}
