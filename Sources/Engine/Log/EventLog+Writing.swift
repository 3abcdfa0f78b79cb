@_spi(Tables) import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: Planning, sealing and writing, a chunk at a time

extension EventLog {
  /// What a write did.
  struct Written {
    /// What became of each proposed event, in order (only when the events were kept).
    var slots: [Plan.Slot] = []
    /// The events appended (only when kept).
    var recorded: [RecordedEvent] = []
    var appendedCount = 0
    var duplicateCount = 0
    var sequences: ClosedRange<Int64>?

    var outcomes: [Outcome] {
      slots.map { slot in
        switch slot {
        case .new(let index): Outcome(event: recorded[index], isDuplicate: false)
        case .duplicate(let existing): Outcome(event: existing, isDuplicate: true)
        }
      }
    }
  }

  /// One chunk of a write, checked: which events are new (with their stream and version).
  ///
  /// A new event is named by its place in the write, not copied out of it: a copy retained
  /// and released its six strings and arrays, about 330 instructions an event.
  struct Plan {
    struct NewEvent {
      /// Where the event is: `writes[write].events[index]`.
      var write: Int
      var index: Int
      var version: Int64
      /// Whether its sealed record was found to open ahead of the write (`Prechecks`).
      var opens = false
      /// The event as sealing made it (personal data sealed, id fixed), when it did.
      var sealed: ProposedEvent?
    }

    enum Slot {
      /// The write's `n`th new event (counted from 0 over the whole write).
      case new(Int)
      case duplicate(RecordedEvent)
    }

    /// The whole write the events are in.
    let writes: [StreamWrite]
    var newEvents: [NewEvent] = []

    /// The stream of the new event at `position`.
    func stream(at position: Int) -> String { writes[newEvents[position].write].stream }

    /// The new event at `position` as it is to be written.
    func event(at position: Int) -> ProposedEvent {
      let new = newEvents[position]
      return new.sealed ?? writes[new.write].events[new.index]
    }
  }

  /// Checks, seals and writes `writes` as one atomic write, `chunkSize` new events at a time:
  /// chunk k is checked, sealed and encoded while chunk k − 1 syncs in the background.
  ///
  /// All or nothing: every line carries the write's whole `batch` (so a crash before the last
  /// chunk's sync leaves an unfinished write, which readers ignore and recovery cuts), an event
  /// that fails a check cuts the log back to where it was (and drops the index, which took in
  /// the events written so far), and the keys that sealing made reach the key store only
  /// before the last chunk, once every event has been checked.
  ///
  /// How many events are new must be known before the first line (it is in `batch`): the ids
  /// already in the log are looked up first, and every other event is new or fails its check.
  func writeEvents(
    _ writes: [StreamWrite], chunkSize: Int, keepsEvents: Bool, state: inout State
  ) throws -> Written {
    var planner = try Planner(writes, index: state.index, keepsSlots: keepsEvents)
    var written = Written()
    guard let file = state.file else { return written }
    guard planner.newCount > 0 else {
      // Only duplicates: each is still checked against the copy in the log.
      _ = try planner.next(0, log: self, file: file, state: &state)
      written.slots = planner.slots
      written.duplicateCount = planner.duplicateCount
      return written
    }
    // Each event's own checks run ahead on a second thread for large writes.
    let prechecks = Prechecks(
      writes, total: planner.total, lead: 2 * min(chunkSize, planner.total), log: self,
      use: configuration.prechecks)
    defer { prechecks?.stop() }
    planner.prechecks = prechecks
    let firstSequence = state.index.lastSequence + 1
    var sealer = Sealer(firstSequence: firstSequence)
    var writer: LineWriter?
    do {
      while planner.plannedNew < planner.newCount {
        let chunkFirst = firstSequence + Int64(planner.plannedNew)
        let limit = min(chunkSize, planner.newCount - planner.plannedNew)
        var plan = try planner.next(limit, log: self, file: file, state: &state)
        guard plan.newEvents.count == limit else {
          throw EngineError.invalidEvent(
            location: nil,
            problem:
              "the write holds \(planner.plannedNew) new events, not the \(planner.newCount) counted before it began; nothing was written"
          )
        }
        try sealer.seal(&plan, firstSequence: chunkFirst, log: self, state: &state)
        if writer == nil {
          // The time is checked before any key is written (a chosen clock may be refused).
          let timestamp = try eventTime(&state)
          writer = LineWriter(
            file: file, state: &state, timestamp: timestamp, newCount: planner.newCount,
            keepsEvents: keepsEvents, syncs: configuration.syncPolicy == .always)
          writer?.treeLeaves = treeLeaves(forWriteOf: planner.newCount, state: &state)
        }
        let isLast = planner.plannedNew == planner.newCount
        if isLast { try sealer.commit(log: self) }
        try writer?.write(plan, isLast: isLast, log: self, state: &state)
      }
    } catch {
      if let writer, writer.abandon(&state) {
        // Read again now (the saved index and the log past it), so that `lastSequence` and
        // the rest answer as they did before the write; failing that, the next use reads it.
        try? catchUp(file, &state)
      }
      throw error
    }
    guard let writer else { return written }
    if !state.directorySynced, configuration.syncPolicy == .always {
      // The file may be new: make its directory entry durable too (once per writer).
      FileDescriptor.synchronizeDirectory(containing: path)
      state.directorySynced = true
    }
    written.recorded = writer.recorded
    written.sequences = writer.finish(&state)
    keepTree(writer.treeLeaves, state: &state)
    written.appendedCount = planner.newCount
    written.slots = planner.slots
    written.duplicateCount = planner.duplicateCount
    return written
  }

