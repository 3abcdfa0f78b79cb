import Engine
import Events
import Foundation

/// One connection to a PostgreSQL server through libpq, loaded at run time (see `LibPQ`).
///
/// The one owner of the libpq connection: every statement passes through it, and it closes the
/// connection when it goes away. Not for use from two threads at once.
///
/// ```swift
/// let connection = try PostgresConnection(url: "postgresql://ana@db.example/app?sslmode=verify-full")
/// let rows = try connection.query("SELECT stream_version($1)", ["contact-13"]).rows
/// ```
package final class PostgresConnection {
  private let library: LibPQ
  private var handle: LibPQ.Handle?
  /// The URL as given, without its password: safe to print.
  public let target: String

  /// Connects and sets the session's encoding to UTF-8.
  /// - Parameter url: A libpq connection string: a `postgresql://` URL or `key=value` pairs.
  /// - Throws: `PostgresError.libraryMissing`, `.invalidURL`, `.connectionFailed`,
  ///   `.authenticationFailed`.
  public init(url: String) throws(PostgresError) {
    library = try LibPQ.shared.get()
    target = Self.redacted(url)
    if let problem = library.parseError(url) {
      throw .invalidURL(
        target: target,
        message: Self.scrubbed(problem.trimmingCharacters(in: .whitespacesAndNewlines), of: url))
    }
    guard let handle = library.connect(url) else {
      throw .connectionFailed(target: target, message: "libpq could not allocate a connection")
    }
    guard library.status(handle) == LibPQ.connectionOK else {
      var message = Self.scrubbed(Self.trimmed(library.errorMessage(handle)), of: url)
      let refusedCredentials = library.needsPassword(handle) != 0 || Self.isAuthentication(message)
      library.finish(handle)
      if message.contains("no encryption") {
        // pg_hba.conf has only `hostssl` lines for this client: the cure is in the URL.
        message +=
          "; the server accepts this user only over TLS: add sslmode=require to the URL (or "
          + "sslmode=verify-full with sslrootcert=<the server's CA certificate>)"
      }
      throw refusedCredentials
        ? .authenticationFailed(target: target, message: message)
        : .connectionFailed(target: target, message: message)
    }
    self.handle = handle
    try execute("SET client_encoding TO 'UTF8'; SET client_min_messages TO warning")
  }

  deinit { close() }

  /// Closes the connection; later statements fail with `connectionLost`.
  public func close() {
    if let handle { library.finish(handle) }
    handle = nil
  }

  /// The server's version as a number, such as 150004 for 15.4.
  public var serverVersion: Int { Int(library.serverVersion(handle)) }

  /// Whether the connection is encrypted with TLS.
  public var isEncrypted: Bool { library.sslInUse(handle) != 0 }

  /// The connection's socket, to wait on for notifications (`LISTEN`); -1 when closed.
  var socket: Int32 { handle.map { library.socket($0) } ?? -1 }

  /// Reads whatever the server sent without waiting, and takes the notifications received
  /// (those read now, and those read along with a statement's result).
  /// - Returns: How many notifications there were.
  /// - Throws: `PostgresError.connectionLost` when the connection broke.
  func takeNotifications() throws(PostgresError) -> Int {
    guard let handle else { throw .connectionLost(message: "the connection is closed") }
    guard library.consumeInput(handle) == 1 else {
      throw .connectionLost(message: Self.trimmed(library.errorMessage(handle)))
    }
    var count = 0
    while let notification = library.notifies(handle) {
      library.freeMemory(notification)
      count += 1
    }
    return count
  }

  /// What a statement returned: its rows as text (`nil` for SQL NULL) and the rows it changed.
  public struct Result: Sendable, Equatable {
    /// The rows, each value as the server's text form.
    public var rows: [[String?]]
    /// The rows an INSERT, UPDATE or DELETE changed (0 for other statements).
    public var affectedRows: Int
  }

  /// Runs one or more statements without parameters (the simple query protocol).
  /// - Returns: The last statement's result.
  /// - Throws: `PostgresError`.
  @discardableResult
  public func execute(_ sql: String) throws(PostgresError) -> Result {
    guard let handle else { throw .connectionLost(message: "the connection is closed") }
    return try consume(library.exec(handle, sql), statement: sql)
  }

  /// Runs one statement with text parameters `$1`, `$2`, ... (the extended query protocol:
  /// values are never spliced into the SQL).
  /// - Throws: `PostgresError`.
  @discardableResult
  public func query(_ sql: String, _ parameters: [String?]) throws(PostgresError) -> Result {
    var buffer = Parameters()
    for parameter in parameters {
      if let parameter { buffer.append(parameter) } else { buffer.appendNull() }
    }
    return try query(sql, buffer)
  }

  /// Runs one statement with the text parameters collected in `parameters`.
  /// - Throws: `PostgresError`.
  @discardableResult
  func query(_ sql: String, _ parameters: Parameters) throws(PostgresError) -> Result {
    guard let handle else { throw .connectionLost(message: "the connection is closed") }
    let result = parameters.bytes.withUnsafeBytes { bytes in
      // Every pointer lives only inside this closure: libpq copies the values before returning.
      let pointers: [UnsafePointer<CChar>?] = parameters.offsets.map { offset in
        offset < 0
          ? nil : bytes.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
      }
      return pointers.withUnsafeBufferPointer { values in
        library.execParams(
          handle, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
      }
    }
    return try consume(result, statement: sql)
  }

  /// Runs `COPY ... FROM STDIN` (text format) with `data` as its rows: one round trip for a
  /// whole batch, no statement to parse or plan a row.
  /// - Parameters:
  ///   - sql: The `COPY` statement.
  ///   - data: Rows in COPY's text format (`CopyText` writes them), each ending with `\n`.
  /// - Returns: The rows copied.
  /// - Throws: `PostgresError`; a refused row fails the whole `COPY`.
  @discardableResult
  func copy(_ sql: String, data: [UInt8]) throws(PostgresError) -> Int {
    guard let handle else { throw .connectionLost(message: "the connection is closed") }
    let started = library.exec(handle, sql)
    guard library.resultStatus(started) == LibPQ.copyIn else {
      _ = try consume(started, statement: sql)
      throw .statementFailed(
        sqlState: "?????", message: "the server did not start the COPY",
        statement: Self.summary(of: sql))
    }
    library.clear(started)
    // A broken send is reported by the result read below (or by the connection's status).
    let sent = data.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        // Sent in pieces of at most 1 MiB: PQputCopyData takes an Int32 length.
        let count = min(bytes.count - offset, 1 << 20)
        let chunk = bytes.baseAddress.map {
          ($0 + offset).assumingMemoryBound(to: CChar.self)
        }
        guard library.putCopyData(handle, chunk, Int32(count)) == 1 else { return false }
        offset += count
      }
      return true
    }
    _ = library.putCopyEnd(handle, sent ? nil : "the client could not send the rows")
    var copied = 0
    var failure: PostgresError?
    // Every result is read (COPY's, then nil), so the connection is ready for the next statement.
    while let result = library.getResult(handle) {
      guard failure == nil else {
        library.clear(result)
        continue
      }
      do throws(PostgresError) {
        copied = try consume(result, statement: sql).affectedRows
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    if library.status(handle) != LibPQ.connectionOK {
      throw .connectionLost(message: Self.trimmed(library.errorMessage(handle)))
    }
    return copied
  }

  /// Text parameters for `query`, kept in one buffer (each ends with a NUL), so that a batch of
  /// thousands costs no allocation a value.
  struct Parameters: Sendable {
    var bytes: [UInt8] = []
    /// Where each value starts in `bytes`; -1 for SQL NULL.
    var offsets: [Int] = []

    init() {}

    /// The number of parameters.
    var count: Int { offsets.count }

    mutating func append(_ text: String) {
      offsets.append(bytes.count)
      bytes.append(contentsOf: text.utf8)
      bytes.append(0)
    }

    /// Appends a value given as UTF-8 bytes (which must hold no NUL).
    mutating func append(utf8: UnsafeRawBufferPointer) {
      offsets.append(bytes.count)
      bytes.append(contentsOf: utf8)
      bytes.append(0)
    }

    mutating func append(_ number: Int64) {
      offsets.append(bytes.count)
      JSONWriter.appendDecimal(number, to: &bytes)
      bytes.append(0)
    }

    mutating func appendNull() {
      offsets.append(-1)
    }

    mutating func removeAll() {
      bytes.removeAll(keepingCapacity: true)
      offsets.removeAll(keepingCapacity: true)
    }
  }

  private func consume(_ result: LibPQ.Handle?, statement: String) throws(PostgresError) -> Result {
    defer { library.clear(result) }
    let status = library.resultStatus(result)
    if result != nil, status == LibPQ.commandOK || status == LibPQ.tuplesOK {
      let rowCount = library.rowCount(result)
      let columnCount = library.columnCount(result)
      var rows: [[String?]] = []
      rows.reserveCapacity(Int(rowCount))
      for row in 0..<rowCount {
        var values: [String?] = []
        values.reserveCapacity(Int(columnCount))
        for column in 0..<columnCount {
          if library.isNull(result, row, column) != 0 {
            values.append(nil)
          } else {
            values.append(library.value(result, row, column).map { String(cString: $0) } ?? "")
          }
        }
        rows.append(values)
      }
      let affected = library.affectedRows(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
      return Result(rows: rows, affectedRows: affected)
    }
    throw classify(result, statement: statement)
  }

  /// The error a failed statement deserves: a broken connection, a timeout, or the server's
  /// refusal with its SQLSTATE.
  private func classify(_ result: LibPQ.Handle?, statement: String) -> PostgresError {
    let sqlState = library.resultErrorField(result, LibPQ.fieldSQLState).map { String(cString: $0) }
    var message =
      result.flatMap { Self.trimmed(library.resultErrorMessage($0)) }
      .flatMap { $0.isEmpty ? nil : $0 } ?? Self.trimmed(library.errorMessage(handle))
    if let primary = library.resultErrorField(result, LibPQ.fieldMessage) {
      message = String(cString: primary)
      if let detail = library.resultErrorField(result, LibPQ.fieldDetail) {
        message += " (\(String(cString: detail)))"
      }
    }
    if library.status(handle) != LibPQ.connectionOK || sqlState?.hasPrefix("08") == true
      || ["57P01", "57P02", "57P03"].contains(sqlState ?? "")
    {
      return .connectionLost(message: message)
    }
    if sqlState == "57014" || sqlState == "55P03" {
      return .statementTimeout(message: message)
    }
    return .statementFailed(
      sqlState: sqlState ?? "?????", message: message, statement: Self.summary(of: statement))
  }

  /// A statement's first words, for error messages (a batch's text runs to megabytes).
  static func summary(of statement: String) -> String {
    let words = statement.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(4)
    return "'" + words.joined(separator: " ") + (words.count == 4 ? " …'" : "'")
  }

  static func trimmed(_ text: UnsafeMutablePointer<CChar>?) -> String {
    guard let text else { return "" }
    var message = String(cString: text)
    while let last = message.last, last.isWhitespace { message.removeLast() }
    // libpq's messages can span lines ("connection to server ... failed: FATAL: ...").
    return message.split(separator: "\n").map { $0.trimmingSpaces() }.joined(separator: " ")
  }

  static func isAuthentication(_ message: String) -> Bool {
    // A role the server does not know, or one that may not log in, is refused credentials too.
    if let role = message.range(of: "FATAL:  role \""),
      ["\" does not exist", "\" is not permitted to log in"].contains(where: {
        message[role.upperBound...].contains($0)
      })
    {
      return true
    }
    return ["authentication failed", "no password supplied", "pg_hba.conf", "password is required"]
      .contains { message.contains($0) }
  }

  /// libpq's `message` about `url` without the URL's passwords. libpq quotes what it cannot
  /// parse (a percent escape, a parameter, the whole URI), so a quoted part holding a password,
  /// as written or percent-decoded, is shown redacted (`***` when redacting it does not take
  /// the password out); an unquoted one of 4 characters or more is replaced by `***`.
  static func scrubbed(_ message: String, of url: String) -> String {
    var secrets: Set<String> = []
    for password in passwords(in: url) where !password.isEmpty {
      secrets.insert(String(password))
      if let decoded = password.removingPercentEncoding, !decoded.isEmpty {
        secrets.insert(decoded)
      }
    }
    guard !secrets.isEmpty else { return message }
    let holdsSecret = { (text: String) in secrets.contains { text.contains($0) } }
    var parts = message.split(separator: "\"", omittingEmptySubsequences: false).map(String.init)
    for index in parts.indices {
      if index % 2 == 1 {
        if holdsSecret(parts[index]) {
          let shown = redacted(parts[index])
          parts[index] = holdsSecret(shown) ? "***" : shown
        }
      } else {
        for secret in secrets where secret.count >= 4 {
          parts[index] = parts[index].replacingOccurrences(of: secret, with: "***")
        }
      }
    }
    return parts.joined(separator: "\"")
  }

  /// The passwords `url` holds, as written: the one of its authority (`user:password@`) and
  /// that of each `password=` parameter.
  static func passwords(in url: String) -> [Substring] {
    passwordRanges(in: url).map { url[$0] }
  }

  /// Where `url`'s passwords are, in order: the authority's (`user:password@`), then each
  /// `password=` parameter's value after it.
  static func passwordRanges(in url: String) -> [Range<String.Index>] {
    var found: [Range<String.Index>] = []
    if let scheme = url.range(of: "://") {
      let authorityEnd = url[scheme.upperBound...].firstIndex(where: { "/?".contains($0) })
      let authority = scheme.upperBound..<(authorityEnd ?? url.endIndex)
      if let at = url[authority].lastIndex(of: "@"),
        let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
      {
        found.append(url.index(after: colon)..<at)
      }
    }
    var rest = url[(found.first?.upperBound ?? url.startIndex)...]
    while let range = rest.range(of: "password=") {
      rest = rest[range.upperBound...]
      let end = rest.firstIndex(where: { $0 == "&" || $0 == " " }) ?? rest.endIndex
      found.append(rest.startIndex..<end)
      rest = rest[end...]
    }
    return found
  }

  /// `url` with its password replaced by `***`, in both the URL and the `key=value` forms.
  public static func redacted(_ url: String) -> String {
    var text = url
    for range in passwordRanges(in: url).reversed() { text.replaceSubrange(range, with: "***") }
    return text
  }
}

extension Substring {
  fileprivate func trimmingSpaces() -> String {
    String(
      drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " }).reversed())
  }
}
