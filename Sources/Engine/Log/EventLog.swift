import Dispatch
import Events
import Foundation
import Synchronization

/// A JSON-lines event log on disk, open for appending.
///
/// - Appends to one or many streams are atomic: every line of a write or none of them.
/// - Each append checks the stream's expected version under an exclusive `flock`, so writers in
///   other processes cannot slip in between the check and the write; a writer waits up to
///   `lockTimeout` for the lock.
/// - Appending an event id that is already in the log appends nothing and reports where it is;
///   the same id with other content is an error.
/// - By default every append is `fdatasync`ed before it returns (`SyncPolicy.always`).
/// - A file that is not a log (not a regular file, or a first line that is no log line) is
///   refused before a byte of it is changed.
/// - Opening a log whose end was torn by a crash moves the torn tail into
///   `<log>.quarantine/`, cuts it off and reports both; any other damage stops the writer.
/// - Event times never go backwards: a later event is stamped at least the last event's time.
///
/// Thread-safe: appends from several threads are serialized.
public final class EventLog: Sendable {
  /// When appends reach stable storage.
  public enum SyncPolicy: Sendable, Equatable {
    /// Every append call (and every chunk of an import) is synced before it returns: an append
    /// reported done survives a crash of the process or the machine.
    case always
    /// Never sync. The OS writes data back when it likes: a crash of the machine (not of the
    /// process) may lose recent appends. For scratch logs and benchmarks only.
    case never
  }

  /// How a log behaves; every part can be injected for tests and reproducible logs.
  public struct Configuration: Sendable {
    /// The time stamped on appended events.
    public var clock: @Sendable () -> Timestamp
    /// Whether `clock` is a time someone chose (`--clock`) rather than the system's: a chosen
    /// time earlier than the last event's is an error, the system's is raised to it.
    public var clockIsChosen = false
    /// Makes an id for an event appended without one, given the sequence number it will get.
    public var makeEventID: @Sendable (_ sequence: Int64) -> EventID
    /// When appends are synced.
    public var syncPolicy: SyncPolicy
    /// How long a writer waits for another process's lock, in seconds.
    public var lockTimeout: Double
    /// Where recovery reports and warnings go.
    public var report: @Sendable (String) -> Void
    /// Read size for scans.
    public var readSize: Int
    /// How many events past the saved index (`<log>.index`) a writer holds in memory before it
    /// saves a new one, after a write; `nil` never saves (a saved index is still used).
    public var indexSaveThreshold: Int?
    /// Draws the keys and nonces that seal contacts' personal data from SplitMix64 seeded
    /// with this text and each write's first seq, instead of the system's secure random
    /// source: anyone with the seed can rebuild the keys. Only for generated logs (`replay
    /// generate` sets it so that a seed gives the same bytes); `nil` for real data.
    public var sealingSeed: String?
    /// Which writes check each event's own rules ahead of the write on a second thread
    /// (`Prechecks`); tests compare `.never` with `.everyEvent`.
    var prechecks = Prechecks.Use.largeWrites

