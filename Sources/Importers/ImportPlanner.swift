import Engine
import Events

/// One event an import will append.
package struct PlannedEvent: Sendable, Equatable {
  /// The source record it comes from (its position, from 1).
  public var recordIndex: Int
  /// The stream it goes to.
  public var stream: String
  /// The stream version it will get.
  public var version: Int64
  /// The event type (`ContactAdded`).
  public var type: String
  /// What it does, in a few words (see `EventSummary`).
  public var summary: String
  /// The event, with its derived id and the import's metadata.
  public var event: ProposedEvent
}

/// A record an import leaves alone, and why.
package struct RecordOutcome: Sendable, Equatable {
  /// The record's position in the source, from 1.
  public var recordIndex: Int
  /// What identifies it (`id '13'`).
  public var label: String?
  /// Its stream.
  public var stream: String
  /// The decider's reason (`location '...' was removed; the import leaves it removed`).
  public var reason: String
}

/// How many events of one type an import appends.
package struct EventTypeCount: Sendable, Equatable {
  public var type: String
  public var count: Int
}

/// What an import will do: the writes, and what becomes of every record.
package struct ImportPlan: Sendable, Equatable {
  /// The kind of source.
  public var kind: ImportKind
  /// The source's name, as the events carry it.
  public var sourceName: String
  /// The events, in the order they will be appended (grouped by stream, streams in the order
  /// their first record appears in the source).
  public var events: [PlannedEvent]
  /// The same events as the writes to hand to `EventLog.importEvents`: one per stream, each
  /// expecting the version the plan was made against.
  public var writes: [EventLog.StreamWrite]
  /// How many records produce at least one event.
  public var changedRecordCount: Int
  /// Records whose stream already holds what they say (unchanged since the last import).
  public var unchanged: [RecordOutcome]
  /// Records whose entity a user removed: the import leaves it removed.
  public var keptRemoved: [RecordOutcome]
  /// Records a domain rule refused while deciding (the parsers check the same rules first, so
  /// this is normally empty).
  public var rejected: [RecordProblem]

  /// Event counts by type, in the order each type first appears.
  public var eventCounts: [EventTypeCount] {
    var counts: [EventTypeCount] = []
    var positions: [String: Int] = [:]
    for event in events {
      if let position = positions[event.type] {
        counts[position].count += 1
      } else {
        positions[event.type] = counts.count
        counts.append(EventTypeCount(type: event.type, count: 1))
      }
    }
    return counts
  }
}

