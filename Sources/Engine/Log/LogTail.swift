import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// What lies at the end of a log file: where the committed events end, and what comes after
/// them, if anything.
///
/// The end of the log is where a crash leaves its marks, so it gets special rules (see
/// docs/FORMAT.md, "Recovery and quarantine"). A torn write is only ever the last write, so:
/// - bytes after the last `\n` are a line still being written, or torn by a crash;
/// - a last complete line holding a NUL byte is torn too (a file system shows zeros where the
///   data of an unfinished write never reached the disk; no log line holds a NUL);
/// - complete lines of a multi-event write whose last line is missing are uncommitted.
/// Readers stop before all of these; a writer moves them into quarantine and cuts them off.
/// Any other bad line, the last one included, is corruption: readers and writers stop with an
/// error and `replay repair` is the way out.
struct LogTail: Equatable {
  /// The file's size when it was examined.
  var fileSize: Int64
  /// Offset just past the last committed event's line: readers read `0..<committedEnd`.
  var committedEnd: Int64
  /// The last committed event's sequence number, or 0 when there is none.
  var lastSequence: Int64
  /// Bytes after the last `\n`.
  var tornBytes: Range<Int64>?
  /// The last complete line, when it holds a NUL byte (a torn write), and why it failed.
  var badLastLine: BadLine?
  /// Complete lines of a multi-event write that never finished.
  var incompleteBatch: IncompleteBatch?

  struct BadLine: Error, Equatable {
    var range: Range<Int64>
    var problem: String
    /// Whether the line holds a NUL byte, which no line a writer wrote does.
    var holdsNUL = false
    /// How many damaged lines `range` spans (a torn write can leave several).
    var lineCount = 1
  }

  struct IncompleteBatch: Equatable {
    var range: Range<Int64>
    var batch: ClosedRange<Int64>
    /// How many of the batch's lines are present.
    var presentCount: Int64
    /// Whether zeros (pages of the write that never landed) lie among them.
    var holdsZeros = false
  }

  /// Whether anything lies after the committed events.
  var hasUncommittedBytes: Bool { committedEnd < fileSize }

  /// A one-line account of what lies past the committed events, for reports.
  var uncommittedDescription: String? {
    guard hasUncommittedBytes else { return nil }
    var parts: [String] = []
    if let incompleteBatch {
      parts.append(
        "an unfinished write of events \(incompleteBatch.batch.lowerBound)...\(incompleteBatch.batch.upperBound) "
          + (incompleteBatch.holdsZeros
            ? "(torn: zeros where some of its lines were to be)"
            : "(\(incompleteBatch.presentCount) of \(incompleteBatch.batch.count) lines present)"))
    }
    if let badLastLine {
      parts.append("a damaged last line (\(badLastLine.problem))")
    }
    if let tornBytes {
      parts.append("an incomplete line of \(tornBytes.count) bytes with no newline")
    }
    let count = fileSize - committedEnd
    return
      "\(count) bytes from byte \(committedEnd) after seq \(lastSequence): "
      + parts.joined(separator: ", then ")
  }

