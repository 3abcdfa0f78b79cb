import Events
import Projections

extension LogFollower {
  /// The read models after a burst of new events (what `follow(folding:through:caughtUp:)`
  /// hands over at each wake).
  public struct FollowedModels: Sendable {
    /// Every model, after every event up to `sequence`.
    public var models: ReadModels
    /// The last event folded.
    public var sequence: Int64
    /// The events folded since the previous call (0 when the wake brought none).
    public var newEventCount: Int

    package init(models: ReadModels, sequence: Int64, newEventCount: Int) {
      self.models = models
      self.sequence = sequence
      self.newEventCount = newEventCount
    }
  }

  /// Follows the log from where `models` stand (after seq `sequence`), folding every new event
  /// into them with the replay's own fold (one decoder for a replay and a follow: the payload
  /// read once, personal data opened through the key ring, favourite toggles applied in
  /// place), and calls `caughtUp` at every wake once every committed event is folded (return
  /// false to stop). What `replay state --follow` and `ReadModelUpdates` run.
  ///
  /// `models` is folded in place when the caller keeps no other copy of it (a copy kept makes
  /// the first fold copy the models). The key ring is made afresh at each wake, so a key destroyed (or an erasure begun) by
  /// another process since the last wake is seen by the next event that needs it.
  /// - Throws: as `follow(through:caughtUp:_:)`, and `EngineError` for a payload that does not
  ///   decode or a key the store lacks.
  public func follow(
    folding models: ReadModels, through sequence: Int64,
    caughtUp: (FollowedModels) throws -> Bool
  ) throws {
    var state = FollowedModels(models: models, sequence: sequence, newEventCount: 0)
    var decoder = Replayer.FoldDecoder(log: reader.openLog)
    var timestamps = TimestampCache()
    func wake() throws -> Bool {
      let keepGoing = try caughtUp(state)
      state.newEventCount = 0
      decoder.keys = PersonalData.KeyRing(reader.openLog)
      return keepGoing
    }
    func fold(_ line: EventLine) throws -> Bool {
      let input = try decoder.input(for: line)
      Replayer.fold(input, of: line, at: timestamps.timestamp(of: line), into: &state.models)
      state.sequence = line.sequence
      state.newEventCount += 1
      return true
    }
    try follow(caughtUp: wake, fold)
  }
}
