import Events
import Projections

extension LogReader {
  /// The history of one entity: every event of its stream, with what each changed.
  ///
  /// `nameOrID` is a stream name (`contact-13`, `state-New York`, `animal-user-1`) or an entity
  /// id (`13`, `California`, `user-1`, `zoo-panthera-pardus`). A name of an existing stream is that stream;
  /// otherwise it is taken as an id and tried under each category, in
  /// `EntityStream.categoryOrder` (`contact-`, `state-`, `observation-`, `animal-`,
  /// `location-`). One pass over the log collects the candidates' events; a second pass, only
  /// when nothing matched, looks for a similar stream name to suggest.
  ///
  /// The changes come from folding only that stream's events into fresh read models and
  /// comparing the entity's entry before and after each event, so other streams cannot affect
  /// them (no model's entry depends on another entity).
  /// - Throws: `AuditError.noSuchEntity` (with a suggestion when a stream name is close) or
  ///   `.ambiguousEntity` when the id has events under several categories; `EngineError` for a
  ///   missing or corrupt log, or an event that cannot be decoded.
  /// - Complexity: one pass over the log, hashing each line's stream bytes against at most
  ///   six candidate names; then O(e) entry comparisons for the e events of the stream.
  package func history(of nameOrID: String) throws -> EntityHistory {
    let log = openLog
    return try Self.history(
      of: nameOrID, logName: path, events: { try events(inStreams: $0.map(\.rawValue)) },
      lines: { _ = try forEachEvent(from: .start, $0) },
      decode: { try PersonalData.decode($0, log: log) })
  }

  /// The history of one entity, as `history(of:)` gives it, from lines kept somewhere other
  /// than a file (a database): `lines` hands them out in seq order (twice at most: once for
  /// the candidates' events, once more for a suggestion when nothing matched), and the
  /// contacts' keys come from `keys`.
  /// - Throws: as `history(of:)`, naming `logName` and `keyStoreName`.
  package static func history(
    of nameOrID: String, logName: String, keyStoreName: String, lines: LineSource,
    keys: @escaping (KeyStore.KeyID) throws -> KeyStore.Lookup
  ) throws -> EntityHistory {
    var ring = PersonalData.KeyRing(logName: logName, keyStoreName: keyStoreName, lookup: keys)
    return try history(
      of: nameOrID, logName: logName, events: { try events(inStreams: $0, lines: lines) },
      lines: lines, decode: { try PersonalData.decode($0, keys: &ring) })
  }

  /// `history(of:)` over any log: `events` gives the candidates' events, `lines` the lines
  /// for a suggestion, `decode` the typed events with their personal data opened.
  private static func history(
    of nameOrID: String, logName: String,
    events: (Set<StreamName>) throws -> EventLog.StreamHistories, lines: LineSource,
    decode: (RecordedEvent) throws -> DomainEvent?
  ) throws -> EntityHistory {
    var candidates: [EntityStream] = []
    if let stream = EntityStream(nameOrID) { candidates.append(stream) }
    for kind in EntityStream.categoryOrder {
      let stream = EntityStream(kind: kind, entityID: nameOrID)
      if !candidates.contains(stream) { candidates.append(stream) }
    }
    let events = try events(Set(candidates.map { StreamName($0.name) }))
    let found = candidates.filter { events[$0.name] != nil }
    let chosen: EntityStream
    if let exact = found.first(where: { $0.name == nameOrID }) {
      chosen = exact
    } else if found.count == 1 {
      chosen = found[0]
    } else if found.isEmpty {
      throw AuditError.noSuchEntity(
        input: nameOrID, path: logName, tried: candidates.map(\.name),
        suggestion: try similarStream(to: nameOrID, lines: lines))
    } else {
      throw AuditError.ambiguousEntity(input: nameOrID, streams: found.map(\.name))
    }
    return try fold(events[chosen.name]?.events ?? [], of: chosen, decode: decode)
  }

  /// Folds one stream's events alone into fresh read models, recording the entity's entry
  /// before and after each from the `recordingFrom`th event on (earlier ones are folded but
  /// left out of the history: building an entry after every event of a long stream costs more
  /// than folding it).
  package static func fold(
    _ events: [RecordedEvent], of stream: EntityStream, log: OpenLog, recordingFrom first: Int = 0
  ) throws -> EntityHistory {
    try fold(events, of: stream, recordingFrom: first) { try PersonalData.decode($0, log: log) }
  }

