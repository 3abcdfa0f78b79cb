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
      for index in plan.newEvents.indices {
        let sequence = nextSequence
        // Read in place: copying each planned event would retain and release its strings.
        let id = try plan.newEvents[index].event.id ?? log.generatedID(for: sequence, state: state)
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