/// Decides what a parsed source appends, with the Deciders' import commands and their
/// three-way rules: a record unchanged since the last import appends nothing, a changed one
/// appends change events, and an entity a user removed stays removed.
package enum ImportPlanner {
  /// Plans the import of `parsed` against `histories` (every stream its records touch; a
  /// stream missing from it has no events).
  ///
  /// Records are decided in source order. Several records for one stream are decided one after
  /// the other, each against the state with the previous ones' events applied. Every event
  /// gets the id `ImportIdentity.eventID` derives, and `metadata`.
  /// - Parameters:
  ///   - logPath: the log's path, for messages about events that cannot be read.
  ///   - storage: the store the histories come from when it is not the log file at `logPath`
  ///     (a database): its keys open sealed personal data.
  ///   - includeErased: bring erased contacts the source holds back, under new keys; without
  ///     it they are left erased and listed with the kept-removed records.
  /// - Throws: `EngineError.undecodableEvent` or `.unsupportedSchemaVersion` when a stored
  ///   event cannot be read.
  /// - Complexity: O(records + events in the streams).
  public static func plan(
    _ parsed: ParsedSource, histories: EventLog.StreamHistories, logPath: String,
    storage: (any EventStorage)? = nil, metadata: EventMetadata, includeErased: Bool = false,
    progress: ImportProgressHandler? = nil
  ) throws -> ImportPlan {
    let stored = StoredEvents(logPath: logPath, storage: storage)
    let parsed = try adoptingEarlierZooAnimals(parsed, histories: histories, stored: stored)
    var planning = Planning(
      parsed: parsed, histories: histories, stored: stored, metadata: metadata,
      progress: progress)
    planning.includeErased = includeErased
    switch parsed.kind {
    case .observations: try planning.decideAll(ObservationDecider.self)
    case .states: try planning.decideAll(USStateDecider.self)
    case .zoo: try planning.decideAll(ZooDecider.self)
    case .locations: try planning.decideAll(LocationDecider.self)
    case .contacts: try planning.decideAll(ContactDecider.self)
    }
    progress?(.planning, parsed.records.count, parsed.records.count)
    return planning.plan
  }

  /// The streams an import of `parsed` reads, each once: those its records decide on, in
  /// source order, then (zoo) the animals of an earlier identity rule they may take up.
  public static func streams(of parsed: ParsedSource) -> [String] {
    var seen: Set<StreamName> = []
    let decided = recordStreams(of: parsed)
    let earlier = parsed.kind == .zoo ? parsed.records.compactMap(earlierZooStream(of:)) : []
    return (decided + earlier).filter { seen.insert(StreamName($0)).inserted }
  }

  /// The streams `parsed`'s records decide on, each once, in source order.
  static func recordStreams(of parsed: ParsedSource) -> [String] {
    var seen: Set<StreamName> = []
    return parsed.records.map(\.command.streamName).filter { seen.insert(StreamName($0)).inserted }
  }

  /// How the events of the histories are read: with the keys of the log file at `logPath`, or
  /// of `storage` when they come from a store kept elsewhere.
  struct StoredEvents {
    let logPath: String
    let storage: (any EventStorage)?

    /// The typed event inside `event`, for `decider`'s domain (personal data opened).
    func domainEvent<D: Decider>(of event: RecordedEvent, for decider: D.Type) throws -> D.Event? {
      if let storage { return try storage.domainEvent(of: event, for: decider) }
      return try event.domainEvent(for: decider, log: OpenLog.named(logPath))
    }
  }

  /// The state of one stream while an import is planned.
  private struct StreamPlan<State> {
    var state: State
    var baseVersion: Int64
    var events: [PlannedEvent] = []
  }

  private struct Planning {
    let parsed: ParsedSource
    let histories: EventLog.StreamHistories
    let stored: StoredEvents
    let metadata: EventMetadata
    let progress: ImportProgressHandler?
    var plan: ImportPlan
    /// Whether erased contacts in the source are brought back (`--include-erased`).
    var includeErased = false

    init(
      parsed: ParsedSource, histories: EventLog.StreamHistories, stored: StoredEvents,
      metadata: EventMetadata, progress: ImportProgressHandler?
    ) {
      self.parsed = parsed
      self.histories = histories
      self.stored = stored
      self.metadata = metadata
      self.progress = progress
      plan = ImportPlan(
        kind: parsed.kind, sourceName: parsed.sourceName, events: [], writes: [],
        changedRecordCount: 0, unchanged: [], keptRemoved: [], rejected: [])
    }

    mutating func decideAll<D: ImportDecider>(_ decider: D.Type) throws {
      // When no two records share a stream (every kind but states, whose records merge, once
      // the parser has resolved repeats), a stream's plan is done with its record and goes
      // straight into the plan: no table of every stream's state and events is kept (about
      // 930 bytes a record, 90 MB of a 100 000-contact import's peak).
      let streamsAreUnique = ImportPlanner.recordStreams(of: parsed).count == parsed.records.count
      var streams: [StreamName: StreamPlan<D.State>] = [:]
      var order: [StreamName] = []
      if !streamsAreUnique {
        streams.reserveCapacity(parsed.records.count)
        order.reserveCapacity(parsed.records.count)
      }
      for (position, record) in parsed.records.enumerated() {
        if (position + 1) % SourceParser.progressInterval == 0 {
          progress?(.planning, position + 1, parsed.records.count)
        }
        guard let command = D.command(from: record.command, includeErased: includeErased) else {
          preconditionFailure("a \(parsed.kind) source holds only \(D.self) commands")
        }
        let stream = StreamName(command.streamName)
        // Taken out of the dictionary while it changes, so its arrays are not copied.
        var entry: StreamPlan<D.State>
        if !streamsAreUnique, let existing = streams.removeValue(forKey: stream) {
          entry = existing
        } else {
          let history = histories[stream.rawValue] ?? .empty
          let events = try history.events.compactMap { try stored.domainEvent(of: $0, for: D.self) }
          entry = StreamPlan(state: D.fold(events), baseVersion: history.version)
          if !streamsAreUnique { order.append(stream) }
        }
        defer {
          if streamsAreUnique {
            finish(stream, entry)
          } else {
            streams[stream] = entry
          }
        }
        let decision: Decision<D.Event>
        do throws(EventsError) {
          decision = try D.decision(command, entry.state)
        } catch {
          plan.rejected.append(Self.problem(error, record: record, kind: parsed.kind))
          continue
        }
        guard !decision.events.isEmpty else {
          // An erased person's record is named by its stream alone: the source's label may
          // hold their name.
          let outcome = RecordOutcome(
            recordIndex: record.index,
            label: D.isRemoved(entry.state) && D.self == ContactDecider.self
              ? "stream '\(stream.rawValue)'" : record.label,
            stream: stream.rawValue, reason: decision.noChangeReason ?? "nothing to change")
          if D.isRemoved(entry.state) {
            plan.keptRemoved.append(outcome)
          } else {
            plan.unchanged.append(outcome)
          }
          continue
        }
        plan.changedRecordCount += 1
        for (index, event) in decision.events.enumerated() {
          let version = entry.baseVersion + Int64(entry.events.count) + 1
          let id = ImportIdentity.eventID(
            kind: parsed.kind, source: parsed.sourceName, stream: stream.rawValue, version: version,
            recordDigest: record.digest, position: index)
          let domainEvent = D.domainEvent(event)
          let proposed = EventVocabulary.proposedEvent(domainEvent, id: id, metadata: metadata)
          // Deciders only emit events for the stream they decided on.
          precondition(
            StreamName(proposed.stream) == stream, "\(D.self) emitted an event for another stream")
          entry.events.append(
            PlannedEvent(
              recordIndex: record.index, stream: stream.rawValue, version: version,
              type: proposed.event.type, summary: EventSummary.describe(domainEvent),
              event: proposed.event))
          entry.state.apply(event)
        }
      }
      for stream in order {
        guard let entry = streams[stream] else { continue }
        finish(stream, entry)
      }
    }

    /// Puts the events decided for `stream` into the plan, as one write.
    private mutating func finish<State>(_ stream: StreamName, _ entry: StreamPlan<State>) {
      guard !entry.events.isEmpty else { return }
      plan.events += entry.events
      plan.writes.append(
        EventLog.StreamWrite(
          stream: stream.rawValue, expectedVersion: .exactly(entry.baseVersion),
          events: entry.events.map(\.event)))
    }

    /// A rule the decider enforced, as a problem with the record.
    static func problem(_ error: EventsError, record: SourceRecord, kind: ImportKind)
      -> RecordProblem
    {
      if case .invalidCommand(_, let field, _, let found) = error {
        return RecordProblem(
          kind: kind, index: record.index, label: record.label, field: field, value: found,
          reason: RecordProblem.reason(from: error))
      }
      return RecordProblem(
        kind: kind, index: record.index, label: record.label, field: "", value: "refused",
        reason: error.description)
    }
  }
}
