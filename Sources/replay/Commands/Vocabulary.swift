import Engine
import Events

/// The check every raw append goes through before it reaches the log.
enum Vocabulary {
  /// Checks `event` for `stream` against the envelope rules and the domain vocabulary: a known
  /// type, a readable schema version, a strictly valid payload, and the stream the payload names.
  /// - Throws: `EngineError.invalidEvent` naming `location` (a file line) when there is one.
  static func check(
    _ event: ProposedEvent, stream: String, location: @autoclosure () -> String?
  ) throws {
    try EventsFile.check(event, stream: stream, location: location())
  }
}
