import Events

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
  }

  struct IncompleteBatch: Equatable {
    var range: Range<Int64>
    var batch: ClosedRange<Int64>
    /// How many of the batch's lines are present.
    var presentCount: Int64
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
          + "(\(incompleteBatch.presentCount) of \(incompleteBatch.batch.count) lines present)")
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

  /// Examines the end of `file`, reading only the last few lines (or, for an unfinished
  /// multi-event write, back to its first line).
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
    // Decode the last complete line; when it is bad it is torn, and the one before must be good.
    var candidate = try decodeLastLine(file, before: end, path: path)
    if case .failure(let bad) = candidate, bad.holdsNUL {
      tail.badLastLine = bad
      end = bad.range.lowerBound
      candidate = try decodeLastLine(file, before: end, path: path)
    }
    guard case .success(let last)? = candidate else {
      // No line left, or a bad line that is no torn write: the forward read will report it
      // with its line number.
      tail.committedEnd = end
      return tail
    }
    tail.lastSequence = last.sequence
    if let batch = last.batch, last.sequence < batch.upperBound {
      // An unfinished multi-event write: its lines run from seq batch.lower to here.
      let present = last.sequence - batch.lowerBound + 1
      let starts = try LineScanner.startsOfLastLines(file, count: Int(present), before: end)
      if let first = starts.first, starts.count == Int(present) {
        tail.incompleteBatch = IncompleteBatch(
          range: first..<end, batch: batch, presentCount: present)
        end = first
        tail.lastSequence = batch.lowerBound - 1
      }
    }
    tail.committedEnd = end
    return tail
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
    let bytes = try file.readFully(count: Int(end - start), at: start)
    return bytes.withUnsafeBufferPointer { buffer -> Result<DecodedSummary, BadLine> in
      guard let base = buffer.baseAddress, buffer.count > 1 else {
        return .failure(BadLine(range: start..<end, problem: "empty line"))
      }
      do throws(LogLineCodec.Problem) {
        let line = try LogLineCodec.decode(
          base, length: buffer.count - 1, lineNumber: 0, offset: start)
        return .success(DecodedSummary(sequence: line.sequence, batch: line.batch))
      } catch {
        return .failure(
          BadLine(
            range: start..<end, problem: error.message, holdsNUL: buffer.contains(0)))
      }
    }
  }

  /// The fields of a tail line that recovery needs.
  struct DecodedSummary {
    var sequence: Int64
    var batch: ClosedRange<Int64>?
  }
}
