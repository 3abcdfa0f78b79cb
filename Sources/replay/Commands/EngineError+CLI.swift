import Engine
import Events

extension EngineError: CLIError {
  /// Each engine error's documented exit status.
  var exitCode: ExitCode {
    switch self {
    case .fileNotFound: .inputUnavailable
    case .io: .ioError
    case .corruptLine: .ioError
    case .lockTimeout: .temporaryFailure
    case .versionConflict: .versionConflict
    case .duplicateEventID: .invalidInput
    case .invalidEvent: .invalidInput
    case .undecodableEvent: .ioError
    case .unsupportedSchemaVersion: .ioError
    case .notALog: .ioError
    case .keyStore: .ioError
    }
  }

  var message: String {
    if case .fileNotFound(let path) = self {
      return
        "no event log at '\(path)'; pass --log <path> or set REPLAY_LOG "
        + "(the shipped sample is eventlogs/sample.jsonl)"
    }
    return description
  }
}

extension EventsError: CLIError {
  /// Domain errors are about the input: a bad value, an unknown event type, a broken rule.
  var exitCode: ExitCode { .invalidInput }

  var message: String { description }
}

/// A problem with an input file or its content, with the exit status it deserves.
struct InputError: CLIError {
  var exitCode: ExitCode
  var message: String

  static func invalid(_ message: String) -> InputError {
    InputError(exitCode: .invalidInput, message: message)
  }

  static func unavailable(_ message: String) -> InputError {
    InputError(exitCode: .inputUnavailable, message: message)
  }
}

extension FollowError: CLIError {
  /// A followed log that was replaced or cut is the log's trouble, as a corrupt one is.
  var exitCode: ExitCode { .ioError }

  var message: String { description }
}
