import Events

/// `replay repair`: finds where a log stops being sound and, when asked, cuts it back to the end
/// of its last whole write, moving every byte it cuts into `<log>.quarantine/` first.
///
/// Recovery (see `LogTail`) cuts only what a crash can leave; damage it cannot explain as a
/// torn write stops every writer. Repair is the documented way out: it reads the log from the
/// start, checks each line as a writer would (checksum and envelope, seq gapless, versions
/// consecutive per stream, ids unique, multi-event writes whole) and proposes to cut from the
/// end of the last write that is whole before the first problem. Nothing is lost: the cut
/// bytes are kept, synced, in quarantine.
public struct LogRepair: Sendable {
  /// What repair would cut, and why.
  public struct Cut: Sendable, Equatable {
    /// The bytes to cut: from the end of the last whole write to the end of the file.
    public var range: Range<Int64>
    /// The last event kept.
    public var keptSequence: Int64
    /// Why the log cannot be kept as it is past `range.lowerBound`.
    public var reason: String
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
    let file = try FileDescriptor.open(path, .readOnly)
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
    let saved = try Quarantine.save(
      cut.range, of: file, logPath: path, afterSequence: cut.keptSequence)
    try file.truncate(to: cut.range.lowerBound)
    try file.synchronize()
    return (cut, saved)
  }

  func examine(_ file: FileDescriptor) throws -> Cut? {
    let size = try file.status().size
    try LogStart.check(file, path: path, size: size)
    var expectedSequence: Int64 = 1
    var openBatch: ClosedRange<Int64>?
    var versions: [String: Int64] = [:]
    var ids: Set<EventID> = []
    var wholeEnd: Int64 = 0
    var kept: Int64 = 0
    var problem: String?
    let outcome = try LineScanner().scan(file, from: 0, to: size) { base, length, offset in
      let number = Int(expectedSequence)
      func stop(_ message: String) -> Bool {
        problem = "line \(number) (byte \(offset)): \(message)"
        return false
      }
      let line: EventLine
      do throws(LogLineCodec.Problem) {
        line = try LogLineCodec.decode(base, length: length, lineNumber: number, offset: offset)
      } catch {
        return stop(error.message)
      }
      guard line.sequence == expectedSequence else {
        return stop("seq is \(line.sequence) where \(expectedSequence) was expected")
      }
      if let batch = openBatch, line.batch != batch {
        return stop("the write of events \(batch.lowerBound)...\(batch.upperBound) stops here")
      }
      if openBatch == nil, let batch = line.batch, batch.lowerBound != line.sequence {
        return stop("it claims a write starting at seq \(batch.lowerBound), which is not there")
      }
      let stream = line.stream
      let previous = versions[stream] ?? 0
      guard line.version == previous + 1 else {
        return stop("stream '\(stream)' goes from version \(previous) to \(line.version)")
      }
      guard ids.insert(line.id).inserted else {
        return stop("event id \(line.id) is already in the log")
      }
      versions[stream] = line.version
      expectedSequence += 1
      if let batch = line.batch, line.sequence < batch.upperBound {
        openBatch = batch
      } else {
        openBatch = nil
        wholeEnd = offset + Int64(length) + 1
        kept = line.sequence
      }
      return true
    }
    guard wholeEnd < size else { return nil }
    var reasons: [String] = []
    if let problem { reasons.append(problem) }
    if problem == nil, let batch = openBatch {
      reasons.append("an unfinished write of events \(batch.lowerBound)...\(batch.upperBound)")
    }
    if problem == nil, outcome.endOfLastLine < size {
      reasons.append(
        "an incomplete line of \(size - outcome.endOfLastLine) bytes with no newline")
    }
    return Cut(
      range: wholeEnd..<size, keptSequence: kept, reason: reasons.joined(separator: ", then "))
  }
}
