import Events

/// How far a long read has come: bytes read, and bytes it will read in all.
public typealias ReadProgress = @Sendable (_ done: Int64, _ total: Int64) -> Void

/// How many lines pass between two calls of a read's `progress`.
let progressInterval: Int64 = 8192

/// Reads the committed events of a log, in order, straight from its bytes.
///
/// Readers take no lock: they snapshot the file's committed end when they start (see `LogTail`)
/// and never see a partial line or an unfinished multi-event write. Every line's checksum and
/// envelope are checked, and sequence numbers must run gapless from 1: a bad line is an error
/// naming its line number, never skipped.
public struct LogReader: Sendable {
  /// The log file.
  public var path: String { openLog.path }
  /// The log and its files as this process has them open, shared with its other readers and
  /// its writer.
  package let openLog: OpenLog
  /// Bytes per read; tests use tiny sizes to cross every line boundary.
  public var readSize: Int
  /// Where warnings go (e.g. a torn last line being ignored); stderr in the CLI.
  public var warn: @Sendable (String) -> Void
  /// Told how far a read has come, every `progressInterval` lines: bytes read and bytes to
  /// read. It may run on the reading thread (see `forEachEvent`).
  public var progress: ReadProgress?
  /// Reads of at least this many bytes run on two threads (see `PipelinedScan`): one checks
  /// and decodes envelopes while the caller's thread runs the body. Smaller reads stay on the
  /// caller's thread, where a second thread would cost more than it saves.
  public var pipelineThreshold: Int64 = 8 << 20
  /// The largest share of the log's events that `forEachEvent(matching:)` reads line by line
  /// through the index; past it a scan is cheaper.
  var indexedReadShare = 0.125

  /// A place in the log to start reading: the byte offset of a line and the sequence number of
  /// the event on it (line numbers equal sequence numbers in a valid log).
  public struct Position: Sendable, Equatable, Hashable {
    public var offset: Int64
    public var sequence: Int64

    public init(offset: Int64, sequence: Int64) {
      self.offset = offset
      self.sequence = sequence
    }

    /// The first event.
    public static let start = Position(offset: 0, sequence: 1)
  }

  /// What a read covered.
  public struct Summary: Sendable, Equatable {
    /// The last event handed out (0 if none).
    public var lastSequence: Int64
    /// Offset just past the last event handed out.
    public var endOffset: Int64
    /// The log's committed end when the read began.
    public var committedEnd: Int64
    /// Whether the body stopped the read before the end.
    public var stoppedEarly: Bool
  }

  /// The default read size, 1 MiB: large enough that system calls cost nothing next to
  /// parsing, small enough that a replay's chunks in flight stay a few MiB. With 4 MiB chunks
  /// (three in flight) a full rebuild of the 1 M-event log peaked at 85 MiB; with 1 MiB (four)
  /// at 72 MiB, in the same time (BENCHMARKS.md, "Hashing beside the work").
  public static let defaultReadSize = 1 << 20

  public init(
    path: String, readSize: Int = LogReader.defaultReadSize,
    warn: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.init(openLog: OpenLog.named(path), readSize: readSize, warn: warn)
  }

  /// A reader of `openLog`, which its other readers and its writer share.
  init(
    openLog: OpenLog, readSize: Int = LogReader.defaultReadSize,
    warn: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.openLog = openLog
    self.readSize = readSize
    self.warn = warn
  }

  /// Calls `body` with each committed event from `position` on; `body` returns false to stop.
  /// - Throws: `EngineError.fileNotFound` when there is no log, `.corruptLine` at the first bad
  ///   line, `.io` when reading fails.
  /// - Parameter observe: when given, sees every line read, in order, before `body` does; on a
  ///   long read it runs on the reading thread, in parallel with `body` (so it must not touch
  ///   what `body` touches), and may see lines past where `body` stops.
  @discardableResult
  package func forEachEvent(
    from position: Position = .start, through last: Int64? = nil,
    observe: (@Sendable (EventLine) -> Void)? = nil,
    _ body: (EventLine) throws -> Bool
  ) throws -> Summary {
    try forEachEvent(from: position, through: last, observe: observe, prepare: Self.nothing) {
      line, _ in try body(line)
    }
  }

  /// No work ahead of the body.
  private static let nothing: (@Sendable (EventLine) -> Never?)? = nil

  /// `forEachEvent`, with work the reading thread may do on each line ahead of `body`: what
  /// `prepare` returns for a line reaches `body` with it. On a short read (one thread) or for
  /// a line `prepare` returned `nil` for, `body` gets `nil` and does the work itself.
  @discardableResult
  func forEachEvent<Prepared>(
    from position: Position = .start, through last: Int64? = nil,
    observe: (@Sendable (EventLine) -> Void)? = nil,
    prepare: (@Sendable (EventLine) -> Prepared?)?,
    _ body: (EventLine, consuming Prepared?) throws -> Bool
  ) throws -> Summary {
    let file = try openLog.openForReading()
    defer { file.close() }
    let tail = try LogTail.examine(file, path: path)
    if let bad = tail.badLastLine {
      warn(
        "ignoring the damaged last line of '\(path)' (bytes \(bad.range.lowerBound)..<\(bad.range.upperBound): "
          + "\(bad.problem)); a crash mid-append leaves such a line, and the next append removes it"
      )
    } else if let torn = try tornTail(tail, of: file) {
      warn(torn)
    }
    return try read(
      file, from: position, to: tail.committedEnd, through: last, observe: observe,
      prepare: prepare, body)
  }

