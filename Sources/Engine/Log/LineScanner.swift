#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Splits a byte range of a file into `\n`-terminated lines: large reads into one reusable
/// buffer, `memchr` to find line ends, lines handed out in place (no copy). Only a line that
/// straddles two reads is moved, to the front of the buffer; a line longer than the buffer grows
/// it.
struct LineScanner {
  /// Bytes asked for per read.
  var readSize: Int

  init(readSize: Int = LogReader.defaultReadSize) {
    precondition(readSize > 0, "read size must be positive")
    self.readSize = readSize
  }

  /// What a scan found.
  struct Outcome {
    /// Offset just past the last complete line's `\n`.
    var endOfLastLine: Int64
    /// Whether `body` asked to stop.
    var stoppedEarly: Bool
  }

  /// Calls `body` with each complete line in `start..<end` of `file`: its first byte, its length
  /// without the `\n`, and its offset in the file. `body` returns false to stop.
  /// Bytes after the last `\n` (a line still being written, or torn) are not handed out.
  func scan(
    _ file: FileDescriptor, from start: Int64, to end: Int64,
    _ body: (UnsafePointer<UInt8>, Int, Int64) throws -> Bool
  ) throws -> Outcome {
    var capacity = max(readSize, 64)
    var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    // buffer[0..<filled] holds file bytes starting at `bufferOffset`; lines before `consumed`
    // were handed out; bytes before `searched` hold no `\n` past `consumed`.
    var bufferOffset = start
    var filled = 0
    var consumed = 0
    while bufferOffset + Int64(filled) < end {
      if filled == capacity {
        if consumed > 0 {
          let kept = filled - consumed
          if kept > 0 { memmove(buffer, buffer + consumed, kept) }
          bufferOffset += Int64(consumed)
          filled = kept
          consumed = 0
        } else {
          let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
          larger.update(from: buffer, count: filled)
          buffer.deallocate()
          buffer = larger
          capacity *= 2
        }
      }
      let wanted = Int(
        min(Int64(min(readSize, capacity - filled)), end - bufferOffset - Int64(filled)))
      let got = try file.read(
        into: buffer + filled, count: wanted, at: bufferOffset + Int64(filled))
      if got == 0 { break }  // The file is shorter than expected: another writer cut a torn tail.
      var searchFrom = filled
      filled += got
      while searchFrom < filled,
        let found = memchr(buffer + searchFrom, 0x0A, filled - searchFrom)
      {
        let newline = found.assumingMemoryBound(to: UInt8.self) - buffer
        let keepGoing = try body(
          UnsafePointer(buffer + consumed), newline - consumed, bufferOffset + Int64(consumed))
        consumed = newline + 1
        searchFrom = consumed
        if !keepGoing {
          return Outcome(
            endOfLastLine: bufferOffset + Int64(consumed), stoppedEarly: true)
        }
      }
    }
    return Outcome(
      endOfLastLine: bufferOffset + Int64(consumed), stoppedEarly: false)
  }

  /// Offsets of the starts of the last `count` complete lines before `end` (which must be just
  /// past a `\n` or the start of the file), earliest first. Reads backwards in blocks; for
  /// examining the tail without reading the whole log.
  static func startsOfLastLines(
    _ file: FileDescriptor, count: Int, before end: Int64
  ) throws -> [Int64] {
    guard count > 0, end > 0 else { return [] }
    var starts: [Int64] = []
    let blockSize = 64 << 10
    var buffer = [UInt8](repeating: 0, count: blockSize)
    // Skip the `\n` that ends the last line itself.
    var position = end - 1
    while position > 0, starts.count < count {
      let blockStart = max(0, position - Int64(blockSize))
      let length = Int(position - blockStart)
      let got = try buffer.withUnsafeMutableBytes { raw -> Int in
        // `buffer` has `blockSize` (> 0) bytes, so it has storage.
        guard let base = raw.baseAddress else { return 0 }
        return try file.read(into: base, count: length, at: blockStart)
      }
      guard got == length else { return starts.reversed() }  // The file shrank meanwhile.
      var index = length - 1
      while index >= 0 {
        if buffer[index] == 0x0A {
          starts.append(blockStart + Int64(index) + 1)
          if starts.count == count { break }
        }
        index -= 1
      }
      position = blockStart
    }
    // Reaching the start of the file means the first line starts at 0.
    if starts.count < count, position <= 0 { starts.append(0) }
    return starts.reversed()
  }
}
