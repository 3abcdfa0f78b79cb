import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// `replay repair`: finds where a log stops being sound and, when asked, cuts it back to the end
/// of its last whole write, moving every byte it cuts into `<log>.quarantine/` first.
///
/// Recovery (see `LogTail`) cuts only what a crash can leave; damage it cannot explain as a
/// torn write stops every writer. Repair is the documented way out: it reads the log from the
/// start, checks each line as a writer would (checksum and envelope, seq gapless, versions
/// consecutive per stream, ids unique, multi-event writes whole) and proposes to cut from the
/// end of the last write that is whole before the first problem. Nothing is lost: the cut
/// bytes are kept, synced, in quarantine.
package struct LogRepair: Sendable {
  /// What repair would cut, and why.
  public struct Cut: Sendable, Equatable {
    /// The bytes moved into quarantine: from the end of the last whole write (or, when the
    /// intact start of a damaged write is kept, from that write's start) to the end of the file.
    public var range: Range<Int64>
    /// The last event kept (after the rewrite, when there is one).
    public var keptSequence: Int64
    /// Why the log cannot be kept as it is past the damage.
    public var reason: String
    /// The seq of the first event that is not kept: the damaged line's (or the first of an
    /// unfinished write).
    public var firstCutSequence: Int64
    /// The highest seq among the cut lines that still decode, if any does.
    public var lastCutSequence: Int64?
    /// How many lines are cut (a last line without its newline counts as one), not counting
    /// the lines `rewrite` keeps.
    public var cutLineCount: Int
    /// The intact start of a damaged write, kept as a write of its own; `nil` when the damage
    /// is not inside a committed write of several events.
    public var rewrite: Rewrite?
    /// The checkpoints (by seq) that cover a line the cut removes or rewrites: `apply` deletes
    /// them with the cut, since a replay refuses a log shorter than a checkpoint says it was
    /// (they are caches; the next long replay saves new ones).
    public var staleCheckpoints: [Int64] = []

    /// The first seq whose line the cut removes or writes again.
    public var firstChangedSequence: Int64 { rewrite?.write.lowerBound ?? keptSequence + 1 }

    /// Events of a damaged write that are kept: its lines before the damaged one, which
    /// decode and follow every rule of the log, written again as one write of their own (each
    /// line's `batch` becomes `kept`, or goes when one event is kept; its checksum follows).
    /// The write was committed (its last line is in the file), so these events were
    /// acknowledged; the lines after the damage are cut.
    public struct Rewrite: Sendable, Equatable {
      /// The damaged write's seqs, as its lines name it.
      public var write: ClosedRange<Int64>
      /// The seqs kept from it.
      public var kept: ClosedRange<Int64>
      /// The kept lines as written again.
      var lines: [UInt8]
    }
  }

  /// The log file.
  public let path: String
  /// How long `apply` waits for a writer's lock, in seconds.
  public var lockTimeout: Double

  public init(path: String, lockTimeout: Double = 10) {
    self.path = path
    self.lockTimeout = lockTimeout
  }

  /// What repair would cut; `nil` when the log is sound to its last byte.
  /// - Throws: `EngineError.fileNotFound`, `.notALog` (repair never cuts a file it cannot show
  ///   is a log), `.io`.
  public func examine() throws -> Cut? {
    let file = try OpenLog.named(path).openForReading()
    defer { file.close() }
    return try examine(file)
  }

  /// Moves what `examine` finds into quarantine and cuts the log back, holding the writers'
  /// lock. Returns the cut and the quarantine file, or `nil` when there was nothing to cut.
  public func apply() throws -> (cut: Cut, quarantine: String)? {
    // Opened only once it is known to exist: repair never creates a log.
    try FileDescriptor.open(path, .readOnly).close()
    let file = try FileDescriptor.open(path, .appendCreating)
    defer { file.close() }
    guard try file.lockExclusive(waitingUpTo: lockTimeout) else {
      throw EngineError.lockTimeout(path: path, seconds: lockTimeout)
    }
    defer { file.unlock() }
    guard let cut = try examine(file) else { return nil }
    // Every cut byte is in quarantine, synced, before the log changes; the kept start of a
    // damaged write is then appended as a write of its own. A crash in between leaves the log
    // at the end of the last whole write, and a torn rewrite is what recovery cuts.
    let saved = try Quarantine.save(
      cut.range, of: file, logPath: path,
      afterSequence: cut.rewrite.map { $0.write.lowerBound - 1 } ?? cut.keptSequence)
    try file.truncate(to: cut.range.lowerBound)
    try file.synchronize()
    if let rewrite = cut.rewrite {
      let written = rewrite.lines.withUnsafeBytes { bytes in
        Result { () throws(EngineError) in try file.writeAll(bytes) }
      }
      try written.get()
      try file.synchronize()
    }
    // `examine` listed them; each is removed by its name.
    try removeCheckpoints(at: cut.staleCheckpoints)
    return (cut, saved)
  }

  /// Removes the log's checkpoints at `sequences` by name (caches of lines a repair changed).
  func removeCheckpoints(at sequences: some Sequence<Int64>) throws {
    let checkpoints = CheckpointStore(logPath: path)
    for sequence in sequences {
      let stale = checkpoints.path(for: sequence)
      guard SidecarFile.remove(stale) else {
        throw EngineError.io(path: stale, operation: "unlink", code: errno)
      }
    }
  }

  func examine(_ file: FileDescriptor) throws -> Cut? {
    let size = try file.status().size
    try LogStart.check(file, path: path, size: size)
    var rules = LogRules.Sequence()
    var versions: [String: Int64] = [:]
    var ids: Set<EventID> = []
    var wholeEnd: Int64 = 0
    var kept: Int64 = 0
    var problem: String?
    var problemOffset: Int64?
    let outcome = try LineScanner().scan(file, from: 0, to: size) { base, length, offset in
      let number = Int(rules.expected)
      func stop(_ violation: some CustomStringConvertible) -> Bool {
        problem = "line \(number) (byte \(offset)): \(violation)"
        problemOffset = offset
        return false
      }
      let line: EventLine
      do throws(LogLineCodec.Problem) {
        line = try LogLineCodec.decode(base, length: length, lineNumber: number, offset: offset)
      } catch {
        return stop(error.message)
      }
      if let violation = rules.violation(sequence: line.sequence) { return stop(violation) }
      var broken: LogRules.Violation?
      rules.violations(sequence: line.sequence, write: line.batch) { broken = broken ?? $0 }
      if let broken { return stop(broken) }
      let stream = line.stream
      let previous = versions[stream] ?? 0
      guard LogRules.versionFollows(previous, line.version) else {
        return stop(
          LogRules.Violation.version(stream: stream, previous: previous, found: line.version))
      }
      guard ids.insert(line.id).inserted else {
        return stop(LogRules.Violation.duplicateID(line.id, earlier: .unknown))
      }
      versions[stream] = line.version
      rules.accept(sequence: line.sequence, write: line.batch)
      if rules.openWrite == nil {
        wholeEnd = offset + Int64(length) + 1
        kept = line.sequence
      }
      return true
    }
    guard wholeEnd < size else { return nil }
    var reasons: [String] = []
    if let problem { reasons.append(problem) }
    if problem == nil, let batch = rules.openWrite {
      reasons.append("an unfinished write of events \(batch.lowerBound)...\(batch.upperBound)")
    }
    if problem == nil, outcome.endOfLastLine < size {
      reasons.append(
        "an incomplete line of \(size - outcome.endOfLastLine) bytes with no newline")
    }
    let after = try cutLines(file, from: wholeEnd, to: size, committing: rules.openWrite)
    var cut = Cut(
      range: wholeEnd..<size, keptSequence: kept, reason: reasons.joined(separator: ", then "),
      firstCutSequence: kept + 1, lastCutSequence: after.lastSequence,
      cutLineCount: after.lineCount, rewrite: nil)
    // The intact start of a committed write stays: it was acknowledged, and only its damaged
    // line and what follows are unreadable. An unfinished write was never acknowledged: all
    // of it goes.
    if let batch = rules.openWrite, let problemOffset, after.isCommitted, rules.expected > kept + 1
    {
      let keptRange = batch.lowerBound...(rules.expected - 1)
      cut.rewrite = Cut.Rewrite(
        write: batch, kept: keptRange,
        lines: try rewrittenLines(file, from: wholeEnd, to: problemOffset, batch: keptRange))
      cut.keptSequence = keptRange.upperBound
      cut.firstCutSequence = rules.expected
      cut.cutLineCount -= keptRange.count
    }
    cut.staleCheckpoints = CheckpointStore(logPath: path).entries().map(\.sequence).filter {
      $0 >= cut.firstChangedSequence
    }
    return cut
  }

  /// The cut part of the file, from the end of the last whole write: how many lines it holds, the highest seq among those that decode, and whether the last
  /// line of `write` is among them (then the write was committed).
  private func cutLines(
    _ file: FileDescriptor, from start: Int64, to size: Int64, committing write: ClosedRange<Int64>?
  ) throws -> (lineCount: Int, lastSequence: Int64?, isCommitted: Bool) {
    var lineCount = 0
    var lastSequence: Int64?
    var isCommitted = false
    let outcome = try LineScanner().scan(file, from: start, to: size) { base, length, offset in
      lineCount += 1
      guard
        let line = try? LogLineCodec.decode(
          base, length: length, lineNumber: lineCount, offset: offset)
      else { return true }
      lastSequence = max(lastSequence ?? line.sequence, line.sequence)
      if let write, line.batch == write, line.sequence == write.upperBound { isCommitted = true }
      return true
    }
    if outcome.endOfLastLine < size { lineCount += 1 }
    return (lineCount, lastSequence, isCommitted)
  }

  /// The lines in `start..<end` (already checked), encoded again as one write of `batch`.
  private func rewrittenLines(
    _ file: FileDescriptor, from start: Int64, to end: Int64, batch: ClosedRange<Int64>
  ) throws -> [UInt8] {
    var bytes: [UInt8] = []
    let written = batch.count > 1 ? batch : nil
    _ = try LineScanner().scan(file, from: start, to: end) { base, length, offset in
      let line = try LogLineCodec.decode(base, length: length, lineNumber: 0, offset: offset)
      LogLineCodec.encode(
        sequence: line.sequence, id: line.id, stream: line.stream, version: line.version,
        type: line.type, schemaVersion: line.schemaVersion, timestamp: line.timestamp,
        batch: written, metadata: line.metadata(), data: line.data, into: &bytes)
      return true
    }
    return bytes
  }
}
