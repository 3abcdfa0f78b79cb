import Events

/// A write planned for a store other than the log file (PostgreSQL's `messages` table): the
/// file writer's checks (envelope, ids, expected versions, times that never go backwards) and
/// its line encoder and its sealing of contacts' personal data, given what the store holds.
/// The store commits `appended` (each event's `logLine` is the line the file writer would have
/// written at that seq) and the keys sealing made, or nothing.
package struct StoreWrite {
  /// What became of each proposed event, in order (a duplicate reports the copy stored).
  package private(set) var outcomes: [EventLog.Outcome] = []
  /// The new events, in seq order from the store's last seq + 1.
  package private(set) var appended: [RecordedEvent] = []
  /// How many proposed events were already stored (same id, stream, type and data).
  package private(set) var duplicateCount = 0

  /// Plans `writes` after the store's last event.
  /// - Parameters:
  ///   - writes: The write, one part a stream, atomic as a whole.
  ///   - lastSequence: The store's last seq (0 when empty).
  ///   - lastTimestamp: Its last event's time, if any.
  ///   - configuration: The clock and the id generator (as the file writer's).
  ///   - version: Each stream's current version in the store (0 when it has no event).
  ///   - stored: The events already in the store with one of the write's ids.
  ///   - keys: The store's keys: schema 1 `ContactAdded` and `ContactUpdated` are sealed
  ///     under them as the file writer seals them (`configuration.sealingSeed` giving the
  ///     file's bytes), the keys they make held in `keys` for the store to commit with the
  ///     rows; schema 2 ones must open with them.
  /// - Throws: `EngineError.versionConflict`, `.duplicateEventID`, `.invalidEvent` (the
  ///   envelope's rules, an id twice in the write, a chosen clock before the last event, a
  ///   sealed record that does not open), `.keyStore`, and what `keys` throws.
  package init(
    _ writes: [EventLog.StreamWrite], after lastSequence: Int64, lastTimestamp: Timestamp?,
    configuration: EventLog.Configuration, version: (String) throws -> Int64,
    stored: [EventID: RecordedEvent], keys: inout some StoreKeys
  ) throws {
    let total = writes.reduce(0) { $0 + $1.events.count }
    var nextVersions: [String: Int64] = [:]
    var idsInWrite: [EventID: String] = [:]
    var planned: [(event: ProposedEvent, stream: String, version: Int64)] = []
    var slots: [Int?] = []
    var position = 0
    for write in writes {
      if !write.events.isEmpty,
        let problem = EnvelopeRules.problem(withStreamName: write.stream)
      {
        throw EngineError.invalidEvent(location: nil, problem: problem)
      }
      var versionChecked = false
      for event in write.events {
        position += 1
        let place = position
        let location = total > 1 ? "event \(place) of \(total)" : nil
        try EventLog.validate(event, location: location)
        if let id = event.id {
          if let existing = stored[id] {
            try Self.requireSame(existing, event, stream: write.stream)
            duplicateCount += 1
            outcomes.append(EventLog.Outcome(event: existing, isDuplicate: true))
            slots.append(nil)
            continue
          }
          if let other = idsInWrite.updateValue(write.stream, forKey: id) {
            throw EngineError.invalidEvent(
              location: location,
              problem: "event id \(id) appears twice in this write (also for stream '\(other)')")
          }
        }
        let current = try nextVersions[write.stream] ?? version(write.stream)
        if !versionChecked {
          guard write.expectedVersion.isSatisfied(byStreamVersion: current) else {
            throw EngineError.versionConflict(
              stream: write.stream, expected: write.expectedVersion, actual: current)
          }
          versionChecked = true
        }
        nextVersions[write.stream] = current + 1
        slots.append(planned.count)
        planned.append((event, write.stream, current + 1))
      }
    }
    guard !planned.isEmpty else { return }
    let now = configuration.clock()
    let timestamp =
      try lastTimestamp.map {
        try EventLog.eventTime(now, after: $0, sequence: lastSequence, configuration: configuration)
      } ?? now
    let first = lastSequence + 1
    let batch = planned.count > 1 ? first...(lastSequence + Int64(planned.count)) : nil
    appended.reserveCapacity(planned.count)
    // Sealing draws in seq order from one generator per write, as the file writer's does.
    var seeded = PersonalData.sealingRandom(
      seed: configuration.sealingSeed, firstSequence: first)
    var ring: PersonalData.KeyRing?
    for (offset, new) in planned.enumerated() {
      let sequence = first + Int64(offset)
      var event = new.event
      let id = event.id ?? configuration.makeEventID(sequence)
      if PersonalData.carriesPersonalData(type: event.type) {
        if event.schemaVersion == 1 {
          event.data = try PersonalData.seal(
            event.data, type: event.type, id: id, stream: new.stream, keys: &keys,
            seeded: &seeded)
          event.schemaVersion = 2
        } else {
          let reader = keys
          var opening =
            ring
            ?? PersonalData.KeyRing(
              logName: keys.logName, keyStoreName: keys.keyStoreName,
              lookup: { try reader.lookup($0) })
          try EventLog.checkOpens(
            event, id: id, stream: new.stream, sequence: sequence, keys: &opening)
          ring = opening
        }
      }
      appended.append(
        RecordedEvent(
          sequence: sequence, id: id, stream: new.stream, version: new.version,
          type: event.type, schemaVersion: event.schemaVersion, timestamp: timestamp,
          batch: batch, metadata: event.metadata, data: event.data))
    }
    var duplicates = outcomes.makeIterator()
    outcomes = slots.compactMap { slot in
      slot.map { EventLog.Outcome(event: appended[$0], isDuplicate: false) } ?? duplicates.next()
    }
  }

  /// The contacts whose keys sealing `writes` needs (those of its schema 1 `ContactAdded` and
  /// `ContactUpdated`), for a store to read their keys at once before planning.
  package static func contactsToSeal(in writes: [EventLog.StreamWrite]) -> Set<String> {
    var contacts: Set<String> = []
    for write in writes {
      for event in write.events {
        if let contact = PersonalData.contactToSeal(event) { contacts.insert(contact) }
      }
    }
    return contacts
  }

  /// An event offered again under its id must be the one stored.
  private static func requireSame(
    _ existing: RecordedEvent, _ proposed: ProposedEvent, stream: String
  ) throws {
    let difference: String? =
      if existing.stream != stream {
        "stream '\(existing.stream)' there, '\(stream)' here"
      } else if existing.type != proposed.type {
        "type '\(existing.type)' there, '\(proposed.type)' here"
      } else if existing.data != proposed.data {
        "data \(existing.dataText) there, \(String(decoding: proposed.data, as: UTF8.self)) here"
      } else {
        nil
      }
    if let difference {
      throw EngineError.duplicateEventID(
        id: existing.id, existingSequence: existing.sequence, difference: difference)
    }
  }

  /// Decodes one stored line (without its `\n`), checked as a reader of the file checks it.
  /// - Throws: `EngineError.corruptLine` naming `source`.
  package static func decodeLine<Result>(
    _ bytes: UnsafeBufferPointer<UInt8>, source: String, _ body: (EventLine) throws -> Result
  ) throws -> Result {
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw EngineError.corruptLine(path: source, line: 0, offset: 0, problem: "empty line")
    }
    let line: EventLine
    do throws(LogLineCodec.Problem) {
      line = try LogLineCodec.decode(base, length: bytes.count, lineNumber: 0, offset: 0)
    } catch {
      throw EngineError.corruptLine(path: source, line: 0, offset: 0, problem: error.message)
    }
    return try body(line)
  }
}