  /// Checks a write's events a chunk at a time, carrying what later chunks need (each stream's
  /// next version, the ids met so far) from one chunk to the next.
  struct Planner {
    let writes: [StreamWrite]
    let total: Int
    /// Where the events whose ids are already in the log are, by position in the write (from 1).
    let knownIDs: [Int: Int64]
    /// How many events are new: all but those whose ids are in the log (the rest are new or
    /// fail a check, and then nothing is written).
    let newCount: Int
    let keepsSlots: Bool
    /// Each event's own checks, made ahead of the planning (large writes only).
    var prechecks: Prechecks?
    /// What became of each event planned so far (only when `keepsSlots`).
    private(set) var slots: [Plan.Slot] = []
    private(set) var duplicateCount = 0
    private(set) var plannedNew = 0

    private var writeIndex = 0
    private var eventIndex = 0
    private var position = 0
    private var versionChecked = false
    /// The streams this write met so far (keyed by the name's bytes, as the log is: `String`
    /// would merge "é" and "e\u{301}"), and the version each one's next event gets. Made only
    /// for a write to more than one stream; a write to one keeps its next version alone.
    private var streams: ByteKeyedTable<StreamTable.Name>?
    private var streamNames: [StreamTable.Name] = []
    private var nextVersions: [Int64] = []
    private var soleStreamNext: Int64?
    /// The ids met so far, for a write of more than one event, and the write (in `writes`)
    /// each came in.
    private var idsInWrite = EventIDTable<Int>()

    init(_ writes: [StreamWrite], index: borrowing LogIndex, keepsSlots: Bool) throws {
      self.writes = writes
      self.keepsSlots = keepsSlots
      var total = 0
      var known: [Int: Int64] = [:]
      for write in writes {
        for event in write.events {
          total += 1
          if let id = event.id, let offset = try index.lineOffset(of: id) {
            known[total] = offset
          }
        }
      }
      self.total = total
      knownIDs = known
      newCount = total - known.count
      if writes.count > 1 { streams = ByteKeyedTable(minimumCapacity: min(writes.count, 4096)) }
      if total > 1 { idsInWrite.reserveCapacity(total - known.count) }
      if keepsSlots { slots.reserveCapacity(total) }
    }

