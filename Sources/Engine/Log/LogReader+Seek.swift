import Events

extension LogReader {
  /// Where to start reading to get event `sequence + 1` onwards, found by bisection over the
  /// log's bytes (O(log n) small reads, see `LogSeek`): `.start` for 0, the committed end after
  /// the last event. `nil` when `sequence` is past the end or the log's seqs do not look
  /// consecutive at the probes; read from `.start` then.
  /// - Throws: `EngineError` when the log cannot be opened or read.
  public func position(afterSequence sequence: Int64) throws -> Position? {
    try LogSeek.withLog(openLog) { seek throws in try seek.position(after: sequence) }
  }

  /// The seq of the last event whose time is at or before `instant` (0 when none is), found
  /// by bisection; `nil` when the log's seqs or times are out of order at the probes, and the
  /// caller must scan.
  /// - Throws: `EngineError` when the log cannot be opened or read.
  public func lastSequence(atOrBefore instant: Timestamp) throws -> Int64? {
    try LogSeek.withLog(openLog) { seek throws in try seek.lastSequence(atOrBefore: instant) }
  }

  /// The seq of the last event whose time is at or before `instant` (0 when none is), reading
  /// `lines` in order up to the first later one: the scan when bisection cannot be trusted,
  /// and the only way for a log kept somewhere other than a file.
  /// - Throws: what `lines` throws.
  package static func lastSequence(atOrBefore instant: Timestamp, lines: LineSource) throws
    -> Int64
  {
    var last: Int64 = 0
    try lines { line in
      guard line.timestamp <= instant else { return false }
      last = line.sequence
      return true
    }
    return last
  }
}
