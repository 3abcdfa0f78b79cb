import Engine
import Postgres

/// `replay pg`: the PostgreSQL database a log is shipped to.
enum PostgresCommand {
  static let command = Command(
    name: "pg",
    abstract: "Prepare a PostgreSQL database in Message DB's schema for 'replay ship'.",
    discussion: """
      PostgreSQL is reached through the system's libpq, loaded when a command needs it \
      (REPLAY_LIBPQ names another copy). A URL is any libpq connection string: \
      postgresql://user:password@host:5432/database?sslmode=verify-full, or key=value pairs; \
      PGPASSWORD, ~/.pgpass and the other PG* variables apply.
      """,
    subcommands: [initialize])

  static let initialize = Command(
    name: "init",
    abstract: "Create Message DB's schema (message_store) where it is missing.",
    discussion: """
      Creates the schema message_store: the messages table and its indexes, the functions \
      other tools call (write_message, get_stream_messages, get_category_messages, \
      get_last_stream_message, stream_version and their helpers), and replay_shipped, which \
      holds the last event 'replay ship' shipped of each log. Running it again changes \
      nothing; an object that exists but differs from ours stops it with exit 65, naming \
      every difference, and nothing is changed.
      """,
    arguments: [Argument(name: "url", help: "The database, as a libpq connection string.")],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let connection = try PostgresConnection(url: invocation.requiredValue("url"))
    defer { connection.close() }
    let installation = try MessageStoreSchema.install(on: connection)
    if installation.created.isEmpty {
      invocation.terminal.write(
        "the schema message_store at '\(connection.target)' is complete; nothing to do\n")
    } else {
      invocation.terminal.write(
        "created in '\(connection.target)': "
          + installation.created.map { "message_store." + $0.split(separator: " ")[1] }
          .joined(separator: ", ") + "\n")
    }
    return .success
  }
}

extension PostgresError: CLIError {
  /// Each error's documented exit status (README, "Shipping to PostgreSQL").
  var exitCode: ExitCode {
    switch self {
    case .libraryMissing, .connectionFailed, .connectionLost, .serverGone: .remoteUnavailable
    case .authenticationFailed: .permissionDenied
    case .invalidURL: .usageError
    case .statementTimeout, .shipperBusy: .temporaryFailure
    case .statementFailed(let sqlState, _, _) where PostgresError.isServerResource(sqlState):
      .ioError
    case .schemaMismatch, .schemaMissing, .anotherLog, .statementFailed, .replicaOfLog,
      .writtenDirectly:
      .invalidInput
    }
  }

  var message: String { description }
}
