import Dispatch
import Events
import Projections

/// The engine for an app: one log, `async` calls that never block the caller's thread (the
/// file work, `fdatasync` included, runs on the store's own queue), domain commands whose
/// Decider is chosen by the command, read models now or at any point, typed events, and live
/// subscriptions.
///
/// ```swift
/// let store = try EventStore(path: logURL.path)
/// try await store.handle(ContactCommand.favoriteContact(id: ContactID("13")))
/// let models = try await store.readModels()
/// for try await update in store.updates(of: [ContactList.name]) { show(update.models.contacts) }
/// ```
///
/// One store per log file per process; it is `Sendable`, and calls from any task are run one
/// after another. A store can keep its log in PostgreSQL too (the `Postgres` module's
/// `EventStore(postgresURL:configuration:upcasters:)`): the same calls, the same behaviour.
/// See docs/LIBRARY.md.
public final class EventStore: Sendable {
  /// The log file underneath, for what the store does not wrap (synchronous, thread-safe);
  /// nil for a store whose log is kept in PostgreSQL.
  public var log: EventLog? { backend.log }
  /// The upcasters `recordedEvents(inStream:)` applies to the app's own event types.
  public let upcasters: PayloadUpcasters
  private let backend: any EventStoreBackend
  private let queue: DispatchQueue

  /// Opens (creating on the first append) the log at `path`.
  /// - Parameter upcasters: steps that bring the app's own event types to their newest schema
  ///   version as they are read (see `PayloadUpcasters`).
  /// - Throws: `EngineError` when the file is not a log, is corrupt, or cannot be opened.
  public convenience init(
    path: String, configuration: EventLog.Configuration = EventLog.Configuration(),
    upcasters: PayloadUpcasters = PayloadUpcasters()
  ) async throws {
    try await self.init(upcasters: upcasters) {
      FileStoreBackend(log: try EventLog(path: path, configuration: configuration))
    }
  }

  /// A store over the backend `open` makes, on the store's queue.
  package init(
    upcasters: PayloadUpcasters,
    opening open: @escaping @Sendable () throws -> any EventStoreBackend
  ) async throws {
    let queue = DispatchQueue(label: "replay.event-store")
    self.queue = queue
    self.upcasters = upcasters
    backend = try await Self.run(on: queue, open)
  }

  /// Where the log is: the log file's path, or, for a log kept in PostgreSQL, the database's
  /// URL without its password.
  public var path: String { backend.location }

  // MARK: Writing

  /// Runs a domain command: its stream is read, its domain's Decider decides, and the events
  /// are appended (and synced) with the version read as the expected version.
  /// - Throws: `EventsError` when the command breaks a rule; `EngineError.versionConflict` when
  ///   `expectedVersion` is given and the stream is elsewhere; `EngineError` for I/O.
  @discardableResult
  public func handle<Command: DecidedCommand>(
    _ command: Command, metadata: EventMetadata = EventMetadata(),
    expectedVersion: ExpectedVersion? = nil
  ) async throws -> CommandResult {
    let backend = backend
    return try await run {
      try backend.handle(command, metadata: metadata, expectedVersion: expectedVersion)
    }
  }

  /// Appends raw events to one stream atomically (see `EventLog.append(_:to:expectedVersion:)`).
  @discardableResult
  public func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion = .any
  ) async throws -> [EventLog.Outcome] {
    let backend = backend
    return try await run {
      try backend.append(events, to: stream, expectedVersion: expectedVersion)
    }
  }

  // MARK: Reading

  /// The read models (all five, or `models`) as they were at `point`, from the newest usable
  /// checkpoint plus the events after it.
  public func readModels(
    at point: ReplayPoint = .end, models: Set<String>? = nil
  ) async throws -> ReadModels {
    let backend = backend
    return try await run { try backend.readModels(at: point, models: models) }
  }

  /// A stream's events, typed for `Command`'s domain, oldest first, and the stream's version.
  public func events<D: Decider>(
    inStream stream: String, as decider: D.Type
  ) async throws -> (events: [D.Event], version: Int64) {
    let backend = backend
    return try await run {
      let (recorded, version) = try backend.events(inStream: stream)
      return (try recorded.compactMap { try backend.domainEvent(of: $0, for: D.self) }, version)
    }
  }

  /// A stream's events, oldest first, each of the app's own types brought to its newest
  /// schema version by `upcasters` (the engine's types as the log holds them), and the
  /// stream's version.
  /// - Throws: `UpcastError` when an upcaster fails; `EngineError` for I/O.
  public func recordedEvents(
    inStream stream: String
  ) async throws -> (events: [RecordedEvent], version: Int64) {
    let backend = backend
    let upcasters = upcasters
    return try await run {
      let (events, version) = try backend.events(inStream: stream)
      guard !upcasters.isEmpty else { return (events, version) }
      return (try events.map { event throws(UpcastError) in try upcasters.upcast(event) }, version)
    }
  }

  // MARK: Live

  /// The events appended from `start` on, by this process or any other (see `LogSubscription`).
  public func subscribe(
    from start: FollowStart = .end, filter: EventFilter = EventFilter()
  ) -> LogSubscription {
    LogSubscription(backend: backend, from: start, filter: filter)
  }

  /// The read models, kept current as events are appended (see `ReadModelUpdates`).
  public func updates(of models: Set<String>? = nil) -> ReadModelUpdates {
    ReadModelUpdates(backend: backend, models: models)
  }

  // MARK: Running off the caller's thread

  private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await Self.run(on: queue, work)
  }

  private static func run<T: Sendable>(
    on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try work() }) }
    }
  }
}
