import Dispatch
import Events
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Building the tree from many lines at once: the lines' leaf hashes straight from the read
/// buffer, on both cores for a long read.
///
/// Each line gets the checks every reader makes that need no JSON decoding: it starts with
/// `{"seq":` and the expected sequence number, and ends with `,"crc":"` and the CRC-32C of what
/// precedes it. A line that fails them, and whatever follows it, is left to the general reader
/// (`LogReader.forEachEvent`), which decodes it and reports the exact problem; so the quick scan
/// is a prefix of the general path, never a second judge of the log.
extension LogTree {
  /// Reads below this many bytes stay on one thread (the default of `parallelThreshold`).
  static let parallelThreshold: Int64 = 8 << 20

  /// The leaf hashes of a run of consecutive lines that passed the quick checks.
  struct LeafRun: Sendable {
    /// The offset of the run's first line.
    var startOffset: Int64
    /// Just past the `\n` of its last line (`startOffset` when the run is empty).
    var endOffset: Int64
    /// The `seq` of its first line (0 when the run is empty and it is not known).
    var firstSequence: Int64
    /// 32 bytes per line, in order.
    var hashes: [UInt8]
    /// The offset of each line whose `seq - 1` is a multiple of the tile width, in order.
    var tileStarts: [Int64]
    /// Whether it stopped at a line that failed the quick checks (rather than at its end).
    var stoppedAtBadLine: Bool

    var count: Int64 { Int64(hashes.count / MerkleTree.hashByteCount) }

    /// Adds the leaf of the line of `sequence` whose `length` bytes (without the `\n`) start
    /// at `base`, at `offset` in the log: its hash, and its offset when it starts a tile. The
    /// one step of a scan of the log and of a writer's lines.
    mutating func appendLeaf(
      _ base: UnsafePointer<UInt8>, length: Int, sequence: Int64, offset: Int64
    ) {
      if (sequence - 1) % TreeFile.tileWidth == 0 { tileStarts.append(offset) }
      let line = UnsafeRawBufferPointer(start: base, count: length)
      var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      withUnsafeMutableBytes(of: &digest) { output in
        // A 32-byte value always has an address; were it ever without one, the allocating
        // hash gives the same leaf.
        guard let address = output.baseAddress else {
          hashes.append(contentsOf: SHA256.hash(prefix: 0, line))
          return
        }
        SHA256.hash(prefix: 0, line, into: address)
        hashes.append(contentsOf: output)
      }
    }
  }

  /// Log bytes hashed before their leaves are added to the tree: a bound on the leaf hashes
  /// held at once (32 bytes a line, about 7 MB for 64 MiB of lines), whatever the log's size.
  static let segmentSize: Int64 = 64 << 20

  /// Hands `add` the leaf hashes of the committed lines from the tree's end, a segment at a
  /// time, as far as they pass the quick checks; `add` extends the tree, so each segment starts
  /// where the tree then ends.
  func quickCatchUp(_ add: (LeafRun) -> Void) throws {
    let log = try FileDescriptor.open(logPath, .readOnly)
    defer { log.close() }
    let end = try LogTail.examine(log, path: logPath).committedEnd
    while file.end < end {
      let start = file.end
      let stopAt = min(end, start + segmentSize)
      let runs =
        stopAt - start >= parallelThreshold
        ? try Self.scanInTwo(
          path: logPath, from: start, sequence: file.size + 1, to: end, stopAt: stopAt)
        : [try Self.scan(log, from: start, sequence: file.size + 1, to: end, stopAt: stopAt)]
      for run in runs where run.count > 0 { add(run) }
      // A bad line, or halves that did not join: the general reader goes on from here.
      guard file.end > start, runs.allSatisfy({ !$0.stoppedAtBadLine }),
        runs.count == (stopAt - start >= parallelThreshold ? 2 : 1)
      else { return }
    }
  }