  /// Examines the end of `file`, reading only the last write's lines.
  ///
  /// A torn write is only ever the last write, and every line of a write names the write
  /// (`batch: [first, last]`, or no batch for a write of one event). So the last write is found
  /// from its own lines: the last line that decodes names it, and its start is the line whose
  /// seq is `first` — or, when zeros swallowed that line, the end of the line of seq
  /// `first - 1`, the previous write's last, which was synced before this write began. Damage
  /// (zeros, a line cut short) counts as a torn tail only inside that write; anything else is
  /// left to the forward read, which refuses it naming the line. Recovery therefore never
  /// runs into an event acknowledged before the last write.
  static func examine(_ file: FileDescriptor, path: String) throws -> LogTail {
    let size = try file.status().size
    var tail = LogTail(
      fileSize: size, committedEnd: 0, lastSequence: 0, tornBytes: nil, badLastLine: nil,
      incompleteBatch: nil)
    guard size > 0 else { return tail }
    // Find the last `\n`: everything after it is a torn or in-progress line.
    let lastLineEnd = try endOfLastCompleteLine(file, size: size)
    if lastLineEnd < size { tail.tornBytes = lastLineEnd..<size }
    var end = lastLineEnd
    // Lines holding zeros at the end are a torn write's; the last line that decodes names the
    // last write.
    var candidate = try decodeLastLine(file, before: end, path: path)
    var damaged: [BadLine] = []
    while case .failure(let bad) = candidate, bad.holdsNUL {
      damaged.append(bad)
      end = bad.range.lowerBound
      candidate = try decodeLastLine(file, before: end, path: path)
    }
    if let last = damaged.last, let first = damaged.first {
      tail.badLastLine = BadLine(
        range: last.range.lowerBound..<first.range.upperBound, problem: first.problem,
        holdsNUL: true, lineCount: damaged.count)
    }
    guard case .success(let last)? = candidate else {
      // No line left (a log whose only write is torn), or a bad line that is no torn write:
      // the forward read reports it with its line number.
      tail.committedEnd = end
      return tail
    }
    let batch = last.batch ?? last.sequence...last.sequence
    let lastEnd = end
    let isLastLineOfWrite = last.sequence == batch.upperBound
    if isLastLineOfWrite, batch.count == 1 {
      // A write of one event whose line decodes: whole.
      tail.committedEnd = lastEnd
      tail.lastSequence = last.sequence
      return tail
    }
    // One pass back over the write's bytes: its line breaks counted, zeros looked for.
    let scan = try scanBack(
      file, from: lastEnd, lineCount: last.sequence - batch.lowerBound + 1)
    var start: Int64?
    if !scan.holdsZero, let counted = scan.start {
      // No zeros: the line reached must be the write's first, or this is corruption.
      if case .success(let line) = try decodeLine(
        file, counted..<(try lineEnd(file, from: counted))),
        line.sequence == batch.lowerBound, (line.batch ?? line.sequence...line.sequence) == batch
      {
        start = counted
      }
    } else if !scan.holdsZero, isLastLineOfWrite {
      // Longer than the scan looks back, with no zeros in what it saw: taken as whole.
      start = nil
      tail.committedEnd = lastEnd
      tail.lastSequence = last.sequence
      return tail
    } else {
      start = try startOfWrite(batch, last: last, endingAt: lastEnd, file, path: path)
    }
    guard let start else {
      // The lines before do not read as this write's: corruption, which the forward read
      // names. Nothing is cut.
      tail.committedEnd = lastEnd
      tail.lastSequence = last.sequence
      return tail
    }
    if isLastLineOfWrite, !scan.holdsZero {
      tail.committedEnd = lastEnd
      tail.lastSequence = last.sequence
      return tail
    }
    // The last write never finished (a line missing, or zeros inside it): its lines, and
    // whatever followed them, are uncommitted.
    tail.incompleteBatch = IncompleteBatch(
      range: start..<lastEnd, batch: batch,
      presentCount: max(0, last.sequence - batch.lowerBound + 1), holdsZeros: scan.holdsZero)
    tail.committedEnd = start
    tail.lastSequence = batch.lowerBound - 1
    return tail
  }

  /// How far back ``scanBack(_:from:lineCount:)`` looks for a write's start.
  static let scanLimit: Int64 = 8 << 20

