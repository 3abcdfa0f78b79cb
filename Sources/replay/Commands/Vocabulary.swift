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
    if let problem = EnvelopeRules.problem(withStreamName: stream) {
      throw EngineError.invalidEvent(location: location(), problem: problem)
    }
    do throws(EventsError) {
      try EventVocabulary.validate(
        type: event.type, schemaVersion: event.schemaVersion, data: event.data, stream: stream)
    } catch {
      throw EngineError.invalidEvent(location: location(), problem: error.description)
    }
  }
}