  /// What a reader says when it stops before an unfinished write that no writer is finishing:
  /// `nil` when the log ends with its last committed event, or when a writer holds the lock
  /// (the write is in progress, and readers rightly wait for it).
  ///
  /// A writer holds the exclusive lock from before its first byte until its write is synced,
  /// so uncommitted bytes with the lock free were torn by a writer that died: readers show the
  /// log as it was before them, which can be far less than it looks (a log cut inside an
  /// import of 20,000 events shows none of them). The lock is only tried, never waited for,
  /// and let go at once.
  func tornTail(_ tail: LogTail, of file: FileDescriptor) throws -> String? {
    guard let description = tail.uncommittedDescription else { return nil }
    guard try file.tryLockExclusive() else { return nil }
    file.unlock()
    return
      "'\(path)' ends with a torn write (no writer holds its lock, so it is not in progress): "
      + "\(description); what is shown is the log at seq \(tail.lastSequence). 'replay verify' "
      + "shows it, and 'replay repair --apply' moves it into quarantine (so does the next append)"
  }

  /// Reads `position..<end` of an open log, checking every line and the sequence order.
  @discardableResult
  package func read(
    _ file: FileDescriptor, from position: Position, to end: Int64, through last: Int64? = nil,
    observe: (@Sendable (EventLine) -> Void)? = nil,
    _ body: (EventLine) throws -> Bool
  ) throws -> Summary {
    try read(
      file, from: position, to: end, through: last, observe: observe, prepare: Self.nothing
    ) { line, _ in try body(line) }
  }

  /// `read`, with work the reading thread may do ahead of `body` (see `forEachEvent`).
  @discardableResult
  func read<Prepared>(
    _ file: FileDescriptor, from position: Position, to end: Int64, through last: Int64? = nil,
    observe: (@Sendable (EventLine) -> Void)? = nil,
    prepare: (@Sendable (EventLine) -> Prepared?)?,
    _ body: (EventLine, consuming Prepared?) throws -> Bool
  ) throws -> Summary {
    if let last, position.sequence > last {
      // Nothing to read (a replay starting from a checkpoint at its target, say): no line of
      // the file is decoded, on either path.
      return Summary(
        lastSequence: position.sequence - 1, endOffset: position.offset, committedEnd: end,
        stoppedEarly: false)
    }
    // Progress rides on the observer: it sees every line, on whichever thread reads.
    var observe = observe
    if let progress {
      let start = position.offset
      let observed = observe
      observe = { line in
        observed?(line)
        if line.sequence % progressInterval == 0 { progress(line.offset - start, end - start) }
      }
    }
    if end - position.offset >= pipelineThreshold {
      let result = try PipelinedScan<Prepared>(chunkSize: readSize).scan(
        file, path: path, from: position, to: end, through: last ?? .max, observe: observe,
        prepare: prepare, body)
      return Summary(
        lastSequence: result.lastSequence, endOffset: result.endOffset, committedEnd: end,
        stoppedEarly: result.stoppedEarly)
    }
    var expectedSequence = position.sequence
    var deliveredEnd = position.offset
    var reachedLast = false
    let path = self.path
    var memo = LogLineCodec.Memo()
    let outcome = try LineScanner(readSize: readSize).scan(file, from: position.offset, to: end) {
      base, length, offset in
      if let last, expectedSequence > last {
        reachedLast = true
        return false
      }
      let lineNumber = Int(expectedSequence)
      let line: EventLine
      do throws(LogLineCodec.Problem) {
        line = try LogLineCodec.decode(
          base, length: length, lineNumber: lineNumber, offset: offset, memo: &memo)
      } catch {
        throw EngineError.corruptLine(
          path: path, line: lineNumber, offset: offset, problem: error.message)
      }
      guard line.sequence == expectedSequence else {
        throw EngineError.corruptLine(
          path: path, line: lineNumber, offset: offset,
          problem: LogRules.Violation.sequence(found: line.sequence, expected: expectedSequence)
            .description)
      }
      expectedSequence += 1
      deliveredEnd = offset + Int64(length) + 1
      observe?(line)
      return try body(line, nil)
    }
    return Summary(
      lastSequence: expectedSequence - 1,
      endOffset: reachedLast ? deliveredEnd : outcome.endOfLastLine, committedEnd: end,
      stoppedEarly: outcome.stoppedEarly && !reachedLast)
  }
}
