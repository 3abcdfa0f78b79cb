import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Everything that can go wrong in the engine, each case with where, what was expected and what
/// was found.
public enum EngineError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file does not exist.
  case fileNotFound(path: String)
  /// A system call failed; `code` is the `errno` value.
  case io(path: String, operation: String, code: Int32)
  /// A line of the log cannot be trusted: bad checksum, bad envelope, bad sequence.
  /// `line` is 1-based; `offset` is the byte offset where the line starts.
  case corruptLine(path: String, line: Int, offset: Int64, problem: String)
  /// Another writer held the log's lock for longer than the timeout.
  case lockTimeout(path: String, seconds: Double)
  /// The stream was not at the version the append expected.
  case versionConflict(stream: String, expected: ExpectedVersion, actual: Int64)
  /// An event id that is already in the log arrived with different content.
  case duplicateEventID(id: EventID, existingSequence: Int64, difference: String)
  /// An event offered for appending is not acceptable; `location` says which one
  /// (e.g. `events.jsonl:3` or `event 2 of 5`) when there are several.
  case invalidEvent(location: String?, problem: String)
  /// A stored event's payload does not decode as its type's payload (`sequence` names it).
  case undecodableEvent(path: String, sequence: Int64, problem: String)
  /// An event's schema version is newer than this engine understands.
  case unsupportedSchemaVersion(type: String, found: Int, newestKnown: Int, location: String)
  /// The path names something that is not an event log (not a regular file, or a file whose
  /// first line is not a log line); nothing was read from or written to it.
  case notALog(path: String, problem: String)
  /// The key store beside the log is missing a key the log needs, damaged, or cannot be read
  /// or written.
  case keyStore(KeyStoreError)

  public var description: String {
    switch self {
    case .keyStore(let error):
      return error.description
    case .fileNotFound(let path):
      return "no such file '\(path)'"
    case .io(let path, let operation, let code):
      var text = "\(operation) '\(path)' failed: \(systemErrorMessage(code))"
      if code == EFBIG {
        text += " (the file would pass the size limit set by 'ulimit -f')"
      }
      return text
    case .notALog(let path, let problem):
      return "'\(path)' is not an event log: \(problem); it was left untouched"
    case .corruptLine(let path, let line, let offset, let problem):
      return "\(path):\(line): \(problem) (line starts at byte \(offset))"
    case .lockTimeout(let path, let seconds):
      let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
      return
        "another writer holds the lock on '\(path)'; gave up after \(shown) s "
        + "(retry, or raise --lock-timeout)"
    case .versionConflict(let stream, let expected, let actual):
      let found = actual == 0 ? "no events" : "version \(actual)"
      let wanted: String
      switch expected {
      case .any: wanted = "any version"
      case .noStream: wanted = "no stream"
      case .exactly(let version): wanted = version == 0 ? "no events" : "version \(version)"
      }
      return
        "stream '\(stream)' has \(found), but the append expected \(wanted); "
        + "reload the stream and retry"
    case .duplicateEventID(let id, let sequence, let difference):
      return
        "event id \(id) is already in the log at seq \(sequence) with different content "
        + "(\(difference)); use a new id for a new event"
    case .invalidEvent(let location, let problem):
      return location.map { "\($0): \(problem)" } ?? problem
    case .undecodableEvent(let path, let sequence, let problem):
      return "\(path): event \(sequence) (line \(sequence)) cannot be read: \(problem)"
    case .unsupportedSchemaVersion(let type, let found, let newest, let location):
      return
        "\(location): event type '\(type)' has schema version \(found), but this engine knows "
        + "versions up to \(newest); upgrade replay to read this log"
    }
  }
}

extension EngineError {
  /// Why the stored event at `sequence` of the log at `path` could not be decoded: a schema
  /// version newer than this engine's is named as such, anything else is undecodable.
  static func decoding(_ error: EventsError, path: String, sequence: Int64) -> EngineError {
    if case .unsupportedSchemaVersion(let type, let found, let newest) = error {
      return .unsupportedSchemaVersion(
        type: type, found: found, newestKnown: newest, location: "\(path):\(sequence)")
    }
    return .undecodableEvent(path: path, sequence: sequence, problem: error.description)
  }
}

extension RecordedEvent {
  /// The typed event inside, for `decider`'s domain (`nil` for another domain's event).
  /// - Throws: `EngineError.decoding` naming `log`; `.keyStore` when its personal data cannot
  ///   be opened.
  package func domainEvent<D: Decider>(for decider: D.Type, log: OpenLog) throws -> D.Event? {
    guard let domainEvent = try PersonalData.decode(self, log: log) else { return nil }
    return D.event(from: domainEvent)
  }
}