  /// Scans the lines starting in `start..<stopAt` (of a log whose lines end by `end`) as two
  /// halves on two threads; the second half counts only if the first ran right up to it,
  /// without a bad line, and its numbers go on from the first's.
  static func scanInTwo(
    path: String, from start: Int64, sequence: Int64, to end: Int64, stopAt: Int64
  ) throws -> [LeafRun] {
    let middle = start + (stopAt - start) / 2
    let results = Mutex<[Result<LeafRun, any Error>?]>([nil, nil])
    DispatchQueue.concurrentPerform(iterations: 2) { half in
      let result = Result<LeafRun, any Error> {
        let log = try FileDescriptor.open(path, .readOnly)
        defer { log.close() }
        return half == 0
          ? try scan(log, from: start, sequence: sequence, to: end, stopAt: middle)
          : try scan(log, from: middle, sequence: nil, to: end, stopAt: stopAt)
      }
      results.withLock { $0[half] = result }
    }
    let (first, second) = results.withLock { ($0[0], $0[1]) }
    guard let first = try first?.get() else { return [] }
    guard !first.stoppedAtBadLine, let second = try? second?.get(),
      second.startOffset == first.endOffset,
      second.firstSequence == first.firstSequence + first.count
    else { return [first] }
    return [first, second]
  }

  /// Hashes the lines of `file` from `start` (a line's start when `sequence` is given; any
  /// offset otherwise, the first partial line skipped and the numbering taken from the first
  /// whole one) to `end`, stopping before the first line that starts at or after `stopAt` or
  /// fails the quick checks.
  static func scan(
    _ file: FileDescriptor, from start: Int64, sequence: Int64?, to end: Int64, stopAt: Int64
  ) throws -> LeafRun {
    // Not at a line's start: back up one byte, so the first line handed out (skipped) ends at
    // the `\n` before the first whole line, even when that `\n` is the byte before `start`.
    let scanStart = sequence == nil ? start - 1 : start
    var run = LeafRun(
      startOffset: start, endOffset: start, firstSequence: sequence ?? 0, hashes: [],
      tileStarts: [], stoppedAtBadLine: false)
    run.hashes.reserveCapacity(Int((end - start) / 256 + 1) * MerkleTree.hashByteCount)
    var expected = sequence
    var skipping = sequence == nil
    _ = try LineScanner().scan(file, from: scanStart, to: end) { base, length, offset in
      if skipping {
        skipping = false
        run.startOffset = offset + Int64(length) + 1
        run.endOffset = run.startOffset
        return true
      }
      guard offset < stopAt else { return false }
      guard let found = quickSequence(base, length), found == expected ?? found else {
        run.stoppedAtBadLine = true
        return false
      }
      if expected == nil { run.firstSequence = found }
      expected = found + 1
      run.appendLeaf(base, length: length, sequence: found, offset: offset)
      run.endOffset = offset + Int64(length) + 1
      return true
    }
    return run
  }

  /// The `seq` of a line that starts with `{"seq":<n>,` and ends with a `crc` member that
  /// matches its bytes; `nil` for any other line.
  static func quickSequence(_ base: UnsafePointer<UInt8>, _ length: Int) -> Int64? {
    let prefix: StaticString = #"{"seq":"#
    let suffix: StaticString = #","crc":""#
    let suffixLength = 18
    guard length > prefix.utf8CodeUnitCount + suffixLength,
      memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0,
      memcmp(base + length - suffixLength, suffix.utf8Start, suffix.utf8CodeUnitCount) == 0,
      base[length - 1] == UInt8(ascii: "}")
    else { return nil }
    var stated: UInt32 = 0
    for index in (length - 10)..<(length - 2) {
      let byte = base[index]
      switch byte {
      case 0x30...0x39: stated = stated << 4 | UInt32(byte - 0x30)
      case 0x61...0x66: stated = stated << 4 | UInt32(byte - 0x61 + 10)
      default: return nil
      }
    }
    let covered = UnsafeRawBufferPointer(start: base, count: length - suffixLength)
    guard CRC32C.checksum(covered) == stated else { return nil }
    var position = prefix.utf8CodeUnitCount
    var value: Int64 = 0
    while position < length, (0x30...0x39).contains(base[position]), position < 25 {
      value = value * 10 + Int64(base[position] - 0x30)
      position += 1
    }
    guard position > prefix.utf8CodeUnitCount, base[position] == UInt8(ascii: ","),
      base[prefix.utf8CodeUnitCount] != 0x30, value >= 1
    else { return nil }
    return value
  }
}