    public init(
      clock: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) },
      makeEventID: @escaping @Sendable (Int64) -> EventID = { _ in EventID.random() },
      syncPolicy: SyncPolicy = .always,
      lockTimeout: Double = 10,
      report: @escaping @Sendable (String) -> Void = { _ in },
      readSize: Int = LogReader.defaultReadSize,
      indexSaveThreshold: Int? = 4096
    ) {
      self.clock = clock
      self.makeEventID = makeEventID
      self.syncPolicy = syncPolicy
      self.lockTimeout = lockTimeout
      self.report = report
      self.readSize = readSize
      self.indexSaveThreshold = indexSaveThreshold
      self.sealingSeed = nil
    }
  }

  /// One stream's part of a write.
  public struct StreamWrite: Sendable, Equatable {
    public var stream: String
    public var expectedVersion: ExpectedVersion
    public var events: [ProposedEvent]

    public init(stream: String, expectedVersion: ExpectedVersion = .any, events: [ProposedEvent]) {
      self.stream = stream
      self.expectedVersion = expectedVersion
      self.events = events
    }
  }

  /// What became of one proposed event.
  public struct Outcome: Sendable, Equatable {
    /// The event as the log holds it (for a duplicate, the copy already there).
    public var event: RecordedEvent
    /// Whether the id was already in the log, so nothing was appended for it.
    public var isDuplicate: Bool
  }

  /// What an import wrote.
  public struct ImportSummary: Sendable, Equatable {
    /// Events appended.
    public var appendedCount: Int
    /// Events whose ids were already in the log with the same content.
    public var duplicateCount: Int
    /// The sequence numbers appended, if any.
    public var sequences: ClosedRange<Int64>?

    package init(appendedCount: Int, duplicateCount: Int, sequences: ClosedRange<Int64>?) {
      self.appendedCount = appendedCount
      self.duplicateCount = duplicateCount
      self.sequences = sequences
    }
  }

  /// The log file's path.
  public let path: String
  /// The log and its files as this process has them open, shared with its readers.
  let openLog: OpenLog
  /// `path` as a C string, made once: every write looks at what the path names.
  private let cPath: ContiguousArray<CChar>
  /// The configuration it was opened with.
  public let configuration: Configuration
  let state: Mutex<State>

  struct State: ~Copyable {
    var file: FileDescriptor?
    var identity: FileDescriptor.Status?
    var index = LogIndex()
    /// The last write's buffer, kept for the next (when it stayed small).
    var lineBuffer: LineBuffer?
    var directorySynced = false
    /// The last event's time, once read (`nil` until needed, and after another writer's append).
    var lastTimestamp: Timestamp?
    /// Set once the saved index failed a check: this writer reads the log instead.
    var ignoresIndexFile = false
    /// Set once this writer looked for an erasure left unfinished by a crash.
    var erasuresChecked = false
    /// The log's Merkle tree, once this writer keeps it (`EventLog+Tree`).
    var tree: LogTree?

    deinit { file?.close() }
  }

  /// Opens the log at `path`, recovers a torn tail, and reads it once to build the writer's
  /// index. A missing file is an empty log: nothing is created until the first append.
  /// - Throws: `EngineError.corruptLine` when a line before the end is bad, `.notALog`,
  ///   `.lockTimeout`, `.io`.
  public init(path: String, configuration: Configuration = Configuration()) throws {
    self.path = path
    openLog = OpenLog.named(path)
    cPath = path.utf8CString
    self.configuration = configuration
    state = Mutex(State())
    try withLockedLog(creating: false) { _ in }
  }

  /// The last committed event's sequence number (0 for an empty log), as of the last append or
  /// refresh by this writer.
  public var lastSequence: Int64 {
    state.withLock { $0.index.lastSequence }
  }

  /// The offset just past the last committed line, as of the last append or refresh by this
  /// writer.
  package var committedEnd: Int64 {
    state.withLock { $0.index.committedEnd }
  }

  /// A stream's version (0 when it has no events), as of the last append or refresh.
  public func version(of stream: String) throws -> Int64 {
    try readIndex { try $0.version(of: stream) }
  }

  /// The number of distinct streams, as of the last append or refresh.
  public func streamCount() throws -> Int {
    try readIndex { try $0.streamCount() }
  }

  /// Every event of `stream`, in version order, and the stream's version, read under the lock
  /// with the index current (so the version is the one an append must expect next).
  /// - Complexity: one read per event of the stream; the rest of the log is not read.
  public func events(inStream stream: String) throws -> (events: [RecordedEvent], version: Int64) {
    let history = try events(inStreams: [stream])[stream] ?? .empty
    return (history.events, history.version)
  }

  /// The names of every stream whose name starts with `prefix` (in no particular order), as of
  /// the last append or refresh.
  public func streamNames(withPrefix prefix: String) throws -> [String] {
    try readIndex { try $0.streamNames(withPrefix: prefix) }
  }

  /// Whether an event with this id is in the log, as of the last append or refresh.
  public func contains(eventID: EventID) throws -> Bool {
    try readIndex { try $0.lineOffset(of: eventID) != nil }
  }

  /// Answers from the index as it is; when the saved index fails a check, from the log (see
  /// `withLockedLog`).
  private func readIndex<T>(_ body: (borrowing LogIndex) throws -> T) throws -> T {
    do {
      return try state.withLock { try body($0.index) }
    } catch is LogIndexFile.Damaged {
      return try withLockedLog(creating: false) { try body($0.index) }
    }
  }

  /// A reader over the same file.
  public var reader: LogReader {
    LogReader(openLog: openLog, readSize: configuration.readSize, warn: configuration.report)
  }

  // MARK: Appending

  /// Appends `events` to `stream` atomically, if the stream is at `expectedVersion`.
  ///
  /// Events whose ids are already in the log (with the same stream, type and data) are not
  /// appended again; their outcome reports the existing copy.
  /// - Returns: one outcome per event, in order.
  /// - Throws: `EngineError.versionConflict`, `.duplicateEventID`, `.invalidEvent`,
  ///   `.lockTimeout`, `.io`; the log is unchanged when anything is thrown.
  @discardableResult
  public func append(
    _ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion = .any
  ) throws -> [Outcome] {
    try append([StreamWrite(stream: stream, expectedVersion: expectedVersion, events: events)])
  }

  /// Appends writes to several streams as one atomic write (one sync).
  @discardableResult
  public func append(_ writes: [StreamWrite]) throws -> [Outcome] {
    try withLockedLog { state in
      let written = try writeEvents(writes, chunkSize: Int.max, keepsEvents: true, state: &state)
      if written.appendedCount > 0 { saveIndexIfDue(&state) }
      return written.outcomes
    }
  }

  /// Appends many writes as one atomic write, synced once per `chunkSize` events (group
  /// commit): the import is committed when its last chunk is synced, and a crash before that
  /// leaves nothing of it once the log is reopened.
  ///
  /// Each chunk is checked, sealed and encoded while the one before it syncs; an event that
  /// fails a check cuts the log back to where it was, so a bad event anywhere still leaves the
  /// log (and the key store) as they were.
  @discardableResult
  public func importEvents(_ writes: [StreamWrite], chunkSize: Int = 1000) throws -> ImportSummary {
    precondition(chunkSize > 0, "chunk size must be positive")
    return try withLockedLog { state in
      let written = try writeEvents(writes, chunkSize: chunkSize, keepsEvents: false, state: &state)
      if written.appendedCount > 0 { saveIndexIfDue(&state) }
      return ImportSummary(
        appendedCount: written.appendedCount, duplicateCount: written.duplicateCount,
        sequences: written.sequences)
    }
  }

  /// Re-reads whatever other processes appended since this writer last looked (and recovers a
  /// torn tail). Appends do this themselves; call it to refresh `lastSequence` and `version(of:)`.
  public func refresh() throws {
    try withLockedLog(creating: false) { _ in }
  }

  // MARK: Locking and catching up

  /// Runs `body` holding the in-process mutex and the file lock, with the index current.
  ///
  /// When the saved index fails a check on the way (a damaged page), it is dropped, the log is
  /// read instead, and `body` runs again: nothing is written before a write's plan is made,
  /// and a write that fails part-way is cut back, so running it again is safe.
  /// - Parameter creating: whether a missing log is created (for a write). Without it, a
  ///   missing log is an empty one: `body` runs with no file, no lock and an empty index.
  func withLockedLog<T>(creating: Bool = true, _ body: (inout State) throws -> T) throws -> T {
    try state.withLock { state in
      guard let file = try openIfNeeded(&state, creating: creating) else {
        return try body(&state)
      }
      try acquireFileLock(file)
      defer { file.unlock() }
      do {
        try catchUp(file, &state)
        if !state.erasuresChecked { try completePendingErasures(file, &state) }
        return try body(&state)
      } catch let damage as LogIndexFile.Damaged {
        configuration.report(
          "ignoring the index '\(LogIndexFile.path(forLog: path))' (\(damage.problem)): reading the log instead"
        )
        state.ignoresIndexFile = true
        state.index = LogIndex()
        try catchUp(file, &state)
        return try body(&state)
      }
    }
  }

  /// Saves the index beside the log when enough events were read or appended past the saved
  /// one. A failure is reported, never thrown: the write it follows is done.
  ///
  /// A save copies the whole saved index, so it is due when the lines past it are worth that:
  /// `threshold` or more lines that this writer had to *read* (every later process would read
  /// them again), or, for lines it appended itself, a quarter of the saved index (so a writer
  /// that appends millions of events saves a few times, not thousands). `saveIndex()` saves at
  /// once, e.g. when a long write ends.
  private func saveIndexIfDue(_ state: inout State) {
    guard let threshold = configuration.indexSaveThreshold else { return }
    let pending = state.index.linesSinceBase
    let saved = state.index.base?.eventCount ?? 0
    guard pending >= threshold,
      state.index.linesReadSinceBase >= threshold || pending >= saved / 4
    else { return }
    saveIndex(&state)
  }

  /// Saves the writer's index beside the log now (`<log>.index`), so that the next process to
  /// open the log reads only what is appended after this point. Writers save it on their own
  /// (see `Configuration.indexSaveThreshold`); call this when a long series of writes ends.
  /// - Throws: `EngineError.lockTimeout`, `.io` for the log; a failure to save the index itself
  ///   is reported through `Configuration.report`, not thrown.
  public func saveIndex() throws {
    try withLockedLog(creating: false) { state in
      if state.index.linesSinceBase > 0 { saveIndex(&state) }
      saveTree(&state)
    }
  }

  private func saveIndex(_ state: inout State) {
    guard let file = state.file, state.index.committedEnd > 0 else { return }
    do {
      try LogIndexFile.save(state.index, forLog: path, log: file)
      switch LogIndexFile.open(forLog: path, log: file, committedEnd: state.index.committedEnd) {
      case .success(let saved):
        state.index = LogIndex(base: saved)
        state.ignoresIndexFile = false
      case .failure(let damage):
        configuration.report(
          "the index just saved beside '\(path)' does not check: \(damage.problem)")
      }
    } catch {
      configuration.report("could not save the index beside '\(path)': \(error)")
    }
  }

  /// The open log, reopened when the path now names another file (the log was replaced or
  /// moved away); `nil` when there is no file and `creating` is false.
  private func openIfNeeded(_ state: inout State, creating: Bool) throws -> FileDescriptor? {
    if let file = state.file, let identity = state.identity,
      let current = cPath.withUnsafeBufferPointer({ FileDescriptor.status(atPath: $0) }),
      current.device == identity.device, current.inode == identity.inode
    {
      return file
    }
    state.file?.close()
    state.file = nil
    state.tree = nil
    guard let file = try Self.openExisting(path, creating: creating) else {
      // No log yet: an empty one, which the first append creates.
      state.identity = nil
      state.index = LogIndex()
      return nil
    }
    state.file = file
    state.identity = try file.status()
    state.index = LogIndex()
    return file
  }

  /// The log file, opened for reading and appending; `nil` when it is missing and `creating`
  /// is false.
  private static func openExisting(
    _ path: String, creating: Bool
  ) throws(EngineError) -> FileDescriptor? {
    guard !creating else { return try FileDescriptor.open(path, .appendCreating) }
    do {
      return try FileDescriptor.open(path, .appendExisting)
    } catch {
      guard case .fileNotFound = error else { throw error }
      return nil
    }
  }

  private func acquireFileLock(_ file: FileDescriptor) throws {
    guard try file.lockExclusive(waitingUpTo: configuration.lockTimeout) else {
      throw EngineError.lockTimeout(path: path, seconds: configuration.lockTimeout)
    }
  }

  /// Brings the index up to the file's committed end; moves a torn tail into quarantine and
  /// cuts it off.
  func catchUp(_ file: FileDescriptor, _ state: inout State) throws {
    let size = try file.status().size
    if size == state.index.committedEnd { return }
    if state.index.committedEnd == 0 { try LogStart.check(file, path: path, size: size) }
    state.lastTimestamp = nil
    let tail = try LogTail.examine(file, path: path)
    if tail.committedEnd < state.index.committedEnd {
      // The file no longer holds what we indexed: start over.
      state.index = LogIndex()
      state.tree = nil
    }
    if state.index.committedEnd == 0, state.index.base == nil, !state.ignoresIndexFile,
      case .success(let saved) = LogIndexFile.open(
        forLog: path, log: file, committedEnd: tail.committedEnd)
    {
      // A saved index that checks against the log: only the lines after it are read.
      state.index = LogIndex(base: saved)
    }
    do {
      try state.index.catchUp(reading: file, with: reader, to: tail.committedEnd)
    } catch EngineError.corruptLine(let path, let line, let offset, let problem) {
      throw EngineError.corruptLine(
        path: path, line: line, offset: offset,
        problem: problem
          + "; nothing was written ('replay repair' shows what it would move into quarantine to make the log writable)"
      )
    }
    if tail.hasUncommittedBytes, let description = tail.uncommittedDescription {
      // The bytes survive the cut: they are in quarantine, synced, before the log shrinks.
      let saved = try Quarantine.save(
        tail.committedEnd..<tail.fileSize, of: file, logPath: path,
        afterSequence: tail.lastSequence)
      try file.truncate(to: tail.committedEnd)
      if configuration.syncPolicy == .always { try file.synchronize() }
      configuration.report("recovered '\(path)': cut \(description); the bytes are in '\(saved)'")
    }
  }

  /// The time to stamp on the next write: the clock's, unless that is earlier than the last
  /// event's (see `Configuration.clockIsChosen`).
  func eventTime(_ state: inout State) throws -> Timestamp {
    let now = configuration.clock()
    guard state.index.lastSequence > 0, let file = state.file else { return now }
    let last: Timestamp
    if let known = state.lastTimestamp {
      last = known
    } else {
      let end = state.index.committedEnd
      guard let start = try LineScanner.startsOfLastLines(file, count: 1, before: end).first
      else { return now }
      last = try recordedEvent(in: file, at: start).timestamp
      state.lastTimestamp = last
    }
    return try Self.eventTime(
      now, after: last, sequence: state.index.lastSequence, configuration: configuration)
  }

  /// `now`, unless it is earlier than `last`, the time of seq `sequence` (the last event):
  /// then `last` for the system's clock (reported), an error for a chosen one.
  static func eventTime(
    _ now: Timestamp, after last: Timestamp, sequence: Int64, configuration: Configuration
  ) throws -> Timestamp {
    guard now < last else { return now }
    if configuration.clockIsChosen {
      throw EngineError.invalidEvent(
        location: nil,
        problem:
          "the clock says \(now), earlier than \(last), the time of seq \(sequence) (the last event); event times never go backwards: give a time at or after \(last)"
      )
    }
    configuration.report(
      "the system clock says \(now), earlier than \(last), the time of seq \(sequence) (the last event): the new events are stamped \(last)"
    )
    return last
  }

  /// Reads the event whose line starts at `offset`.
  func recordedEvent(in file: FileDescriptor, at offset: Int64) throws -> RecordedEvent {
    try Self.recordedEvent(in: file, at: offset, path: path)
  }

  /// The events of `stream` whose lines start at `offsets` (the index's, in version order),
  /// each checked to be the stream's next version; read as `ScatteredLines` reads them.
  /// - Throws: `LogIndexFile.Damaged` when a line is not the version the index says it is.
  static func streamEvents(
    _ stream: String, at offsets: [Int64], in file: FileDescriptor, path: String
  ) throws -> [RecordedEvent] {
    var events: [RecordedEvent] = []
    events.reserveCapacity(offsets.count)
    try ScatteredLines.forEach(at: offsets, in: file, path: path) { offset, line in
      let event = line.recordedEvent()
      guard event.stream.utf8.elementsEqual(stream.utf8), event.version == events.count + 1
      else {
        throw LogIndexFile.Damaged(
          problem:
            "it puts version \(events.count + 1) of '\(stream)' at byte \(offset), where the log has version \(event.version) of '\(event.stream)'"
        )
      }
      events.append(event)
      return true
    }
    return events
  }

  /// Reads the event whose line starts at `offset` of the log at `path`.
  static func recordedEvent(
    in file: FileDescriptor, at offset: Int64, path: String
  ) throws -> RecordedEvent {
    try ScatteredLines.withLine(at: offset, in: file, path: path) { $0.recordedEvent() }
  }
}
