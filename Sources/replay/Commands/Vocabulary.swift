import Engine
import Events

/// The check every raw append goes through before it reaches the log.
enum Vocabulary {
  /// Checks the envelope-level rules for `event` in `stream`, naming `location` in errors.
  static func check(_ event: ProposedEvent, stream: String, location: String?) throws {
    if let problem = EnvelopeRules.problem(withStreamName: stream) {
      throw EngineError.invalidEvent(location: location, problem: problem)
    }
    if let problem = EnvelopeRules.problem(withTypeName: event.type) {
      throw EngineError.invalidEvent(location: location, problem: problem)
    }
  }
}
