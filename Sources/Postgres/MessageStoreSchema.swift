import Engine
import Foundation

/// Creates and checks Message DB's schema (`message_store`) in a PostgreSQL database.
///
/// What "the same schema" means is decided by PostgreSQL itself: `install` first writes every
/// statement into a scratch schema inside a savepoint, reads back how the server describes each
/// object (columns with types, nullability and defaults; index and trigger definitions; function
/// arguments, results, language, volatility and bodies), rolls the scratch schema back and compares that
/// with what `message_store` holds. So the comparison does not depend on how a server version
/// prints a type.
package enum MessageStoreSchema {
  /// What `install` did.
  public struct Installation: Sendable, Equatable {
    /// The objects it created (`table messages`, `function write_message`, ...); empty when
    /// the schema was complete already.
    public var created: [String]
  }

  /// The oldest server the schema works on: `gen_random_uuid()` is built in from 13.
  static let minimumServerVersion = 130_000

  /// Creates whatever part of the schema is missing, in one transaction; changes nothing when
  /// an object that exists differs from ours.
  /// - Throws: `PostgresError.schemaMismatch` naming every difference; other `PostgresError`s.
  public static func install(on connection: PostgresConnection) throws(PostgresError)
    -> Installation
  {
    try requireServerVersion(connection)
    try connection.execute("BEGIN")
    do throws(PostgresError) {
      // Two `pg init` at once: the second waits, then finds everything in place.
      try connection.execute(
        "SET LOCAL search_path TO pg_catalog, pg_temp;"
          + " SELECT pg_advisory_xact_lock(hashtext('replay pg init'))")
      let expected = try expectedDescription(connection)
      let actual = try describe(MessageStoreSQL.schema, on: connection)
      let differences = compare(actual: actual, expected: expected)
      guard differences.isEmpty else { throw .schemaMismatch(differences: differences) }
      try connection.execute("CREATE SCHEMA IF NOT EXISTS \(MessageStoreSQL.schema)")
      var created: [String] = []
      for statement in MessageStoreSQL.statements where actual[statement.key] == nil {
        try connection.execute(statement.sql)
        created.append(statement.key)
      }
      // What was created must now be exactly what was expected; an object no statement
      // creates (a table's primary key index) may still be missing.
      let now = try describe(MessageStoreSQL.schema, on: connection)
      let left =
        compare(actual: now, expected: expected)
        + expected.keys.sorted().filter { now[$0] == nil }.map { "\($0) is missing" }
      guard left.isEmpty else { throw PostgresError.schemaMismatch(differences: left) }
      try connection.execute("COMMIT")
      return Installation(created: created)
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  /// Checks that the tables `replay ship` writes exist with the columns it writes, of the types
  /// `replay pg init` gives them.
  /// - Throws: `PostgresError.schemaMissing`; `.schemaMismatch` naming each column of another
  ///   type.
  static func requireTables(on connection: PostgresConnection) throws(PostgresError) {
    let present = try columnTypes(
      of: ["messages", "replay_shipped", "replay_keys"], on: connection)
    let missing = neededColumns.filter { present[$0.column] == nil }.map(\.column)
    if !missing.isEmpty {
      throw .schemaMissing(missing: missing.map { "\(MessageStoreSQL.schema).\($0)" })
    }
    // A column of another type (altered by hand) would fail each statement with an SQL error.
    let differences = neededColumns.compactMap { column, type in
      present[column].flatMap { typeDifference(column, expected: type, found: $0) }
    }
    if !differences.isEmpty { throw .schemaMismatch(differences: differences) }
  }

  /// The columns of the schema's `tables`, keyed `table.column`, with their types as
  /// `format_type` names them; none for a table that does not exist.
  static func columnTypes(
    of tables: [String], on connection: PostgresConnection
  ) throws(PostgresError) -> [String: String] {
    let rows = try connection.query(
      """
      SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = $1 AND c.relname = ANY($2::text[])
      """, [MessageStoreSQL.schema, "{" + tables.joined(separator: ",") + "}"]
    ).rows
    return Dictionary(
      rows.map { ("\($0[0] ?? "").\($0[1] ?? "")", $0[2] ?? "") },
      uniquingKeysWith: { first, _ in first })
  }

  /// `table message_store.<table>: column <name> is '<found>', expected '<type>'` for `column`
  /// (`table.column`), or nil when `found` is `type`.
  static func typeDifference(_ column: String, expected type: String, found: String) -> String? {
    guard found != type else { return nil }
    let (table, name) = (column.prefix { $0 != "." }, column.drop { $0 != "." }.dropFirst())
    return
      "table \(MessageStoreSQL.schema).\(table): column \(name) is '\(found)', expected '\(type)'"
  }

  /// The columns every command needs, with their types as `format_type` names them.
  private static let neededColumns: [(column: String, type: String)] = [
    ("messages.id", "uuid"), ("messages.stream_name", "text"), ("messages.position", "bigint"),
    ("messages.type", "text"), ("messages.data", "jsonb"), ("messages.metadata", "jsonb"),
    ("messages.time", "timestamp without time zone"), ("messages.global_position", "bigint"),
    ("replay_shipped.log_id", "uuid"), ("replay_shipped.seq", "bigint"),
    ("replay_shipped.event_id", "uuid"), ("replay_shipped.log_path", "text"),
    ("replay_keys.key_id", "text"), ("replay_keys.contact", "text"), ("replay_keys.key", "bytea"),
  ]

  private static func requireServerVersion(_ connection: PostgresConnection) throws(PostgresError) {
    guard connection.serverVersion >= minimumServerVersion else {
      throw .schemaMismatch(differences: [
        "the server is version \(connection.serverVersion / 10_000); the schema needs 13 or later"
      ])
    }
  }

  /// An object's description: each aspect (a column, `definition`, `arguments`, `body`, ...)
  /// with its value as the server prints it.
  typealias Description = [String: [String: String]]

  /// How the server describes our statements: written into a scratch schema that is rolled
  /// back, its name then replaced by `message_store` again.
  private static func expectedDescription(_ connection: PostgresConnection) throws(PostgresError)
    -> Description
  {
    let scratch = "replay_scratch_\(UInt32.random(in: 0...UInt32.max))"
    try connection.execute("SAVEPOINT replay_scratch; CREATE SCHEMA \(scratch)")
    for statement in MessageStoreSQL.statements {
      try connection.execute(
        statement.sql.replacingOccurrences(
          of: MessageStoreSQL.schema + ".", with: scratch + "."))
    }
    let description = try describe(scratch, on: connection)
    try connection.execute("ROLLBACK TO SAVEPOINT replay_scratch")
    return description.mapValues { aspects in
      aspects.mapValues {
        $0.replacingOccurrences(of: scratch + ".", with: MessageStoreSQL.schema + ".")
      }
    }
  }

  /// The tables, composite types, indexes and functions of `schema`, by key.
  static func describe(_ schema: String, on connection: PostgresConnection) throws(PostgresError)
    -> Description
  {
    let rows = try connection.query(
      """
      SELECT CASE c.relkind WHEN 'c' THEN 'type ' ELSE 'table ' END || c.relname,
        'column ' || a.attname,
        pg_catalog.format_type(a.atttypid, a.atttypmod)
          || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
          || coalesce(' default ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid), '')
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'c')
      UNION ALL
      SELECT 'index ' || indexname, 'definition', indexdef
      FROM pg_catalog.pg_indexes WHERE schemaname = $1
      UNION ALL
      SELECT 'trigger ' || t.tgname, 'definition', pg_catalog.pg_get_triggerdef(t.oid)
      FROM pg_catalog.pg_trigger t
      JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND NOT t.tgisinternal
      UNION ALL
      SELECT 'function ' || p.proname, aspect, value
      FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      JOIN pg_catalog.pg_language l ON l.oid = p.prolang,
      LATERAL (VALUES
        ('arguments', pg_catalog.pg_get_function_arguments(p.oid)),
        ('result', pg_catalog.pg_get_function_result(p.oid)),
        ('language', l.lanname::text),
        ('volatility', p.provolatile::text),
        ('body', p.prosrc)) AS aspects(aspect, value)
      WHERE n.nspname = $1
      """, [schema]
    ).rows
    var description: Description = [:]
    for row in rows {
      guard let key = row[0], let aspect = row[1] else { continue }
      // Two functions of one name (overloads) are two descriptions run together: a difference.
      let value = row[2] ?? "NULL"
      description[key, default: [:]][aspect] =
        description[key]?[aspect].map { $0 + " | " + value } ?? value
    }
    return description
  }

  /// Every difference between the objects both descriptions have, worded for a person.
  static func compare(actual: Description, expected: Description) -> [String] {
    var differences: [String] = []
    for key in expected.keys.sorted() {
      guard let theirs = actual[key], let ours = expected[key] else { continue }
      let name = key.replacingOccurrences(of: " ", with: " \(MessageStoreSQL.schema).")
      for aspect in Set(ours.keys).union(theirs.keys).sorted() {
        switch (theirs[aspect], ours[aspect]) {
        case (nil, _?):
          differences.append("\(name) has no \(aspect)")
        case (_?, nil):
          differences.append("\(name) has a \(aspect) ours does not have")
        case (let found?, let wanted?) where found != wanted:
          if aspect == "body" {
            differences.append("\(name) has another body than ours")
          } else {
            differences.append("\(name): \(aspect) is '\(found)', expected '\(wanted)'")
          }
        default:
          break
        }
      }
    }
    return differences
  }
}
