/// What went wrong talking to PostgreSQL, or between a log and the database it is shipped to.
public enum PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
  /// libpq could not be loaded: `tried` lists the names given to `dlopen`.
  case libraryMissing(tried: [String], reason: String)
  /// The server could not be reached, or refused the connection for a reason other than the
  /// credentials (`target` is the URL without its password).
  case connectionFailed(target: String, message: String)
  /// libpq cannot parse the URL (`target`, without its password): nothing was connected to.
  case invalidURL(target: String, message: String)
  /// The server refused the user or the password (or `pg_hba.conf` has no entry for them).
  case authenticationFailed(target: String, message: String)
  /// The connection broke during a statement: the server stopped, restarted or was cut off.
  case connectionLost(message: String)
  /// The server cancelled a statement that ran past `statement_timeout` (or `lock_timeout`).
  case statementTimeout(message: String)
  /// A statement failed; `sqlState` is the server's five-character code.
  case statementFailed(sqlState: String, message: String, statement: String)
  /// The database's `message_store` schema exists but is not the one `replay pg init` writes.
  case schemaMismatch(differences: [String])
  /// The database has no `message_store` schema (or not all of it).
  case schemaMissing(missing: [String])
  /// The database's shipped position does not belong to this log.
  case anotherLog(logPath: String, detail: String)
  /// Another process is shipping the same log to the same database.
  case shipperBusy(logPath: String)
  /// The database is a replica of the log file at `logPath` (`replay ship` fills it): an
  /// append to it directly would fork it from the file.
  case replicaOfLog(logPath: String)
  /// The database holds events appended to it directly (it is a store, not a replica):
  /// shipping a file into it would mix two logs.
  case writtenDirectly(logPath: String)
  /// The connection broke and could not be made again in `seconds` (`attempts` tries);
  /// every event up to `lastShippedSequence` is in the database.
  case serverGone(
    target: String, attempts: Int, seconds: Int, message: String, lastShippedSequence: Int64)

  /// Whether `sqlState` says the server lacked a resource or failed at its own I/O (classes
  /// 53, insufficient resources such as a full disk, and 58, system error), not that it
  /// refused the statement's input.
  package static func isServerResource(_ sqlState: String) -> Bool {
    sqlState.hasPrefix("53") || sqlState.hasPrefix("58")
  }

  public var description: String {
    switch self {
    case .libraryMissing(let tried, let reason):
      return
        "PostgreSQL's client library libpq is not installed or could not be loaded (tried "
        + tried.map { "'\($0)'" }.joined(separator: ", ") + ": \(reason)); install it "
        + "('apt-get install libpq5' on Debian and Ubuntu, 'dnf install libpq' on Fedora, "
        + "'brew install libpq' on macOS) or set REPLAY_LIBPQ to its path"
    case .connectionFailed(let target, let message):
      return "cannot connect to PostgreSQL at '\(target)': \(message)"
    case .invalidURL(let target, let message):
      return
        "'\(target)' is not a PostgreSQL URL libpq can read: \(message); write it as "
        + "postgresql://user[:password]@host[:port]/database[?parameter=value&...], each "
        + "reserved character percent-encoded"
    case .authenticationFailed(let target, let message):
      return
        "PostgreSQL at '\(target)' refused the credentials: \(message); check the user and "
        + "password in the URL (or PGPASSWORD, ~/.pgpass) and the server's pg_hba.conf"
    case .connectionLost(let message):
      return
        "the connection to PostgreSQL was lost: \(message); a write it broke off was not "
        + "kept (what was committed before stays): run the command again once the server is back"
    case .statementTimeout(let message) where message.contains("lock timeout"):
      return
        "PostgreSQL cancelled a statement that waited too long for a lock (another writer held "
        + "the store): \(message); nothing of it was kept: run the command again, or raise "
        + "--lock-timeout"
    case .statementTimeout(let message):
      return
        "PostgreSQL cancelled a statement that ran too long: \(message); nothing of it was "
        + "kept: run the command again, or raise statement_timeout"
    case .statementFailed(let sqlState, let message, let statement)
    where Self.isServerResource(sqlState):
      return
        "PostgreSQL could not run \(statement): \(message) (SQLSTATE \(sqlState)); nothing of "
        + "it was kept: give the server the room it lacks and run the command again"
    case .statementFailed(let sqlState, let message, let statement):
      return "PostgreSQL refused \(statement): \(message) (SQLSTATE \(sqlState))"
    case .schemaMismatch(let differences):
      return
        "the database's schema 'message_store' is not the one 'replay pg init' writes: "
        + differences.joined(separator: "; ")
        + "; change or drop it by hand (nothing was changed)"
    case .schemaMissing(let missing):
      return
        "the database has no complete Message DB schema (missing "
        + missing.joined(separator: ", ") + "); run 'replay pg init <url>' first"
    case .anotherLog(let logPath, let detail):
      return
        "the database holds another log's events than '\(logPath)': \(detail); ship this "
        + "log to another database (or schema)"
    case .serverGone(let target, let attempts, let seconds, let message, let last):
      return
        "the connection to PostgreSQL at '\(target)' was lost and could not be made again in "
        + "\(seconds) s (\(attempts) attempts; the last: \(message)); every event up to seq "
        + "\(last) is in the database and nothing after it was kept: run the command again "
        + "once the server is back (it resumes there)"
    case .replicaOfLog(let logPath):
      return
        "the database is a replica of the log file '\(logPath)' ('replay ship' fills it): "
        + "appending to it directly would fork it from the file, so nothing was appended; "
        + "append to the file (and ship it), or keep the log in another database"
    case .writtenDirectly(let logPath):
      return
        "the database holds events appended to it directly (it is a store, not a replica), so "
        + "'\(logPath)' was not shipped into it: shipping would mix two logs; ship to an empty "
        + "database"
    case .shipperBusy(let logPath):
      return
        "another process is shipping '\(logPath)' to this database; wait for it to finish "
        + "or stop it"
    }
  }
}
