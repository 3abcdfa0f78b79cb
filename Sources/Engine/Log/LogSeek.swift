import Events

/// Finds a place in a log by bisection over its bytes instead of reading it from the start:
/// each probe reads a few KiB at a midpoint, skips to the next `\n`, and decodes the line after
/// it with the envelope decoder (`LogLineCodec`), so a search costs O(log n) small reads.
///
/// Bisection relies on two properties of a valid log: seqs run 1, 2, 3, … with the line order,
/// and times never go backwards (the writer guarantees it and `verify` checks it). Every probe
/// is checked against the others: a seq out of step with the probes around it, a time that goes
/// backwards, or a line that does not decode means the bisection cannot be trusted, and the
/// search answers `nil` so that the caller reads the log from the start instead.
struct LogSeek {
  /// One probed line.
  struct Probe: Equatable {
    /// Where the line starts.
    var offset: Int64
    /// Offset just past its `\n`.
    var end: Int64
    var sequence: Int64
    var timestamp: Timestamp
  }

  let file: FileDescriptor
  /// The committed end: lines at or past it are not part of the log yet.
  let end: Int64
  /// The seq of the last committed event (0 for none).
  let lastSequence: Int64
  /// Bytes read per probe (more when a line is longer).
  var probeSize = 4096
  /// Lines probed so far, for the consistency checks.
  private(set) var probes: [Probe] = []

  /// The first line that starts at or after `offset` (and before `end`); `nil` when none does.
  /// - Throws: `Untrusted` when the line there does not decode.
  mutating func line(startingAtOrAfter offset: Int64) throws -> Probe? {
    // A line starts at 0 or just past a `\n`: look for the `\n` from the byte before `offset`.
    var start = offset
    if offset > 0 {
      var position = offset - 1
      while true {
        guard position < end else { return nil }
        let count = Int(min(Int64(probeSize), end - position))
        let bytes = try file.readFully(count: count, at: position)
        guard !bytes.isEmpty else { return nil }
        if let newline = bytes.firstIndex(of: 0x0A) {
          start = position + Int64(newline) + 1
          break
        }
        position += Int64(bytes.count)
      }
    }
    guard start < end else { return nil }
    let probe = try decodeLine(at: start)
    if !probes.contains(where: { $0.offset == probe.offset }) { probes.append(probe) }
    return probe
  }

  /// Decodes the line starting at `start`.
  private func decodeLine(at start: Int64) throws -> Probe {
    var size = Int(min(Int64(probeSize), end - start))
    while true {
      let bytes = try file.readFully(count: size, at: start)
      if let newline = bytes.firstIndex(of: 0x0A) {
        return try bytes.withUnsafeBufferPointer { buffer throws -> Probe in
          guard let base = buffer.baseAddress else { throw Untrusted() }
          do throws(LogLineCodec.Problem) {
            let line = try LogLineCodec.decode(base, length: newline, lineNumber: 0, offset: start)
            return Probe(
              offset: start, end: start + Int64(newline) + 1, sequence: line.sequence,
              timestamp: line.timestamp)
          } catch {
            throw Untrusted()
          }
        }
      }
      // Lines are newline-terminated up to the committed end: no `\n` means a damaged log.
      guard Int64(bytes.count) < end - start, bytes.count == size else { throw Untrusted() }
      size = Int(min(Int64(size) * 4, end - start))
    }
  }

  /// The first line for which `isPast` holds, where `isPast` is false then true along the log
  /// (a seq or a time passed); `nil` when it holds for none.
  mutating func firstLine(where isPast: (Probe) -> Bool) throws -> Probe? {
    // Every line starting before `low` is not past; no line starts in `high..<best.offset`.
    var low: Int64 = 0
    var high = end
    var best: Probe?
    while low < high {
      let middle = low + (high - low) / 2
      guard let probe = try line(startingAtOrAfter: middle), probe.offset < high else {
        high = middle
        continue
      }
      if isPast(probe) {
        best = probe
        high = middle
      } else {
        low = probe.end
      }
    }
    try checkConsistency()
    return best
  }

  /// Throws `Untrusted` unless the probes, in file order, have consecutive-looking seqs (a line
  /// further on has a larger seq, by at most one per line-sized step, and line 1 is at offset
  /// 0) and times that never go backwards.
  func checkConsistency() throws {
    let ordered = probes.sorted { $0.offset < $1.offset }
    var previous: Probe?
    for probe in ordered {
      if probe.offset == 0, probe.sequence != 1 { throw Untrusted() }
      if probe.sequence < 1 || probe.sequence > lastSequence { throw Untrusted() }
      if let previous, previous.offset != probe.offset {
        // Each line holds at least one byte per seq step: a seq jump larger than the bytes
        // between the lines, or no increase, means the seqs are not consecutive.
        let step = probe.sequence - previous.sequence
        if step < 1 || step > probe.offset - previous.offset { throw Untrusted() }
        if previous.end == probe.offset, step != 1 { throw Untrusted() }
        if probe.timestamp < previous.timestamp { throw Untrusted() }
      }
      previous = probe
    }
  }

  /// The bisection cannot be trusted here; read from the start instead.
  struct Untrusted: Error {}
}

extension LogSeek {
  /// Where the line after event `sequence` starts, with its seq: the place to read on from
  /// after it. `sequence` 0 is the start; the committed end when `sequence` is the last event.
  /// - Returns: `nil` when `sequence` is past the end or the bisection cannot be trusted.
  mutating func position(after sequence: Int64) throws -> LogReader.Position? {
    guard sequence >= 0, sequence <= lastSequence else { return nil }
    if sequence == 0 { return .start }
    if sequence == lastSequence { return LogReader.Position(offset: end, sequence: sequence + 1) }
    do {
      guard let next = try firstLine(where: { $0.sequence > sequence }),
        next.sequence == sequence + 1
      else { return nil }
      return LogReader.Position(offset: next.offset, sequence: next.sequence)
    } catch is Untrusted {
      return nil
    }
  }

  /// The seq of the last event whose time is at or before `instant` (0 when none is).
  /// - Returns: `nil` when the bisection cannot be trusted.
  mutating func lastSequence(atOrBefore instant: Timestamp) throws -> Int64? {
    do {
      guard let next = try firstLine(where: { $0.timestamp > instant }) else {
        return lastSequence
      }
      // The line before the first later one must be the seq before it.
      if next.offset == 0 { return next.sequence == 1 ? 0 : nil }
      // The line before the first later one, read back unless a probe already did.
      var before = probes.first { $0.end == next.offset }
      if before == nil,
        let start = try LineScanner.startsOfLastLines(file, count: 1, before: next.offset).first
      {
        before = try decodeLine(at: start)
      }
      guard let before, before.sequence == next.sequence - 1, before.timestamp <= instant,
        before.end == next.offset
      else { return nil }
      return before.sequence
    } catch is Untrusted {
      return nil
    }
  }

  /// Opens `log`, runs `body` with a seek over its committed lines, and closes it.
  static func withLog<Result>(
    _ log: OpenLog, _ body: (inout LogSeek) throws -> Result
  ) throws -> Result {
    let path = log.path
    let file = try log.openForReading()
    defer { file.close() }
    let tail = try LogTail.examine(file, path: path)
    var seek = LogSeek(file: file, end: tail.committedEnd, lastSequence: tail.lastSequence)
    return try body(&seek)
  }
}
