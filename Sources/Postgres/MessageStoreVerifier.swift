import Engine

/// `replay verify` on a log kept in PostgreSQL: checks what the `messages` table can be
/// checked for, without changing it, and lists every problem with the row it is in.
///
/// Each row's line (`metadata.line`) must parse as a reader of the file parses it (checksum,
/// envelope); `global_position` must run from 1 without a gap and equal the line's seq; the
/// row's `stream_name`, `type`, `id` and `position` (the version − 1) must be the line's; the
/// versions of each stream must run from 1; `data` and `metadata` must hold what the line
/// holds (compared by the server, as `jsonb`); and a sealed contact's line needs its key in
/// `replay_keys` (present, or destroyed by an erasure).
///
/// ```swift
/// let report = try MessageStoreVerifier(url: "postgresql://localhost/app").verify()
/// ```
package struct MessageStoreVerifier {
  /// One thing wrong, in the row at `globalPosition`.
  package struct Problem: Sendable, Equatable {
    package var globalPosition: Int64
    package var message: String
  }

  /// What `verify` found.
  package struct Report: Sendable, Equatable {
    /// Rows read.
    package var eventCount = 0
    /// Distinct streams.
    package var streamCount = 0
    /// The last row's `global_position` (0 when none).
    package var lastSequence: Int64 = 0
    /// Everything wrong, in `global_position` order.
    package var problems: [Problem] = []

    /// Whether the table passed.
    package var isValid: Bool { problems.isEmpty }
  }

  /// The database, as a libpq connection string.
  package let url: String
  /// Rows fetched a round trip.
  package var pageSize = 5000

  package init(url: String) {
    self.url = url
  }

  /// Reads every row once, in `global_position` order.
  /// - Throws: `PostgresError` (unreachable, refused, no schema); a damaged row is a problem
  ///   in the report, not an error.
  package func verify() throws -> Report {
    let log = MessageStoreLog(url: url)
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try MessageStoreSchema.requireTables(on: connection)
    // The server compares `data` and `metadata` with the line, as jsonb; a line that is not
    // JSON must not stop the query, so it is parsed by a function that answers NULL instead
    // (a temporary one: it lives and dies with this session, nothing is written).
    _ = try connection.execute(Self.tryJSONFunction)
    let keyed = try Self.keyedContacts(on: connection)
    var report = Report()
    var versions: [String: Int64] = [:]
    var lines = LineDecoder(source: log.name)
    var after: Int64 = 0
    while true {
      let rows = try connection.query(Self.pageQuery, [String(after), String(pageSize)]).rows
      for row in rows {
        guard let position = row[0].flatMap({ Int64($0) }) else { continue }
        var found: [String] = []
        if position != after + 1 {
          found.append(
            "global_position \(position) follows \(after): \(after + 1)...\(position - 1) are missing"
          )
        }
        if let text = row[5] {
          var text = text
          let checked: [String]
          do {
            checked = try text.withUTF8 { bytes in
              try lines.decode(bytes) { line in
                Self.compare(line, with: row, position: position, versions: &versions, keyed: keyed)
              }
            }
          } catch {
            checked = ["the line does not read: \(Self.problem(of: error))"]
            // The next row is checked against this one's position.
            lines = LineDecoder(source: log.name, after: position)
          }
          found += checked
        } else {
          found.append("the row holds no line (metadata.line): it was not shipped by replay")
          lines = LineDecoder(source: log.name, after: position)
        }
        // A line that is not JSON did not read above: nothing to compare.
        if row[8] == "f" {
          if row[6] != "t" { found.append("data differs from the line's data") }
          if row[7] != "t" {
            found.append("metadata differs from the line's seq, at, schema and meta")
          }
        }
        for message in found {
          report.problems.append(Problem(globalPosition: position, message: message))
        }
        report.eventCount += 1
        report.lastSequence = position
        after = position
      }
      if rows.count < pageSize { break }
    }
    report.streamCount = versions.count
    return report
  }

  /// The problems of a row whose line parsed: the row's columns against the line.
  private static func compare(
    _ line: EventLine, with row: [String?], position: Int64, versions: inout [String: Int64],
    keyed: Set<String>
  ) -> [String] {
    var found: [String] = []
    if line.sequence != position {
      found.append("the line holds seq \(line.sequence), the row global_position \(position)")
    }
    let stream = line.stream
    if row[2] != stream {
      found.append("stream_name is '\(row[2] ?? "NULL")', the line's stream '\(stream)'")
    }
    if row[3] != line.type {
      found.append("type is '\(row[3] ?? "NULL")', the line's type '\(line.type)'")
    }
    if row[4] != line.id.description {
      found.append("id is \(row[4] ?? "NULL"), the line's id \(line.id)")
    }
    if row[1] != String(line.version - 1) {
      found.append(
        "position is \(row[1] ?? "NULL"), the line's version − 1 is \(line.version - 1)")
    }
    let previous = versions[stream] ?? 0
    if line.version != previous + 1 {
      found.append(
        "stream '\(stream)' is at version \(previous); the line has version \(line.version)")
    }
    versions[stream] = line.version
    if line.schemaVersion >= 2, line.type == "ContactAdded" || line.type == "ContactUpdated",
      stream.hasPrefix(contactCategory),
      !keyed.contains(String(stream.dropFirst(contactCategory.count)))
    {
      found.append(
        "its personal data is sealed and replay_keys has no key for contact '\(stream.dropFirst(contactCategory.count))'"
      )
    }
    return found
  }

  private static let contactCategory = "contact-"

  /// What is wrong, without the database's name that the message starts with.
  private static func problem(of error: any Error) -> String {
    switch error {
    case EngineError.invalidEvent(_, let problem): problem
    case EngineError.corruptLine(_, _, _, let problem): problem
    default: String(describing: error)
    }
  }

  /// The contacts `replay_keys` has a row for (its key present, or destroyed).
  private static func keyedContacts(on connection: PostgresConnection) throws -> Set<String> {
    Set(
      try connection.query("SELECT DISTINCT contact FROM message_store.replay_keys", []).rows
        .compactMap { $0[0] })
  }

  /// `pg_temp.replay_try_jsonb(text)`: the text as jsonb, or NULL when it is not JSON.
  private static let tryJSONFunction = """
    CREATE OR REPLACE FUNCTION pg_temp.replay_try_jsonb(line text) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      RETURN line::jsonb;
    EXCEPTION WHEN others THEN
      RETURN NULL;
    END $$
    """

  /// A page of rows: the columns, the line, and whether `data` and `metadata` (without the
  /// line) hold what the line holds (NULL when the line is not JSON).
  private static let pageQuery = """
    SELECT global_position, position, stream_name, type, id, line,
      data = l->'data',
      (metadata - 'line') = jsonb_strip_nulls(jsonb_build_object(
        'seq', l->'seq', 'at', l->'at', 'schema', l->'schema', 'actor', l->'meta'->'actor',
        'reason', l->'meta'->'reason', 'correlation', l->'meta'->'correlation',
        'causation', l->'meta'->'causation')),
      l IS NULL
    FROM (
      SELECT *, metadata->>'line' AS line, pg_temp.replay_try_jsonb(metadata->>'line') AS l
      FROM message_store.messages WHERE global_position > $1::bigint
      ORDER BY global_position LIMIT $2::bigint
    ) AS page
    """
}