    /// Checks events until `limit` new ones are planned. The chunk that holds the last new
    /// event takes every event after it too (duplicates, checked), so that nothing is left to
    /// check once the last chunk is written.
    mutating func next(
      _ limit: Int, log: EventLog, file: FileDescriptor, state: inout State
    ) throws -> Plan {
      var plan = Plan(writes: writes)
      plan.newEvents.reserveCapacity(limit)
      let takesRest = plannedNew + limit == newCount
      let writes = self.writes
      // Read in place, through pointers: copying a write or an event out of its array would
      // retain and release each of its strings.
      try writes.withUnsafeBufferPointer { writes in
        while writeIndex < writes.count {
          if eventIndex == 0 {
            let named =
              !writes[writeIndex].events.isEmpty
              && prechecks?.passed(at: position + 1).contains(.stream) == true
            if !named,
              let problem = EnvelopeRules.problem(withStreamName: writes[writeIndex].stream)
            {
              throw EngineError.invalidEvent(location: nil, problem: problem)
            }
            versionChecked = false
          }
          let full = try writes[writeIndex].events.withUnsafeBufferPointer { events in
            try planEvents(
              events, of: writes[writeIndex], into: &plan, limit: limit, takesRest: takesRest,
              log: log, file: file, state: &state)
          }
          if full { return }
          writeIndex += 1
          eventIndex = 0
        }
      }
      return plan
    }

    /// Plans `write`'s events from `eventIndex` on; returns true when the plan is full first.
    private mutating func planEvents(
      _ events: UnsafeBufferPointer<ProposedEvent>, of write: borrowing StreamWrite,
      into plan: inout Plan, limit: Int, takesRest: Bool, log: EventLog, file: FileDescriptor,
      state: inout State
    ) throws -> Bool {
      while eventIndex < events.count {
        if plan.newEvents.count == limit, !takesRest { return true }
        let index = eventIndex
        eventIndex += 1
        position += 1
        // Said only in errors, so made only for them.
        let place = position
        let total = self.total
        var location: String? { total > 1 ? "event \(place) of \(total)" : nil }
        let passed = prechecks?.passed(at: place) ?? []
        if !passed.contains(.event) { try log.validate(events[index], location: location) }
        if let id = events[index].id {
          if !knownIDs.isEmpty, let offset = knownIDs[place] {
            let existing = try log.recordedEvent(in: file, at: offset)
            if let difference = log.difference(
              between: existing, and: events[index], stream: write.stream)
            {
              throw EngineError.duplicateEventID(
                id: id, existingSequence: existing.sequence, difference: difference)
            }
            duplicateCount += 1
            if keepsSlots { slots.append(.duplicate(existing)) }
            continue
          }
          if total > 1, let other = idsInWrite.updateValue(writeIndex, forKey: id) {
            throw EngineError.invalidEvent(
              location: location,
              problem:
                "event id \(id) appears twice in this write (also for stream '\(writes[other].stream)')"
            )
          }
        }
        // A stream met before in this write: one lookup reads and advances its version (a
        // failed check throws the whole write away).
        let current = try nextVersion(of: write.stream, index: state.index)
        if !versionChecked {
          guard write.expectedVersion.isSatisfied(byStreamVersion: current) else {
            throw EngineError.versionConflict(
              stream: write.stream, expected: write.expectedVersion, actual: current)
          }
          versionChecked = true
        }
        if keepsSlots { slots.append(.new(plannedNew)) }
        plannedNew += 1
        plan.newEvents.append(
          Plan.NewEvent(
            write: writeIndex, index: index, version: current + 1,
            opens: passed.contains(.opens)))
      }
      return false
    }

