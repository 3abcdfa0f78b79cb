import Engine
import Postgres

/// Appends to a log kept in PostgreSQL (`--log postgresql://…`): the writing commands open a
/// `MessageStoreWriter` here instead of an `EventLog`.
extension ParsedInvocation {
  /// A writer for the database `--log` names, with the writing options applied; nil when it
  /// names a file.
  /// - Throws: `UsageError` for an option that means nothing on a database; `PostgresError`.
  func openPostgresWriter() throws -> MessageStoreWriter? {
    guard let database = postgresLog else { return nil }
    if declares(AppendCommand.chunkSize), isGiven(AppendCommand.chunkSize) {
      throw UsageError(
        "'--chunk-size' does not apply to a log kept in PostgreSQL: a write is one transaction"
      )
    }
    return try MessageStoreWriter(url: database.url, configuration: writingConfiguration())
  }
}