  /// `fold(_:of:log:recordingFrom:)` for events kept somewhere other than a file (a
  /// database): the contacts' keys come from `keys`, named `keyStoreName` in errors.
  package static func fold(
    _ events: [RecordedEvent], of stream: EntityStream, logName: String, keyStoreName: String,
    keys: @escaping (KeyStore.KeyID) throws -> KeyStore.Lookup, recordingFrom first: Int = 0
  ) throws -> EntityHistory {
    var ring = PersonalData.KeyRing(logName: logName, keyStoreName: keyStoreName, lookup: keys)
    return try fold(events, of: stream, recordingFrom: first) {
      try PersonalData.decode($0, keys: &ring)
    }
  }

  /// `fold(_:of:log:recordingFrom:)`, with `decode` giving each typed event.
  private static func fold(
    _ events: [RecordedEvent], of stream: EntityStream, recordingFrom first: Int = 0,
    decode: (RecordedEvent) throws -> DomainEvent?
  ) throws -> EntityHistory {
    var models = ReadModels()
    let modelName = stream.modelName
    func entry() -> ReadModelEntry? {
      models.model(named: modelName)?.entry(forID: stream.entityID)
    }
    var history = EntityHistory(stream: stream, events: [])
    history.events.reserveCapacity(max(0, events.count - first))
    var current = first == 0 ? entry() : nil
    for (index, event) in events.enumerated() {
      let decoded = try decode(event)
      let before = current
      if let decoded {
        models.apply(decoded, at: EventContext(event))
        // The entry after the event before the first recorded one is that one's "before".
        if index + 1 >= first { current = entry() }
      }
      guard index >= first else { continue }
      history.events.append(
        EntityHistory.Event(
          sequence: event.sequence, version: event.version, timestamp: event.timestamp,
          type: event.type, metadata: event.metadata, source: Self.source(of: event),
          before: before, after: current))
    }
    return history
  }

  /// The payload's `source`, if it has one.
  static func source(of event: RecordedEvent) -> String? {
    guard case .object(let data)? = try? JSONValue.parse(event.data) else { return nil }
    return data["source"]?.stringValue
  }

  /// The stream whose name, or whose entity id, is closest to `input`: at most one edit in
  /// three characters and at most three in all, ignoring letter case. `nil` when none is.
  /// - Complexity: one pass over the log; distances are computed once per distinct stream
  ///   of a plausible length, each within a band of the allowed edits.
  static func similarStream(to input: String, lines: LineSource) throws -> String? {
    let typed = Array(input.lowercased().unicodeScalars)
    let limit = min(3, max(1, typed.count / 3))
    var seen: Set<String> = []
    var best: (stream: String, distance: Int)?
    try lines { line in
      let stream = line.stream
      guard seen.insert(stream).inserted else { return true }
      var names = [Array(stream.lowercased().unicodeScalars)]
      if let entity = EntityStream(stream) {
        names.append(Array(entity.entityID.lowercased().unicodeScalars))
      }
      for name in names where abs(name.count - typed.count) <= limit {
        guard let distance = Self.editDistance(typed, name, limit: limit) else { continue }
        if distance < (best?.distance ?? Int.max)
          || (distance == best?.distance && stream < (best?.stream ?? ""))
        {
          best = (stream, distance)
        }
      }
      return true
    }
    return best?.stream
  }

  /// The Levenshtein distance between `first` and `second` when it is at most `limit`, else
  /// `nil`; only a band of `2 × limit + 1` diagonals is computed.
  static func editDistance(
    _ first: [Unicode.Scalar], _ second: [Unicode.Scalar], limit: Int
  ) -> Int? {
    guard abs(first.count - second.count) <= limit else { return nil }
    if first.isEmpty || second.isEmpty { return max(first.count, second.count) }
    let beyond = limit + 1
    var previous = (0...second.count).map { $0 <= limit ? $0 : beyond }
    var current = [Int](repeating: beyond, count: second.count + 1)
    for row in 1...first.count {
      let low = max(1, row - limit)
      let high = min(second.count, row + limit)
      current[0] = row <= limit ? row : beyond
      if low > 1 { current[low - 1] = beyond }
      var rowMinimum = current[0]
      if low <= high {
        for column in low...high {
          let substitution = previous[column - 1] + (first[row - 1] == second[column - 1] ? 0 : 1)
          let value = min(substitution, previous[column] + 1, current[column - 1] + 1, beyond)
          current[column] = value
          rowMinimum = min(rowMinimum, value)
        }
      }
      if high < second.count { current[high + 1] = beyond }
      if rowMinimum > limit { return nil }
      swap(&previous, &current)
    }
    let distance = previous[second.count]
    return distance <= limit ? distance : nil
  }
}