    /// The version of `stream` before its next event in this write, counted on from the log's.
    private mutating func nextVersion(of stream: String, index: borrowing LogIndex) throws -> Int64
    {
      guard streams != nil else {
        // The write's one stream.
        let current = try soleStreamNext ?? index.version(of: stream)
        soleStreamNext = current + 1
        return current
      }
      var name = stream
      return try name.withUTF8 { utf8 in
        let bytes = UnsafeRawBufferPointer(utf8)
        let hash = ByteKeyedTable<StreamTable.Name>.hash(bytes)
        if let known = streams?.position(ofBytes: bytes, hash: hash, in: streamNames) {
          defer { nextVersions[known] += 1 }
          return nextVersions[known]
        }
        let current = try index.version(of: stream)
        let end = streamNames.count
        _ = streams?.position(ofBytes: bytes, hash: hash, in: streamNames, insertingAt: end)
        streamNames.append(StreamTable.Name(rawValue: stream))
        nextVersions.append(current + 1)
        return current
      }
    }
  }

  /// The id the configured generator makes for the event that gets `sequence`, refused when a
  /// line of the log already holds it.
  func generatedID(for sequence: Int64, state: borrowing State) throws -> EventID {
    let id = configuration.makeEventID(sequence)
    if let existing = try state.index.lineOffset(of: id) {
      throw EngineError.invalidEvent(
        location: nil,
        problem:
          "the id generator made \(id) for seq \(sequence), but the line at byte \(existing) has it; use another --id-seed"
      )
    }
    return id
  }

  /// Checks what the envelope needs of an event; its type's vocabulary is the caller's concern.
  func validate(_ event: ProposedEvent, location: @autoclosure () -> String?) throws {
    try Self.validate(event, location: location())
  }

  /// Checks what the envelope needs of an event, for any store (the file, PostgreSQL).
  static func validate(_ event: ProposedEvent, location: @autoclosure () -> String?) throws {
    if let problem = EnvelopeRules.problem(withTypeName: event.type) {
      throw EngineError.invalidEvent(location: location(), problem: problem)
    }
    guard event.schemaVersion >= 1 else {
      throw EngineError.invalidEvent(
        location: location(), problem: "schema version \(event.schemaVersion) is not ≥ 1")
    }
    try event.data.withUnsafeBytes { bytes in
      var cursor = JSONCursor(bytes)
      guard cursor.peek() == 0x7B else {
        throw EngineError.invalidEvent(
          location: location(),
          problem:
            "data must be a JSON object, found \(bytes.count == 0 ? "nothing" : "another value")")
      }
      do {
        try cursor.skipValue()
        try cursor.expectEnd()
      } catch {
        throw EngineError.invalidEvent(
          location: location(), problem: "data is not valid JSON: \(error)")
      }
      if let base = bytes.baseAddress,
        memchr(base, 0x0A, bytes.count) != nil || memchr(base, 0x0D, bytes.count) != nil
      {
        throw EngineError.invalidEvent(
          location: location(), problem: "data must be compact JSON without line breaks")
      }
    }
  }

  /// Why `proposed` is not the same event as `existing`, or `nil` when it is.
  fileprivate func difference(
    between existing: RecordedEvent, and proposed: ProposedEvent, stream: String
  ) -> String? {
    if existing.stream != stream {
      return "stream '\(existing.stream)' there, '\(stream)' here"
    }
    if existing.type != proposed.type {
      return "type '\(existing.type)' there, '\(proposed.type)' here"
    }
    if existing.data != proposed.data,
      !sameAfterOpening(existing, proposed)
    {
      return
        "data \(existing.dataText) there, \(String(decoding: proposed.data, as: UTF8.self)) here"
    }
    return nil
  }

  /// Whether `existing`, a sealed contact event, holds what `proposed` (its plaintext form,
  /// as a retried write offers it again) holds.
  private func sameAfterOpening(_ existing: RecordedEvent, _ proposed: ProposedEvent) -> Bool {
    guard existing.schemaVersion == 2, proposed.schemaVersion == 1,
      PersonalData.carriesPersonalData(type: proposed.type),
      let opened = try? PersonalData.decode(existing, log: openLog),
      let offered = try? EventVocabulary.decode(
        type: proposed.type, schemaVersion: 1, data: proposed.data, strict: false)
    else { return false }
    return opened.withoutSeal == offered
  }
}
