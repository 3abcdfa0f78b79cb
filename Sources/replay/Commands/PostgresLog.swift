import Engine
import Postgres

/// `--log postgresql://…` (or `$REPLAY_LOG`): the commands that read a log read it from a
/// PostgreSQL database `replay ship` fills, through Engine's own fold (`MessageStoreLog`).
/// Each command's hook is a line that asks `postgresLog`.
extension ParsedInvocation {
  /// The database `--log` names, when it names one rather than a file.
  var postgresLog: MessageStoreLog? {
    let path = logPath
    return MessageStoreLog.isDatabase(path) ? MessageStoreLog(url: path) : nil
  }

  /// The log's name in output: its path, or the database's URL without its password.
  var logName: String { postgresLog?.name ?? logPath }

  /// The read models at `point` from the database `--log` names; nil when it names a file.
  func rebuildFromPostgres(at point: ReplayPoint) throws -> Replayer.Result? {
    try postgresLog?.readModels(at: point, usingCheckpoints: usesCheckpoints, explain: explainer)
  }

  /// `replay checkpoint --log postgresql://…`: saves (at the end or `--at`), lists or clears
  /// the checkpoints of `message_store.replay_checkpoints`; nil when `--log` names a file.
  func checkpointPostgres() throws -> ExitCode? {
    guard let database = postgresLog else { return nil }
    for declaration in [CheckpointCommand.every, CheckpointCommand.verify]
      as [any OptionDeclaration]
    where isGiven(declaration) {
      throw UsageError(
        "'\(declaration.option.preferredName)' works on a log file's checkpoints: leave it out for a log kept in PostgreSQL"
      )
    }
    let table = "\(database.name) (message_store.replay_checkpoints)"
    let checkpoints = MessageStoreCheckpoints(log: database)
    if self[CheckpointCommand.clear] {
      let removed = try database.withConnection { try checkpoints.removeAll(on: $0) }
      terminal.write("removed \(removed) checkpoint\(removed == 1 ? "" : "s") from \(table)\n")
      return .success
    }
    if self[CheckpointCommand.list] {
      let entries = try database.withConnection { try checkpoints.entries(on: $0) }.reversed()
      if self[CommonOptions.json] {
        writeJSONObject { writer in
          writer.member("checkpoints", objects: Array(entries)) { writer, entry in
            writer.member("seq", entry.sequence)
            writer.member("bytes", entry.byteCount)
            writer.member("problem", entry.problem)
          }
        }
      } else if entries.isEmpty {
        terminal.write("no checkpoints in \(table)\n")
      } else {
        var text = TextTable([
          .init(title: "SEQ", alignment: .right), .init(title: "BYTES", alignment: .right),
          .init(title: "STATUS", maximumWidth: 100),
        ])
        for entry in entries {
          text.append([
            String(entry.sequence), String(entry.byteCount),
            entry.problem.map { "ignored: \($0)" } ?? "its line matches",
          ])
        }
        terminal.write(
          "\(entries.count) checkpoint\(entries.count == 1 ? "" : "s") in \(table)\n"
            + text.render())
      }
      return .success
    }
    let point = try self[CheckpointCommand.at].map(ReplayPoint.sequence) ?? .end
    let saved = try database.saveCheckpoint(at: point)
    terminal.write(
      saved == 0
        ? "the log is empty: no checkpoint saved\n"
        : "saved a checkpoint at seq \(saved) in \(table)\n")
    return .success
  }

  /// Calls `body` with the events from the database `--log` names, as
  /// `LogReader.forEachEvent(matching:from:through:)` does; false when it names a file.
  func forEachPostgresEvent(
    matching filter: EventFilter, from first: Int64, through last: Int64?,
    _ body: (EventLine) throws -> Bool
  ) throws -> Bool {
    guard let database = postgresLog else { return false }
    try database.forEachEvent(matching: filter, from: first, through: last, body)
    return true
  }

  /// The diff of `model` from the database `--log` names; nil when it names a file.
  func diffFromPostgres(model: String, from: ReplayPoint, to: ReplayPoint) throws
    -> ReadModelDiff?
  {
    try postgresLog?.diff(model: model, from: from, to: to)
  }

  /// The commands that work on `--log postgresql://…`, by their path after `replay`.
  static let postgresCommands: Set<String> = [
    "state", "nearest", "log", "diff", "history", "export", "verify", "checkpoint",
    "report", "stats", "digest", "head", "prove", "rebuild", "append", "import",
    "observations record", "observations revise", "observations remove",
    "states add",
    "zipcodes add", "zipcodes modify", "zipcodes remove",
    "animals insert", "animals remove",
    "locations add", "locations rename", "locations move", "locations remove",
    "contacts favorite", "contacts unfavorite", "contacts erase",
  ]

  /// Refuses `--log postgresql://…` (or such a `$REPLAY_LOG`) for the other commands, before
  /// they take the URL for a file name.
  /// - Throws: `UsageError` naming the commands that read a database.
  func refusePostgresWhereUnsupported() throws {
    let name = commandPath.dropFirst().joined(separator: " ")
    guard declares(CommonOptions.log), postgresLog != nil, !Self.postgresCommands.contains(name)
    else { return }
    let working = Self.postgresCommands.sorted().map { "'\($0)'" }
    throw UsageError(
      "'\(name)' does not work on a log kept in PostgreSQL yet; "
        + working.dropLast().joined(separator: ", ") + " and " + (working.last ?? "")
        + " do: run it on the file"
    )
  }
}
