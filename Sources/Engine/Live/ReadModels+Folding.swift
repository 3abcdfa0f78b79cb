import Events
import Projections

extension ReadModels {
  /// Folds one more event, read from the log at `path`, into the models (what a follower does
  /// with each event it is handed).
  /// - Throws: `EngineError.undecodableEvent` when the payload does not decode.
  public mutating func fold(_ event: RecordedEvent, path: String) throws {
    if let decoded = try PersonalData.decode(event, log: OpenLog.named(path)) {
      apply(decoded, at: EventContext(event))
    }
  }
}
