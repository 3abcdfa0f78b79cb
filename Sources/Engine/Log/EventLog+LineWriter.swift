import Events
import Foundation

extension EventLog {
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
    /// The line's `at` and `batch`, the same for every event of the write.
    private let timeAndBatch: [UInt8]
    private var nextSequence: Int64
    private var written: Int64
    private let buffer: LineBuffer
    private var syncer: BackgroundSync?
    private(set) var recorded: [RecordedEvent] = []
    /// The leaf hashes of the lines written, when the writer keeps the log's Merkle tree.
    var treeLeaves: LogTree.LeafRun?

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
      // Every event of one write shares its time and batch: format them once.
      timeAndBatch = LogLineCodec.timeAndBatch(timestamp, batch: batch)
      buffer = state.lineBuffer ?? LineBuffer()
      state.lineBuffer = nil
      buffer.removeAll()
      // (Not for one event: the call is not specialised, and costs more than the insert.)
      if newCount > 1 {
        state.index.eventOffsets.reserveCapacity(state.index.eventOffsets.count + newCount)
      }
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
      // Read in place, through pointers: copying an event out of its array would retain and
      // release each of its strings.
      try plan.writes.withUnsafeBufferPointer { writes in
        try plan.newEvents.withUnsafeBufferPointer { newEvents in
          for new in newEvents.indices {
            let write = newEvents[new].write
            if let sealed = newEvents[new].sealed {
              try add(
                sealed, stream: writes[write].stream, version: newEvents[new].version, log: log,
                state: &state)
            } else {
              try writes[write].events.withUnsafeBufferPointer { events in
                try add(
                  events[newEvents[new].index], stream: writes[write].stream,
                  version: newEvents[new].version, log: log, state: &state)
              }
            }
          }
        }
      }
      // The tree's leaves are hashed while the chunk before this one may still be syncing,
      // which is then waited for (see above): the hashing costs the write no time while a
      // sync is slower than it.
      treeLeaves?.addLines(buffer.bytes)
      try syncer?.wait()
      try file.writeAll(buffer.bytes)
      written += Int64(buffer.count)
      buffer.removeAll()
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

    /// Encodes one event into the chunk's buffer and takes it into the index.
    ///
    /// Not inlined: the caller hands over one copy of the event, and everything here borrows
    /// from it. Inlined, each of its fields was copied again where it was read.
    @inline(never)
    private mutating func add(
      _ event: ProposedEvent, stream: String, version: Int64, log: EventLog, state: inout State
    ) throws {
      let sequence = nextSequence
      let id = try event.id ?? log.generatedID(for: sequence, state: state)
      state.index.addAppended(
        written + Int64(buffer.count), stream: stream, version: version, id: id)
      let room = LogLineCodec.room(
        stream: stream, type: event.type, metadata: event.metadata, shared: timeAndBatch.count,
        dataCount: event.data.count)
      let start = buffer.reserve(room)
      buffer.commit(
        LogLineCodec.write(
          sequence: sequence, id: id, stream: stream, version: version, type: event.type,
          schemaVersion: event.schemaVersion, timeAndBatch: timeAndBatch,
          metadata: event.metadata, data: event.data, at: start))
      if keepsEvents { keep(event, sequence: sequence, id: id, stream: stream, version: version) }
      nextSequence += 1
    }

    /// Keeps the event as recorded, for the caller. Apart from `add`: there, the copy of the
    /// metadata that a `RecordedEvent` takes was made for every event, kept or not.
    @inline(never)
    private mutating func keep(
      _ event: ProposedEvent, sequence: Int64, id: EventID, stream: String, version: Int64
    ) {
      recorded.append(
        RecordedEvent(
          sequence: sequence, id: id, stream: stream, version: version, type: event.type,
          schemaVersion: event.schemaVersion, timestamp: timestamp, batch: batch,
          metadata: event.metadata, data: event.data))
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
      state.lineBuffer = buffer.capacity > 1 << 20 ? nil : buffer
      guard nextSequence > firstSequence else { return nil }
      state.index.lastSequence = nextSequence - 1
      state.index.committedEnd = written
      state.lastTimestamp = timestamp
      return firstSequence...(nextSequence - 1)
    }
  }
}
