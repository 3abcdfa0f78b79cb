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
  struct Plan {
    struct NewEvent {
      var stream: String
      var version: Int64
      var event: ProposedEvent
    }

    enum Slot {
      /// The write's `n`th new event (counted from 0 over the whole write).
      case new(Int)
      case duplicate(RecordedEvent)
    }

    var newEvents: [NewEvent] = []
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
        var chunkWriter: LineWriter
        if let writer {
          chunkWriter = writer
        } else {
          // The time is checked before any key is written (a chosen clock may be refused).
          let timestamp = try eventTime(&state)
          chunkWriter = LineWriter(
            file: file, state: &state, timestamp: timestamp, newCount: planner.newCount,
            keepsEvents: keepsEvents, syncs: configuration.syncPolicy == .always)
        }
        writer = nil
        defer { writer = chunkWriter }
        let isLast = planner.plannedNew == planner.newCount
        if isLast { try sealer.commit(log: self) }
        try chunkWriter.write(plan, isLast: isLast, log: self, state: &state)
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
    /// What became of each event planned so far (only when `keepsSlots`).
    private(set) var slots: [Plan.Slot] = []
    private(set) var duplicateCount = 0
    private(set) var plannedNew = 0

    private var writeIndex = 0
    private var eventIndex = 0
    private var position = 0
    private var versionChecked = false
    /// The streams this write met so far (keyed by the name's bytes, as the log is: `String`
    /// would merge "é" and "e\u{301}"), and the version each one's next event gets.
    private var streams: ByteKeyedTable<StreamTable.Name>
    private var streamNames: [StreamTable.Name] = []
    private var nextVersions: [Int64] = []
    private var idsInWrite: [EventID: String] = [:]

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
      streams = ByteKeyedTable(minimumCapacity: min(writes.count, 4096))
      idsInWrite.reserveCapacity(total - known.count)
      if keepsSlots { slots.reserveCapacity(total) }
    }

    /// Checks events until `limit` new ones are planned. The chunk that holds the last new
    /// event takes every event after it too (duplicates, checked), so that nothing is left to
    /// check once the last chunk is written.
    mutating func next(
      _ limit: Int, log: EventLog, file: FileDescriptor, state: inout State
    ) throws -> Plan {
      var plan = Plan()
      plan.newEvents.reserveCapacity(limit)
      let takesRest = plannedNew + limit == newCount
      while writeIndex < writes.count {
        let write = writes[writeIndex]
        if eventIndex == 0 {
          if let problem = EnvelopeRules.problem(withStreamName: write.stream) {
            throw EngineError.invalidEvent(location: nil, problem: problem)
          }
          versionChecked = false
        }
        while eventIndex < write.events.count {
          if plan.newEvents.count == limit, !takesRest { return plan }
          let event = write.events[eventIndex]
          eventIndex += 1
          position += 1
          // Said only in errors, so made only for them.
          let place = position
          let total = self.total
          var location: String? { total > 1 ? "event \(place) of \(total)" : nil }
          try log.validate(event, location: location)
          if let id = event.id {
            if !knownIDs.isEmpty, let offset = knownIDs[place] {
              let existing = try log.recordedEvent(in: file, at: offset)
              if let difference = log.difference(
                between: existing, and: event, stream: write.stream)
              {
                throw EngineError.duplicateEventID(
                  id: id, existingSequence: existing.sequence, difference: difference)
              }
              duplicateCount += 1
              if keepsSlots { slots.append(.duplicate(existing)) }
              continue
            }
            if let other = idsInWrite.updateValue(write.stream, forKey: id) {
              throw EngineError.invalidEvent(
                location: location,
                problem: "event id \(id) appears twice in this write (also for stream '\(other)')")
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
            Plan.NewEvent(stream: write.stream, version: current + 1, event: event))
        }
        writeIndex += 1
        eventIndex = 0
      }
      return plan
    }

    /// The version of `stream` before its next event in this write, counted on from the log's.
    private mutating func nextVersion(of stream: String, index: borrowing LogIndex) throws -> Int64
    {
      var name = stream
      return try name.withUTF8 { utf8 in
        let bytes = UnsafeRawBufferPointer(utf8)
        let hash = ByteKeyedTable<StreamTable.Name>.hash(bytes)
        if let known = streams.position(ofBytes: bytes, hash: hash, in: streamNames) {
          defer { nextVersions[known] += 1 }
          return nextVersions[known]
        }
        let current = try index.version(of: stream)
        let end = streamNames.count
        _ = streams.position(ofBytes: bytes, hash: hash, in: streamNames, insertingAt: end)
        streamNames.append(StreamTable.Name(rawValue: stream))
        nextVersions.append(current + 1)
        return current
      }
    }
  }

  /// Checks what the envelope needs of an event; its type's vocabulary is the caller's concern.
  fileprivate func validate(_ event: ProposedEvent, location: @autoclosure () -> String?) throws {
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
      let opened = try? PersonalData.decode(existing, logPath: path),
      let offered = try? EventVocabulary.decode(
        type: proposed.type, schemaVersion: 1, data: proposed.data, strict: false)
    else { return false }
    return opened.withoutSeal == offered
  }

  /// Seals the personal data of a write's schema 1 contact events, a chunk at a time (their ids
  /// fixed here, as the seal is bound to them), and checks that schema 2 contact events offered
  /// as they are open with this log's keys. The keys it makes are held until `commit`, which
  /// writes and syncs them all at once.
  struct Sealer {
    /// The write's first seq: seeded sealing draws from a generator seeded with it, so a seed
    /// gives the same bytes however the write is chunked.
    let firstSequence: Int64
    private var store: KeyStore?
    private var seeded: GeneratorRandom?
    private var keys: PersonalData.KeyRing?

    init(firstSequence: Int64) {
      self.firstSequence = firstSequence
    }

    /// Seals the chunk's contact events; `firstSequence` is the seq its first new event gets.
    mutating func seal(
      _ plan: inout Plan, firstSequence chunkFirst: Int64, log: EventLog, state: inout State
    ) throws {
      for index in plan.newEvents.indices
      where PersonalData.carriesPersonalData(type: plan.newEvents[index].event.type) {
        let sequence = chunkFirst + Int64(index)
        let event = plan.newEvents[index].event
        let stream = plan.newEvents[index].stream
        let id: EventID
        if let given = event.id {
          id = given
        } else {
          id = log.configuration.makeEventID(sequence)
          if let existing = try state.index.lineOffset(of: id) {
            throw EngineError.invalidEvent(
              location: nil,
              problem:
                "the id generator made \(id) for seq \(sequence), but the line at byte \(existing) has it; use another --id-seed"
            )
          }
        }
        switch event.schemaVersion {
        case 1:
          var keyStore = try store ?? KeyStoreCache.store(forLog: log.path)
          if store == nil, seeded == nil, let seed = log.configuration.sealingSeed {
            seeded = GeneratorRandom(seed: "\(seed)/personal-data/\(firstSequence)")
          }
          store = nil
          defer { store = keyStore }
          plan.newEvents[index].event.data = try PersonalData.seal(
            event.data, type: event.type, id: id, stream: stream, store: &keyStore,
            seeded: &seeded)
          plan.newEvents[index].event.schemaVersion = 2
          plan.newEvents[index].event.id = id
        default:
          // Offered sealed (a copy of another log's line, say): it must open here.
          var ring = keys ?? PersonalData.KeyRing(logPath: log.path)
          keys = nil
          defer { keys = ring }
          do {
            if let decoded = try EventVocabulary.decode(
              type: event.type, schemaVersion: event.schemaVersion, data: event.data,
              strict: false)
            {
              _ = try PersonalData.open(
                decoded, id: id, stream: stream, sequence: sequence, keys: &ring)
            }
          } catch {
            throw EngineError.invalidEvent(
              location: nil,
              problem:
                "a schema \(event.schemaVersion) \(event.type) holds data sealed under a key of this log's key store, and this one does not open with it (\(error)); append its schema 1 (plaintext) form and the log seals it"
            )
          }
        }
      }
    }

    /// Writes and syncs the keys sealing made, in one write: called before the write's last
    /// chunk, after every event was checked, so that nothing reaches the key store when an
    /// event was refused, and every key is durable before the write is committed.
    mutating func commit(log: EventLog) throws {
      guard var keyStore = store else { return }
      try keyStore.commitPendingKeys()
      KeyStoreCache.update(keyStore, forLog: log.path)
      store = keyStore
    }
  }

  /// Encodes a write's chunks into lines and writes them, each chunk synced in the background
  /// while the next is made (at most one sync in flight), the last one before `write` returns.
  ///
  /// A chunk's bytes are written once the sync before them has finished, not while it runs:
  /// a `write` to the file during its `fdatasync` made the syncs slower. Measured with
  /// `replay-bench import` of 200,000 events at 100 a chunk, the sync thread was busy for
  /// 0.52-0.62 s writing during syncs and 0.40-0.45 s waiting for them (BENCHMARKS.md,
  /// "Imports checked a chunk at a time").
  struct LineWriter {
    let file: FileDescriptor
    let start: Int64
    let firstSequence: Int64
    let batch: ClosedRange<Int64>?
    let timestamp: Timestamp
    let keepsEvents: Bool
    let syncs: Bool
    private var timestampText: [UInt8] = []
    private var nextSequence: Int64
    private var written: Int64
    private var buffer: [UInt8]
    private var syncer: BackgroundSync?
    private(set) var recorded: [RecordedEvent] = []

    init(
      file: FileDescriptor, state: inout State, timestamp: Timestamp, newCount: Int,
      keepsEvents: Bool, syncs: Bool
    ) {
      self.file = file
      start = state.index.committedEnd
      written = start
      firstSequence = state.index.lastSequence + 1
      nextSequence = firstSequence
      let lastSequence = firstSequence + Int64(newCount) - 1
      batch = newCount > 1 ? firstSequence...lastSequence : nil
      self.timestamp = timestamp
      self.keepsEvents = keepsEvents
      self.syncs = syncs
      // Every event of one write shares its time: format it once.
      timestamp.appendText(to: &timestampText)
      buffer = state.lineBuffer
      state.lineBuffer = []
      buffer.removeAll(keepingCapacity: true)
      state.index.eventOffsets.reserveCapacity(state.index.eventOffsets.count + newCount)
      if keepsEvents { recorded.reserveCapacity(newCount) }
    }

    /// Encodes and writes the chunk; syncs it in the background, or here when it is the last.
    ///
    /// The index takes each event in as it is encoded, while the chunk before syncs, rather
    /// than all of them after the last sync; readers in this process wait for the write's lock
    /// and never see them early, and a write that fails drops the index (`abandon`).
    mutating func write(
      _ plan: Plan, isLast: Bool, log: EventLog, state: inout State
    ) throws {
      for index in plan.newEvents.indices {
        let sequence = nextSequence
        // Read in place: copying each planned event would retain and release its strings.
        let id = plan.newEvents[index].event.id ?? log.configuration.makeEventID(sequence)
        if plan.newEvents[index].event.id == nil, let existing = try state.index.lineOffset(of: id)
        {
          throw EngineError.invalidEvent(
            location: nil,
            problem:
              "the id generator made \(id) for seq \(sequence), but the line at byte \(existing) has it; use another --id-seed"
          )
        }
        state.index.addAppended(
          written + Int64(buffer.count), stream: plan.newEvents[index].stream,
          version: plan.newEvents[index].version, id: id)
        plan.newEvents[index].event.data.withUnsafeBytes { data in
          LogLineCodec.encode(
            sequence: sequence, id: id, stream: plan.newEvents[index].stream,
            version: plan.newEvents[index].version, type: plan.newEvents[index].event.type,
            schemaVersion: plan.newEvents[index].event.schemaVersion, timestamp: timestampText,
            batch: batch, metadata: plan.newEvents[index].event.metadata, data: data,
            into: &buffer)
        }
        if keepsEvents {
          let new = plan.newEvents[index]
          recorded.append(
            RecordedEvent(
              sequence: sequence, id: id, stream: new.stream, version: new.version,
              type: new.event.type, schemaVersion: new.event.schemaVersion, timestamp: timestamp,
              batch: batch, metadata: new.event.metadata, data: new.event.data))
        }
        nextSequence += 1
      }
      // The chunk before this one is synced first (see above).
      try syncer?.wait()
      try buffer.withUnsafeBytes { try file.writeAll($0) }
      written += Int64(buffer.count)
      buffer.removeAll(keepingCapacity: true)
      guard syncs else { return }
      if isLast {
        // The last chunk: synced here, which commits the write.
        try file.synchronize()
      } else {
        // Group commit with overlap: this chunk syncs in the background while the next one is
        // checked, sealed, encoded and written.
        let background = syncer ?? BackgroundSync()
        syncer = background
        background.start(file)
      }
    }

    /// Cuts the log back to where it was before the write (after any sync still running), and
    /// drops the index if it took in events of the write; returns whether it did.
    func abandon(_ state: inout State) -> Bool {
      try? syncer?.wait()
      try? file.truncate(to: start)
      if syncs { try? file.synchronize() }
      guard nextSequence > firstSequence else { return false }
      state.index = LogIndex()
      return true
    }

    /// Moves the index's end past the write, now that every chunk is written and synced;
    /// returns the write's seqs.
    func finish(_ state: inout State) -> ClosedRange<Int64>? {
      state.lineBuffer = buffer.capacity > 1 << 20 ? [] : buffer
      guard nextSequence > firstSequence else { return nil }
      state.index.lastSequence = nextSequence - 1
      state.index.committedEnd = written
      state.lastTimestamp = timestamp
      return firstSequence...(nextSequence - 1)
    }
  }
}
