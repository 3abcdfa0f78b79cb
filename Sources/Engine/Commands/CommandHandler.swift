import Events

/// What handling a command did.
public struct CommandResult: Sendable, Equatable {
  /// The events appended (or, for ids already in the log, the copies already there).
  public var events: [RecordedEvent]
  /// Why nothing was appended, when nothing was.
  public var noChangeReason: String?
  /// The stream's version the decision was made against.
  public var versionDecidedOn: Int64
}

extension EventStorage {
  /// Handles one domain command: reads its stream, folds it into the Decider's state, decides,
  /// and appends the events with the version it read as the expected version, so a racing
  /// writer that changed the stream in between cannot be overwritten on a stale state.
  ///
  /// - Parameters:
  ///   - command: the command; its stream is the only one read.
  ///   - decider: the domain's Decider.
  ///   - metadata: who and why, stored on every appended event.
  ///   - expectedVersion: the version the caller believes the stream is at. With `nil` the
  ///     version read is expected, and a race with another writer is retried (reload, decide
  ///     again) up to `retries` times; with a value, a stream at any other version is a
  ///     conflict and nothing is retried.
  /// - Throws: `EventsError` when the command breaks a rule; `EngineError.versionConflict`,
  ///   `.lockTimeout`, `.io`, ...
  public func handle<D: Decider>(
    _ command: D.Command, with decider: D.Type, metadata: EventMetadata = EventMetadata(),
    expectedVersion: ExpectedVersion? = nil, retries: Int = 3
  ) throws -> CommandResult {
    var attempt = 0
    while true {
      let (recorded, version) = try events(inStream: command.streamName)
      if let expectedVersion, !expectedVersion.isSatisfied(byStreamVersion: version) {
        throw EngineError.versionConflict(
          stream: command.streamName, expected: expectedVersion, actual: version)
      }
      let state = try D.fold(recorded.compactMap { try domainEvent(of: $0, for: decider) })
      let decision = try D.decision(command, state)
      guard !decision.events.isEmpty else {
        return CommandResult(
          events: [], noChangeReason: decision.noChangeReason ?? "nothing to change",
          versionDecidedOn: version)
      }
      let proposed = decision.events.map {
        EventVocabulary.proposedEvent(D.domainEvent($0), metadata: metadata)
      }
      // Deciders only emit events for the stream they decided on.
      precondition(
        proposed.allSatisfy { $0.stream == command.streamName },
        "\(D.self) emitted an event for another stream than \(command.streamName)")
      do {
        let outcomes = try append(
          proposed.map(\.event), to: command.streamName, expectedVersion: .exactly(version))
        return CommandResult(
          events: outcomes.map(\.event), noChangeReason: nil, versionDecidedOn: version)
      } catch EngineError.versionConflict where expectedVersion == nil && attempt < retries {
        // Another writer changed the stream between our read and our append: decide again.
        attempt += 1
      }
    }
  }
}

extension EventLog {
  /// The typed event inside a recorded one, for `decider`'s domain.
  public func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws
    -> D.Event?
  {
    try event.domainEvent(for: decider, log: openLog)
  }
}
