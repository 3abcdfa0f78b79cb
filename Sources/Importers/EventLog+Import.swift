import Engine
import Events

/// What an import did.
package struct ImportResult: Sendable, Equatable {
  /// The plan that was written (the last one, when a race made the import plan again).
  public var plan: ImportPlan
  /// Events appended.
  public var appendedCount: Int
  /// Events whose ids were already in the log with the same content (an identical import
  /// raced this one and wrote them first).
  public var duplicateCount: Int
  /// The sequence numbers appended, if any.
  public var sequences: ClosedRange<Int64>?
  /// How many times the import planned: 2 when another writer changed a stream in between.
  public var attempts: Int

  public init(
    plan: ImportPlan, appendedCount: Int, duplicateCount: Int, sequences: ClosedRange<Int64>?,
    attempts: Int
  ) {
    self.plan = plan
    self.appendedCount = appendedCount
    self.duplicateCount = duplicateCount
    self.sequences = sequences
    self.attempts = attempts
  }
}

extension EventLog {
  /// Imports a parsed source: reads every stream its records touch under one lock, plans with
  /// the Deciders' import commands (`ImportPlanner`), and appends all the events as one atomic
  /// write synced every `chunkSize` events (`importEvents`).
  ///
  /// Each stream's write expects the version the plan read. When another writer changed one
  /// in between, the import reads and plans again, once.
  ///
  /// - Parameters:
  ///   - parsed: the source's records.
  ///   - metadata: stored on every event (see `ImportPlanner.metadata`).
  ///   - skipInvalid: `false` (all or nothing): any problem in `parsed`, or any record a rule
  ///     refuses, fails the import before anything is written. `true`: the valid records are
  ///     imported; the caller reports the others.
  ///   - includeErased: bring erased contacts the source holds back, under new keys.
  ///   - chunkSize: events per sync.
  ///   - progress: told how planning and writing go.
  /// - Throws: `ImportError.invalidRecords`, `ImportError.raced` after a second conflict, and
  ///   the log's errors (`.lockTimeout`, `.io`, ...). Nothing is written when anything is thrown.
  package func importRecords(
    _ parsed: ParsedSource, metadata: EventMetadata, skipInvalid: Bool = false,
    includeErased: Bool = false, chunkSize: Int = 1000, progress: ImportProgressHandler? = nil
  ) throws -> ImportResult {
    try importRecords(
      parsed, metadata: metadata, skipInvalid: skipInvalid, includeErased: includeErased,
      chunkSize: chunkSize, progress: progress, beforeWriting: { _ in })
  }

  /// `importRecords`, with a hook that runs between planning and writing (tests race it).
  func importRecords(
    _ parsed: ParsedSource, metadata: EventMetadata, skipInvalid: Bool,
    includeErased: Bool = false, chunkSize: Int, progress: ImportProgressHandler?,
    beforeWriting: (_ attempt: Int) throws -> Void
  ) throws -> ImportResult {
    let store = ImportStore(
      name: path, storage: nil, read: { try self.events(inStreams: $0) },
      write: { try self.importEvents($0, chunkSize: chunkSize) })
    return try store.importRecords(
      parsed, metadata: metadata, skipInvalid: skipInvalid, includeErased: includeErased,
      progress: progress, beforeWriting: beforeWriting)
  }
}

/// Where an import reads the streams its records decide on and writes what it plans: a log
/// file (`EventLog.importRecords`), or a store kept elsewhere (a PostgreSQL database).
package struct ImportStore {
  /// The store's name in messages: the log file's path, or the database's URL without its
  /// password.
  package var name: String
  /// The store, when it is not the log file at `name`: its keys open sealed personal data.
  package var storage: (any EventStorage)?
  /// Every event of each stream, as one snapshot; a stream with none maps to `.empty`.
  package var read: ([String]) throws -> EventLog.StreamHistories
  /// Appends the writes as one atomic write, or nothing: a stream not at its expected version
  /// throws `EngineError.versionConflict`.
  package var write: ([EventLog.StreamWrite]) throws -> EventLog.ImportSummary

  package init(
    name: String, storage: (any EventStorage)?,
    read: @escaping ([String]) throws -> EventLog.StreamHistories,
    write: @escaping ([EventLog.StreamWrite]) throws -> EventLog.ImportSummary
  ) {
    self.name = name
    self.storage = storage
    self.read = read
    self.write = write
  }

  /// Imports a parsed source into the store: reads every stream its records touch, plans with
  /// the Deciders' import commands and writes the plan, as `EventLog.importRecords` describes.
  package func importRecords(
    _ parsed: ParsedSource, metadata: EventMetadata, skipInvalid: Bool = false,
    includeErased: Bool = false, progress: ImportProgressHandler? = nil,
    beforeWriting: (_ attempt: Int) throws -> Void = { _ in }
  ) throws -> ImportResult {
    if !skipInvalid { try parsed.requireValid() }
    let streams = ImportPlanner.streams(of: parsed)
    let attempts = 2
    for attempt in 1...attempts {
      let histories = try read(streams)
      let plan = try ImportPlanner.plan(
        parsed, histories: histories, logPath: name, storage: storage, metadata: metadata,
        includeErased: includeErased, progress: progress)
      if !skipInvalid, !plan.rejected.isEmpty {
        throw ImportError.invalidRecords(
          kind: parsed.kind, source: parsed.sourceName, recordCount: parsed.recordCount,
          problems: plan.rejected)
      }
      guard !plan.writes.isEmpty else {
        return ImportResult(
          plan: plan, appendedCount: 0, duplicateCount: 0, sequences: nil, attempts: attempt)
      }
      try beforeWriting(attempt)
      progress?(.writing, 0, plan.events.count)
      do {
        let summary = try write(plan.writes)
        progress?(.writing, plan.events.count, plan.events.count)
        return ImportResult(
          plan: plan, appendedCount: summary.appendedCount,
          duplicateCount: summary.duplicateCount, sequences: summary.sequences, attempts: attempt)
      } catch EngineError.versionConflict(let stream, _, _) {
        // Another writer changed a stream after we read it: read again and decide again.
        if attempt == attempts { throw ImportError.raced(stream: stream, attempts: attempts) }
      }
    }
    preconditionFailure("the loop returns or throws")
  }
}

extension ImportPlanner {
  /// The metadata of an import's events: `actor` as given, `reason` as given or
  /// `import <kind> from <source>`, and a `correlation` shared by the whole import
  /// (`ImportIdentity.correlation`).
  public static func metadata(for parsed: ParsedSource, actor: String?, reason: String?)
    -> EventMetadata
  {
    EventMetadata(
      actor: actor, reason: reason ?? "import \(parsed.kind.rawValue) from \(parsed.sourceName)",
      correlation: ImportIdentity.correlation(
        kind: parsed.kind, source: parsed.sourceName, sourceDigest: parsed.sourceDigest))
  }
}
