import Events
import Projections

/// Where an `EventStore` keeps its log: a file (`FileStoreBackend`) or a database (the
/// `Postgres` module's backend). `EventStore`, `LogSubscription` and `ReadModelUpdates` are
/// written once over it.
///
/// The store calls every method but `follower` and `followModels` on its own serial queue,
/// one call after another; those two run on a subscription's own thread.
package protocol EventStoreBackend: Sendable {
  /// Where the log is, for messages and `EventStore.path`: a file's path, or a database's URL
  /// without its password.
  var location: String { get }

  /// The file log underneath, when the log is a file.
  var log: EventLog? { get }

  /// Runs a domain command (see `EventStorage.handle(_:with:metadata:expectedVersion:retries:)`).
  func handle<Command: DecidedCommand>(
    _ command: Command, metadata: EventMetadata, expectedVersion: ExpectedVersion?
  ) throws -> CommandResult

  /// Appends raw events to one stream atomically (see `EventStorage.append`).
  func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion
  ) throws -> [EventLog.Outcome]

  /// The read models (all, or `models`) at `point`, from the newest usable checkpoint.
  func readModels(at point: ReplayPoint, models: Set<String>?) throws -> ReadModels

  /// A stream's events, oldest first, and its version.
  func events(inStream stream: String) throws -> (events: [RecordedEvent], version: Int64)

  /// The typed event inside a recorded one, for `decider`'s domain (nil for another domain's).
  func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws -> D.Event?

  /// A follower of the log from `start`, delivering the events that pass `filter`.
  func follower(from start: FollowStart, filter: EventFilter) -> any EventFollowing

  /// Loads the read models (all, or `models`) at the end of the log and hands them to `body`
  /// (`newEventCount` 0), then folds each burst of new events into them and hands them over
  /// again, until `body` returns false, the follower is stopped, or an error. `started` is
  /// given the follower before it follows (return false to end at once), so that it can be
  /// stopped from another thread.
  func followModels(
    _ models: Set<String>?, started: (any EventFollowing) -> Bool,
    _ body: (LogFollower.FollowedModels) throws -> Bool
  ) throws
}

/// A log kept in a file: `EventLog` for writing, `LogReader`, `Replayer` and `CheckpointStore`
/// for reading, `LogFollower` for following; the calls `EventStore` made before it had a
/// backend, unchanged.
package struct FileStoreBackend: EventStoreBackend {
  /// The log file.
  package let eventLog: EventLog

  package init(log: EventLog) {
    eventLog = log
  }

  package var location: String { eventLog.path }

  package var log: EventLog? { eventLog }

  package func handle<Command: DecidedCommand>(
    _ command: Command, metadata: EventMetadata, expectedVersion: ExpectedVersion?
  ) throws -> CommandResult {
    try eventLog.handle(
      command, with: Command.DecidedBy.self, metadata: metadata, expectedVersion: expectedVersion)
  }

  package func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion
  ) throws -> [EventLog.Outcome] {
    try eventLog.append(events, to: stream, expectedVersion: expectedVersion)
  }

  package func readModels(at point: ReplayPoint, models: Set<String>?) throws -> ReadModels {
    let path = eventLog.path
    return try Replayer(reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path))
      .readModels(at: point, models: models).models
  }

  package func events(inStream stream: String) throws -> (
    events: [RecordedEvent], version: Int64
  ) {
    try eventLog.events(inStream: stream)
  }

  package func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws
    -> D.Event?
  {
    try eventLog.domainEvent(of: event, for: decider)
  }

  package func follower(from start: FollowStart, filter: EventFilter) -> any EventFollowing {
    LogFollower(path: eventLog.path, from: start, filter: filter)
  }

  package func followModels(
    _ models: Set<String>?, started: (any EventFollowing) -> Bool,
    _ body: (LogFollower.FollowedModels) throws -> Bool
  ) throws {
    try Self.followModels(path: eventLog.path, models, started: started, body)
  }

  /// `followModels` for the log at `path`: the first load from the newest checkpoint, as
  /// `replay state` does, then `LogFollower.follow(folding:through:caughtUp:)`.
  package static func followModels(
    path: String, _ models: Set<String>?, started: (any EventFollowing) -> Bool,
    _ body: (LogFollower.FollowedModels) throws -> Bool
  ) throws {
    let replayer = Replayer(
      reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path))
    let loaded = try replayer.readModels(at: .end, models: models)
    let first = LogFollower.FollowedModels(
      models: loaded.models, sequence: loaded.lastSequence, newEventCount: 0)
    guard try body(first) else { return }
    let follower = LogFollower(path: path, from: .afterSequence(loaded.lastSequence))
    guard started(follower) else { return }
    try follower.follow(folding: loaded.models, through: loaded.lastSequence) { followed in
      guard followed.newEventCount > 0 else { return true }
      return try body(followed)
    }
  }
}
