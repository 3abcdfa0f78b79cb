import Engine
import Events
import Projections
import Synchronization

extension EventStore {
  /// Opens the log kept in PostgreSQL at `postgresURL`, in Message DB's schema (made by
  /// `replay pg init <url>`): the same calls and behaviour as a store over a file, with
  /// several processes, on any number of machines, appending to it at once.
  ///
  /// ```swift
  /// let store = try await EventStore(postgresURL: "postgresql://db.example/app")
  /// try await store.handle(ContactCommand.favoriteContact(id: ContactID("13")))
  /// ```
  ///
  /// Writes go through one connection of the store, made again on the next call after the
  /// server went away; reads open a connection each; each subscription holds its own and
  /// ends with `PostgresError.connectionLost` when the server goes away (subscribe again from
  /// the last seq handled). `log` is nil: there is no file.
  /// - Parameters:
  ///   - postgresURL: a libpq connection string (`postgresql://user@host/database`, TLS with
  ///     `?sslmode=require` or `verify-full`).
  ///   - configuration: the clock, the event ids and `lockTimeout` (the wait for another
  ///     writer) as for a file; `syncPolicy` `.never` commits with `synchronous_commit = off`.
  ///   - upcasters: as for a file.
  /// - Throws: `PostgresError`: `.libraryMissing` (no libpq here), `.connectionFailed` (no
  ///   server there), `.authenticationFailed`, `.schemaMissing` (run `replay pg init`).
  public convenience init(
    postgresURL: String, configuration: EventLog.Configuration = EventLog.Configuration(),
    upcasters: PayloadUpcasters = PayloadUpcasters()
  ) async throws {
    try await self.init(upcasters: upcasters) {
      try MessageStoreBackend(url: postgresURL, configuration: configuration)
    }
  }
}

/// A log kept in PostgreSQL as an `EventStore` keeps it: `MessageStoreWriter` for commands and
/// appends, `MessageStoreLog` for read models (from `replay_checkpoints`), and
/// `MessageStoreFollower` for subscriptions and read models that follow.
package final class MessageStoreBackend: EventStoreBackend {
  /// The database, as a libpq connection string.
  package let url: String
  package let configuration: EventLog.Configuration
  /// The writer, connected; nil after its connection was lost, until the next call.
  private let writer: Mutex<MessageStoreWriter?>

  /// Connects the writer and checks the schema.
  /// - Throws: `PostgresError`.
  package init(url: String, configuration: EventLog.Configuration) throws(PostgresError) {
    self.url = url
    self.configuration = configuration
    writer = Mutex(try MessageStoreWriter(url: url, configuration: configuration))
  }

  package var location: String { PostgresConnection.redacted(url) }

  package var log: EventLog? { nil }

  package func handle<Command: DecidedCommand>(
    _ command: Command, metadata: EventMetadata, expectedVersion: ExpectedVersion?
  ) throws -> CommandResult {
    try withWriter {
      try $0.handle(
        command, with: Command.DecidedBy.self, metadata: metadata,
        expectedVersion: expectedVersion)
    }
  }

  package func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion
  ) throws -> [EventLog.Outcome] {
    try withWriter { try $0.append(events, to: stream, expectedVersion: expectedVersion) }
  }

  /// The models at `point` through the one fold, from the newest checkpoint of
  /// `replay_checkpoints` that matches; every model is folded (`models` is a file's shortcut).
  package func readModels(at point: ReplayPoint, models: Set<String>?) throws -> ReadModels {
    try MessageStoreLog(url: url).readModels(at: point, usingCheckpoints: true).models
  }

  package func events(inStream stream: String) throws -> (
    events: [RecordedEvent], version: Int64
  ) {
    try withWriter { try $0.events(inStream: stream) }
  }

  package func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws
    -> D.Event?
  {
    try withWriter { writer in
      try writer.domainEvent(of: event, for: decider).map { Unchecked(value: $0) }
    }?.value
  }

  package func follower(from start: FollowStart, filter: EventFilter) -> any EventFollowing {
    StoreFollower(MessageStoreFollower(url: url, from: start, filter: filter))
  }

  /// The models from the newest checkpoint of `replay_checkpoints` that matches, as
  /// `readModels(at:models:)` loads them (so the first update equals `readModels()`), then
  /// the rows after it, then each new burst; every model is folded (`models` is a file's
  /// shortcut: `LineFold` folds every model).
  package func followModels(
    _ models: Set<String>?, started: (any EventFollowing) -> Bool,
    _ body: (LogFollower.FollowedModels) throws -> Bool
  ) throws {
    let follower = StoreFollower(MessageStoreFollower(url: url))
    guard started(follower) else { return }
    var isFirst = true
    try follower.reportingLoss {
      try follower.follower.follow { result, newEventCount in
        // The first call: the models at the end of what the table holds.
        let count = isFirst ? 0 : newEventCount
        guard isFirst || count > 0 else { return true }
        isFirst = false
        return try body(
          LogFollower.FollowedModels(
            models: result.models, sequence: result.lastSequence, newEventCount: count))
      }
    }
  }

  /// Runs `body` with the writer, connecting it first when its connection was lost.
  private func withWriter<Result: Sendable>(
    _ body: (MessageStoreWriter) throws -> Result
  ) throws -> Result {
    try writer.withLock { writer throws -> Result in
      let current = try writer ?? MessageStoreWriter(url: url, configuration: configuration)
      writer = current
      do {
        return try body(current)
      } catch PostgresError.connectionLost(let message) {
        // The next call connects again.
        current.close()
        writer = nil
        throw PostgresError.connectionLost(message: message)
      }
    }
  }

  /// A domain event handed out of the writer's lock: the store's queue is its only user.
  private struct Unchecked<Value>: @unchecked Sendable {
    var value: Value
  }
}

/// A database follower whose lost server ends following with `PostgresError.connectionLost`,
/// the error a library user can catch (the follower itself does not reconnect).
private final class StoreFollower: EventFollowing {
  let follower: MessageStoreFollower

  init(_ follower: MessageStoreFollower) {
    self.follower = follower
  }

  func stop() { follower.stop() }

  func follow(
    through last: Int64?, caughtUp: () throws -> Bool, _ body: (EventLine) throws -> Bool
  ) throws {
    try reportingLoss { try follower.follow(through: last, caughtUp: caughtUp, body) }
  }

  /// Runs `body`, turning the follower's lost server into `PostgresError.connectionLost`.
  func reportingLoss(_ body: () throws -> Void) throws {
    do {
      try body()
    } catch MessageStoreFollower.Failure.serverGone(let target, _, _, let message, let last) {
      throw PostgresError.connectionLost(
        message:
          "'\(target)' went away while it was followed (\(message)); every event up to seq \(last) was read: subscribe again from .afterSequence(the last seq handled) once the server is back"
      )
    }
  }
}
