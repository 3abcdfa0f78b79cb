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
    try postgresLog?.readModels(at: point)
  }

  /// Refuses what a command cannot do yet on a log kept in PostgreSQL.
  /// - Throws: `UsageError` naming `what` when `--log` names a database.
  func refuseOnPostgres(_ what: String) throws {
    guard postgresLog != nil else { return }
    throw UsageError(
      "\(what) does not work on a log kept in PostgreSQL yet: read it without, or ship it and run the command on the file"
    )
  }
}
