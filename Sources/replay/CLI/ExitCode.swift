/// The status `replay` exits with; the values follow BSD `sysexits.h` where one fits.
///
/// Scripts depend on these numbers, so a case's raw value never changes once released.
enum ExitCode: Int32, CaseIterable, Sendable {
  /// The command did what was asked.
  case success = 0
  /// An unexpected internal error: a bug in `replay`.
  case internalError = 1
  /// The stream changed since it was read (expected-version conflict): reload and retry.
  case versionConflict = 3
  /// The command line is wrong (`EX_USAGE`).
  case usageError = 64
  /// The input data is invalid: bad JSON, an unknown event type, a rule violation (`EX_DATAERR`).
  case invalidInput = 65
  /// An input file is missing or unreadable, including a missing log (`EX_NOINPUT`).
  case inputUnavailable = 66
  /// A remote source is unavailable: a network or HTTP failure (`EX_UNAVAILABLE`).
  case remoteUnavailable = 69
  /// An output file cannot be created (`EX_CANTCREAT`).
  case cannotCreateOutput = 73
  /// The log is corrupt or an I/O error occurred; `verify` also uses it when it finds problems
  /// (`EX_IOERR`).
  case ioError = 74
  /// A temporary failure, such as a lock timeout: trying again later may succeed (`EX_TEMPFAIL`).
  case temporaryFailure = 75
  /// A database refused the user or the password (`EX_NOPERM`).
  case permissionDenied = 77

  /// One line describing the status, as listed in ``documentation``.
  var summary: String {
    switch self {
    case .success: "Success."
    case .internalError: "Unexpected internal error."
    case .versionConflict: "Expected-version conflict: the stream changed; reload and retry."
    case .usageError: "Usage error: bad command line."
    case .invalidInput: "Invalid input data: bad JSON, unknown event type, rule violation."
    case .inputUnavailable: "Input file missing or unreadable, including a missing log."
    case .remoteUnavailable: "A remote source is unavailable: network or HTTP failure."
    case .cannotCreateOutput: "Cannot create an output file."
    case .ioError: "Log corrupt or I/O error; also 'verify' finding problems."
    case .temporaryFailure: "Temporary failure: lock timeout."
    case .permissionDenied: "Permission denied: the database refused the user or password."
    }
  }

  /// Every exit status with its summary, as a block for help text and the README:
  ///
  ///     EXIT CODES:
  ///       0   Success.
  ///       1   Unexpected internal error.
  ///       ...
  static let documentation: String = {
    let rows = allCases.map { code in
      let number = String(code.rawValue)
      return "  " + number + String(repeating: " ", count: 4 - number.count) + code.summary
    }
    return (["EXIT CODES:"] + rows).joined(separator: "\n")
  }()
}
