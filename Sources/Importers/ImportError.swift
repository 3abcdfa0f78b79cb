import Events

/// Everything that can stop an import before it writes, each with where, what was expected and
/// what was found. The log is never touched when one of these is thrown.
package enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
  // MARK: Reading the source

  /// The source file does not exist.
  case fileNotFound(path: String)
  /// The source path names a directory.
  case isDirectory(path: String)
  /// The source file exists but cannot be read.
  case unreadable(path: String, reason: String)
  /// The source is not an `http://` or `https://` URL nor a file path (`ftp://...`).
  case unsupportedURL(String)
  /// The server could not be reached (no network, DNS failure, connection refused, timeout),
  /// after `attempts` tries.
  case unreachable(url: String, reason: String, attempts: Int)
  /// The server answered with an error status, after `attempts` tries (1 for a 4xx status,
  /// which is not retried).
  case httpStatus(url: String, status: Int, attempts: Int)

  // MARK: The source's content

  /// The source is not valid JSON. `line` and `column` count from 1; `isRemote` says the
  /// source is a URL (the server did not return JSON).
  case notJSON(source: String, isRemote: Bool, line: Int, column: Int, syntax: JSONSyntaxError)
  /// The source looks like a property list but is not a valid one.
  case notPropertyList(source: String, line: Int?, column: Int?, problem: String)
  /// The source is neither JSON nor a property list (states accept both).
  case unrecognizedFormat(source: String, found: String)
  /// The source is JSON, but not laid out as `kind`'s sources are.
  case unexpectedLayout(source: String, kind: ImportKind, expected: String, found: String)
  /// Records are invalid and the import is all or nothing: `problems` lists every one.
  case invalidRecords(
    kind: ImportKind, source: String, recordCount: Int, problems: [RecordProblem])

  // MARK: Writing

  /// Other writers changed the streams being imported between planning and writing, on every
  /// one of `attempts` tries.
  case raced(stream: String, attempts: Int)

  public var description: String {
    switch self {
    case .fileNotFound(let path):
      return "no such file '\(path)'"
    case .isDirectory(let path):
      return "'\(path)' is a directory, not a file"
    case .unreadable(let path, let reason):
      return "cannot read '\(path)': \(reason)"
    case .unsupportedURL(let text):
      return
        "unsupported URL '\(text)': give an http:// or https:// URL, or the path of a file"
    case .unreachable(let url, let reason, let attempts):
      return "cannot reach \(url): \(reason)\(Self.afterAttempts(attempts))"
    case .httpStatus(let url, let status, let attempts):
      let phrase = HTTPStatus.reasonPhrase(status).map { " " + $0 } ?? ""
      let answer = "\(url) answered HTTP \(status)\(phrase)"
      guard HTTPStatus.isRetryable(status) else {
        return answer + "; a \(status / 100)xx status is not retried"
      }
      return answer + Self.afterAttempts(attempts)
    case .notJSON(let source, let isRemote, let line, let column, let syntax):
      let place =
        "line \(line), column \(column): expected \(syntax.expected), found \(syntax.found)"
      return isRemote
        ? "\(source) did not return JSON: \(place)"
        : "'\(source)' is not valid JSON: \(place)"
    case .notPropertyList(let source, let line, let column, let problem):
      let place = line.map { "line \($0), column \(column ?? 1): " } ?? ""
      return "'\(source)' is not a valid property list: \(place)\(problem)"
    case .unrecognizedFormat(let source, let found):
      return
        "'\(source)' is neither JSON nor a property list: it starts with \(found); "
        + "expected '{' or '[' (JSON) or '<?xml' (an XML property list)"
    case .unexpectedLayout(let source, let kind, let expected, let found):
      return
        "'\(source)' is not laid out as \(kind.rawValue) are: expected \(expected), found \(found)"
    case .invalidRecords(let kind, let source, let recordCount, let problems):
      return Self.describeInvalidRecords(
        kind: kind, source: source, recordCount: recordCount, problems: problems)
    case .raced(let stream, let attempts):
      return
        "another writer changed stream '\(stream)' while this import was being written "
        + "(\(attempts) attempts); nothing was imported; run the import again"
    }
  }

  private static func afterAttempts(_ attempts: Int) -> String {
    attempts == 1 ? " (tried once)" : " (tried \(attempts) times)"
  }

  /// The heading and the list of an all-or-nothing import's invalid records:
  ///
  ///     3 of 21 contact records in 'bad.json' are invalid; nothing was imported (--skip-invalid imports the other 18):
  ///       contact record 2 (id '19'): field 'birthdate': "1988-02-30" — expected ...
  static func describeInvalidRecords(
    kind: ImportKind, source: String, recordCount: Int, problems: [RecordProblem]
  ) -> String {
    let invalid = Set(problems.map(\.index)).count
    let rejected = Set(problems.filter(\.rejectsRecord).map(\.index)).count
    let entries = problems.filter { !$0.rejectsRecord }.count
    let heading: String
    if rejected == invalid {
      let valid = recordCount - invalid
      heading =
        "\(invalid) of \(kind.records(recordCount)) in '\(source)' \(invalid == 1 ? "is" : "are") "
        + "invalid; nothing was imported"
        + (valid > 0 ? " (--skip-invalid imports the other \(valid))" : "")
    } else if rejected == 0 {
      heading =
        "\(entries) invalid \(kind.entryNoun(entries)) in \(invalid) of "
        + "\(kind.records(recordCount)) in '\(source)'; nothing was imported (--skip-invalid "
        + "imports everything else)"
    } else {
      heading =
        "\(invalid) of \(kind.records(recordCount)) in '\(source)' have problems "
        + "(\(problems.count)); nothing was imported (--skip-invalid imports the rest, leaving "
        + "out what is listed)"
    }
    return heading + ":\n" + problems.map { "  \($0)" }.joined(separator: "\n")
  }
}

/// HTTP status reason phrases (RFC 9110) for messages.
enum HTTPStatus {
  static func reasonPhrase(_ status: Int) -> String? {
    switch status {
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 406: "Not Acceptable"
    case 408: "Request Timeout"
    case 410: "Gone"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: nil
    }
  }

  /// Whether a request that got `status` may succeed when sent again.
  static func isRetryable(_ status: Int) -> Bool {
    status == 429 || (500..<600).contains(status)
  }
}
