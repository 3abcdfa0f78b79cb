import Events

/// Lines read where the index says they start, anywhere in the log: one stream's lines, or a
/// few streams' in log order.
///
/// On a cold cache each scattered line is a disk read. Offsets far apart (further than a run,
/// on average) are announced to the system `prefetchWindow` at a time
/// (`FileDescriptor.prefetch`), so that the disk fetches them together instead of one after
/// another; closer ones are left to the system's read-ahead. The lines that start within
/// `runSpan` bytes of a run's first are read with it in one `pread` (a burst of edits to one
/// entity, a category's streams); a line on its own costs a read of `firstRead` bytes.
enum ScatteredLines {
  /// How many offsets are announced at a time: enough for the disk to work on many at once, few
  /// enough (a megabyte) not to crowd the cache for a long stream.
  static let prefetchWindow = 256

  /// How far past the first line of a run the next lines are read in the same `pread`.
  static let runSpan: Int64 = 64 << 10

  /// How many bytes a line is first read with (a longer line is read again with more room).
  static let firstRead = 4096

  /// Calls `body` with the line that starts at each of `offsets` (ascending, each once), in
  /// order, until it returns false.
  /// - Returns: false when `body` stopped it, true when every line was read.
  @discardableResult
  static func forEach(
    at offsets: [Int64], in file: FileDescriptor, path: String,
    _ body: (_ offset: Int64, _ line: EventLine) throws -> Bool
  ) throws -> Bool {
    var announced = 0
    var first = 0
    while first < offsets.count {
      if first >= announced, offsets.count > 1 {
        announced = min(offsets.count, first + prefetchWindow)
        let window = offsets[first..<announced]
        // Lines closer together than a run on average are read front to back, which the
        // system's own read-ahead follows; announcing them too made a category read slower.
        if let low = window.first, let high = window.last, low >= 0, high >= low,
          (high - low) / Int64(window.count) >= runSpan
        {
          file.prefetch(window, length: Int64(firstRead))
        }
      }
      let start = offsets[first]
      var end = first + 1
      // (A negative offset, from a damaged index, is read alone: the read says what is wrong.)
      while end < offsets.count, start >= 0, offsets[end] > offsets[end - 1],
        offsets[end] - start < runSpan
      {
        end += 1
      }
      let bytes = try file.readFully(count: Int(offsets[end - 1] - start) + firstRead, at: start)
      for offset in offsets[first..<end] {
        // A line longer than the run's read is read again on its own.
        let keepGoing =
          try withLine(in: bytes, from: Int(offset - start), offset: offset, path: path) {
            try body(offset, $0)
          } ?? withLine(at: offset, in: file, path: path) { try body(offset, $0) }
        if !keepGoing { return false }
      }
      first = end
    }
    return true
  }

  /// `body`'s result for the line that starts at `offset`, read on its own.
  /// - Throws: `EngineError.corruptLine` when it does not decode or the file ends before it does.
  static func withLine<T>(
    at offset: Int64, in file: FileDescriptor, path: String, _ body: (EventLine) throws -> T
  ) throws -> T {
    var length = firstRead
    while true {
      let bytes = try file.readFully(count: length, at: offset)
      if let result = try withLine(in: bytes, from: 0, offset: offset, path: path, body) {
        return result
      }
      guard bytes.count == length else {
        throw EngineError.corruptLine(
          path: path, line: 0, offset: offset, problem: "line has no end")
      }
      length *= 4
    }
  }

  /// `body`'s result for the line that starts at `start` of `bytes`, which were read from the
  /// log so that `start` is at `offset` of it; nil when `bytes` end before the line does.
  static func withLine<T>(
    in bytes: [UInt8], from start: Int, offset: Int64, path: String,
    _ body: (EventLine) throws -> T
  ) throws -> T? {
    guard start >= 0, start < bytes.count, let newline = bytes[start...].firstIndex(of: 0x0A)
    else { return nil }
    return try bytes.withUnsafeBufferPointer { buffer in
      // `bytes` holds at least the newline, so it has storage.
      guard let base = buffer.baseAddress else {
        throw EngineError.corruptLine(
          path: path, line: 0, offset: offset, problem: "line has no bytes")
      }
      let line: EventLine
      do throws(LogLineCodec.Problem) {
        line = try LogLineCodec.decode(
          base + start, length: newline - start, lineNumber: 0, offset: offset)
      } catch {
        throw EngineError.corruptLine(
          path: path, line: 0, offset: offset, problem: error.message)
      }
      return try body(line)
    }
  }
}