  /// Walks back from `end` (just past a line's `\n`) over `lineCount` lines, at most
  /// ``scanLimit`` bytes: where the first of them starts (`nil` past the limit), and whether
  /// the bytes passed hold a zero.
  static func scanBack(
    _ file: FileDescriptor, from end: Int64, lineCount: Int64
  ) throws -> (start: Int64?, holdsZero: Bool) {
    var found: Int64 = 0
    var position = end - 1  // the last line's own `\n`
    var holdsZero = false
    let blockSize: Int64 = 64 << 10
    // One buffer for every block, and one list of line breaks.
    var buffer = [UInt8](repeating: 0, count: Int(blockSize))
    var newlines: [Int] = []
    newlines.reserveCapacity(Int(blockSize) / 128)
    while position > 0, end - position <= scanLimit {
      let blockStart = max(0, position - blockSize)
      let length = Int(position - blockStart)
      let got = try buffer.withUnsafeMutableBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return try file.read(into: base, count: length, at: blockStart)
      }
      guard got == length else { return (nil, holdsZero) }
      let reached: Int? = buffer.withUnsafeBytes { whole -> Int? in
        let raw = UnsafeRawBufferPointer(rebasing: whole[..<length])
        guard let base = raw.baseAddress else { return nil }
        // The block's line breaks, found forward at memchr's speed, then counted from its end.
        newlines.removeAll(keepingCapacity: true)
        var next = 0
        while next < raw.count, let hit = memchr(base + next, 0x0A, raw.count - next) {
          let offset = base.distance(to: UnsafeRawPointer(hit))
          newlines.append(offset)
          next = offset + 1
        }
        var reached: Int?
        let needed = Int(lineCount - found)
        if newlines.count >= needed {
          reached = newlines[newlines.count - needed] + 1
          found = lineCount
        } else {
          found += Int64(newlines.count)
        }
        // Zeros are looked for in the write's bytes only, at memchr's speed.
        let from = reached ?? 0
        if !holdsZero, from < raw.count, memchr(base + from, 0, raw.count - from) != nil {
          holdsZero = true
        }
        return reached
      }
      if let reached { return (blockStart + Int64(reached), holdsZero) }
      position = blockStart
    }
    return (position <= 0 && found == lineCount - 1 ? 0 : nil, holdsZero)
  }

  /// Offset just past the `\n` that ends the line starting at `start`.
  static func lineEnd(_ file: FileDescriptor, from start: Int64) throws -> Int64 {
    var position = start
    while true {
      let bytes = try file.readFully(count: 64 << 10, at: position)
      if bytes.isEmpty { return position }
      if let index = bytes.firstIndex(of: 0x0A) { return position + Int64(index) + 1 }
      position += Int64(bytes.count)
    }
  }

  /// Where the write `batch`, whose line `last` ends at `end`, begins: the start of its line of
  /// seq `batch.lowerBound`, or the end of the line of seq `batch.lowerBound - 1` when its
  /// first lines were lost to zeros; `nil` when the lines before do not read as this write's
  /// (corruption, not a torn write).
  static func startOfWrite(
    _ batch: ClosedRange<Int64>, last: DecodedSummary, endingAt end: Int64,
    _ file: FileDescriptor, path: String
  ) throws -> Int64? {
    let lineCount = last.sequence - batch.lowerBound + 1
    guard lineCount > 0 else { return nil }
    // Zeros may have swallowed line breaks: walk back line by line (the caller counted them
    // back already, and found zeros).
    var lineEnd = try LineScanner.startsOfLastLines(file, count: 1, before: end).first ?? 0
    var expected = last.sequence - 1
    for _ in 0..<(2 * lineCount + 2) {
      if lineEnd == 0 { return batch.lowerBound == 1 ? 0 : nil }
      guard let lineStart = try LineScanner.startsOfLastLines(file, count: 1, before: lineEnd).first
      else { return nil }
      switch try decodeLine(file, lineStart..<lineEnd) {
      case .failure(let bad):
        guard bad.holdsNUL else { return nil }
      case .success(let line):
        let lineBatch = line.batch ?? line.sequence...line.sequence
        if lineBatch == batch {
          guard line.sequence <= expected else { return nil }
          if line.sequence == batch.lowerBound { return lineStart }
          expected = line.sequence - 1
        } else {
          // The previous write's last line: this write starts after it.
          guard line.sequence == batch.lowerBound - 1, lineBatch.upperBound == line.sequence
          else { return nil }
          return lineEnd
        }
      }
      lineEnd = lineStart
    }
    return nil
  }

  /// The line in `range` (its `\n` included) decoded, or why it is bad.
  static func decodeLine(
    _ file: FileDescriptor, _ range: Range<Int64>
  ) throws -> Result<DecodedSummary, BadLine> {
    let bytes = try file.readFully(count: Int(range.count), at: range.lowerBound)
    return bytes.withUnsafeBufferPointer { buffer -> Result<DecodedSummary, BadLine> in
      guard let base = buffer.baseAddress, buffer.count > 1 else {
        return .failure(BadLine(range: range, problem: "empty line", holdsNUL: buffer.contains(0)))
      }
      do throws(LogLineCodec.Problem) {
        let line = try LogLineCodec.decode(
          base, length: buffer.count - 1, lineNumber: 0, offset: range.lowerBound)
        return .success(DecodedSummary(sequence: line.sequence, batch: line.batch))
      } catch {
        return .failure(
          BadLine(range: range, problem: error.message, holdsNUL: buffer.contains(0)))
      }
    }
  }

  /// Offset just past the last `\n` in the file (0 if there is none).
  static func endOfLastCompleteLine(_ file: FileDescriptor, size: Int64) throws -> Int64 {
    // A line is a few hundred bytes: 4 KiB nearly always holds the last `\n`; grow from there.
    var blockSize: Int64 = 4 << 10
    var position = size
    while position > 0 {
      let blockStart = max(0, position - blockSize)
      let bytes = try file.readFully(count: Int(position - blockStart), at: blockStart)
      if let index = bytes.lastIndex(of: 0x0A) {
        return blockStart + Int64(index) + 1
      }
      position = blockStart
      blockSize = min(blockSize * 4, 64 << 10)
    }
    return 0
  }

  /// The decoded last complete line before `end`, a description of why it is bad, or `nil` when
  /// there is no line before `end`.
  static func decodeLastLine(
    _ file: FileDescriptor, before end: Int64, path: String
  ) throws -> Result<DecodedSummary, BadLine>? {
    guard end > 0 else { return nil }
    guard let start = try LineScanner.startsOfLastLines(file, count: 1, before: end).first else {
      return nil
    }
    return try decodeLine(file, start..<end)
  }

  /// The fields of a tail line that recovery needs.
  struct DecodedSummary: Equatable {
    var sequence: Int64
    var batch: ClosedRange<Int64>?
  }
}

extension LogReader {
  /// The seq of the log's last committed event (0 when it has none), read from its end
  /// without a scan; for the package's other modules (the PostgreSQL shipper).
  /// - Throws: `EngineError` when the file cannot be opened or read.
  package static func lastCommittedSequence(ofLogAt path: String) throws -> Int64 {
    let file = try FileDescriptor.open(path, .readOnly)
    defer { file.close() }
    return try LogTail.examine(file, path: path).lastSequence
  }
}
