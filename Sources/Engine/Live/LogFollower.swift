import Events
import Synchronization

/// Where following a log starts.
public enum FollowStart: Sendable, Equatable, CustomStringConvertible {
  /// From seq 1.
  case beginning
  /// From the event after this seq (resuming after the last one handled).
  case afterSequence(Int64)
  /// From the first event stamped at or after this time.
  case time(Timestamp)
  /// Only events appended from now on.
  case end

  public var description: String {
    switch self {
    case .beginning: "the beginning"
    case .afterSequence(let sequence): "after seq \(sequence)"
    case .time(let instant): "\(instant)"
    case .end: "the end"
    }
  }
}

/// Which events a follower delivers: all, or those of some streams, categories or types (each
/// list that is not empty must match; names compare as bytes), and of the streams of one
/// consumer group member (`group`).
public struct EventFilter: Sendable, Equatable {
  /// Whole stream names, e.g. `contact-13`.
  public var streams: [String]
  /// Categories: a stream name's part before its first `-`, e.g. `contact`.
  public var categories: [String]
  /// Event types, e.g. `ContactFavorited`.
  public var types: [String]
  /// Only the streams this member of a consumer group owns; nil: every stream.
  public var group: ConsumerGroup?

  public init(
    streams: [String] = [], categories: [String] = [], types: [String] = [],
    group: ConsumerGroup? = nil
  ) {
    self.streams = streams
    self.categories = categories
    self.types = types
    self.group = group
  }

  /// Whether every event passes.
  public var isEmpty: Bool {
    streams.isEmpty && categories.isEmpty && types.isEmpty && group == nil
  }

  /// Whether the event of `line` passes.
  package func matches(_ line: EventLine) -> Bool {
    if !streams.isEmpty || !categories.isEmpty || group != nil {
      let stream: [UInt8] =
        line.streamSlice.hasEscapes ? Array(line.stream.utf8) : Array(line.streamBytes)
      if !streams.isEmpty, !streams.contains(where: { $0.utf8.elementsEqual(stream) }) {
        return false
      }
      if !categories.isEmpty, !categories.contains(where: { Self.is(stream, in: $0) }) {
        return false
      }
      if let group, !group.contains(stream: stream) { return false }
    }
    if !types.isEmpty {
      let type: [UInt8] = Array(line.typeBytes)
      if !types.contains(where: { $0.utf8.elementsEqual(type) }) { return false }
    }
    return true
  }

  /// Whether `event` passes.
  public func matches(_ event: RecordedEvent) -> Bool {
    let stream = Array(event.stream.utf8)
    if !streams.isEmpty, !streams.contains(where: { $0.utf8.elementsEqual(stream) }) {
      return false
    }
    if !categories.isEmpty, !categories.contains(where: { Self.is(stream, in: $0) }) {
      return false
    }
    if !types.isEmpty, !types.contains(where: { $0.utf8.elementsEqual(event.type.utf8) }) {
      return false
    }
    if let group, !group.contains(stream: stream) { return false }
    return true
  }

  /// Whether a stream's name begins with `category` and a `-`.
  static func `is`(_ stream: [UInt8], in category: String) -> Bool {
    let prefix = Array(category.utf8) + [0x2D]
    return stream.starts(with: prefix)
  }
}

/// Why following a log stopped with an error.
public enum FollowError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What a follower found where the lines it read were.
  public enum Replacement: Sendable, Equatable {
    /// The path names another file (a different inode: the log was replaced by a rename), or
    /// none (it was moved or deleted).
    case anotherFile
    /// The line read last holds other bytes: another process cut the log back and wrote other
    /// lines in place.
    case rewrittenLine
  }

  /// The log no longer holds what was delivered from it.
  ///
  /// `sequence` is the last event read (delivered, or passed over by the filter; 0 when none).
  /// `offset` is where its line starts, for `.rewrittenLine`; for `.anotherFile`, the end of
  /// what was read.
  case logReplaced(path: String, sequence: Int64, offset: Int64, replacement: Replacement)
  /// The log is shorter than what was already delivered (cut by hand, or by `repair`).
  case logTruncated(path: String, delivered: Int64, size: Int64)

  public var description: String {
    switch self {
    case .logReplaced(let path, let sequence, let offset, .anotherFile):
      "'\(path)' was replaced, moved or deleted while it was followed (after seq \(sequence), byte \(offset)); restart the follower: follow it again (with --from <the last seq handled>) to go on"
    case .logReplaced(let path, let sequence, let offset, .rewrittenLine):
      "'\(path)' was rewritten in place while it was followed: the line of seq \(sequence) at byte \(offset) is no longer the one delivered, so what was delivered may not be in the log any more; check it with 'replay verify', then restart the follower (from the beginning, or from a seq known to be unchanged)"
    case .logTruncated(let path, let delivered, let size):
      "'\(path)' is \(size) bytes, shorter than the \(delivered) bytes already delivered: lines that were delivered are gone (a 'replay repair', or an edit by hand?); check it with 'replay verify', then restart the follower"
    }
  }
}

/// Follows a log: delivers its committed events from a start, then each new one as it is
/// appended, by this process or any other, in seq order and once each.
///
/// **What is delivered is committed.** Before each read the follower takes a *shared* lock on
/// the log (`flock`), which it gets only between writers' appends: a writer holds the exclusive
/// lock from before it writes until after its `fdatasync`, so a follower never sees a write that
/// is still in progress or not yet synced under the default policy. Past that it reads only
/// `LogTail`'s committed end: a torn line or an unfinished multi-event write (left by a writer
/// that crashed) is never delivered. So no event delivered can be cut by recovery. (A line a
/// killed writer wrote whole but had not synced yet is delivered: `kill -9` cannot lose it, only
/// a machine crash in the next seconds could.)
///
/// **Wake-ups** come from the OS (`FileWatcher`: inotify, kqueue); an idle follower sleeps in
/// `poll` and costs nothing.
///
/// **What was delivered is still there.** Each time it looks at the log (under the same shared
/// lock), the follower checks that the last line it read is still in place: one `pread` of that
/// line, its checksum recomputed and compared with the one it read. A log rewritten in place
/// (cut back to an earlier line and other lines written), replaced by a rename, moved, deleted,
/// or cut shorter than what was delivered stops the follower with a `FollowError`; a bad line
/// with `EngineError.corruptLine`. Never a silent gap, nor events from two histories.
public final class LogFollower: Sendable {
  /// The log's path.
  public let path: String
  /// Where delivery starts.
  public let start: FollowStart
  /// Which events are delivered.
  public let filter: EventFilter
  let reader: LogReader
  private let control = Mutex<Control>(Control())

  private struct Control: ~Copyable {
    var stopped = false
    var watcher: FileWatcher?
  }

  public init(
    path: String, from start: FollowStart = .beginning, filter: EventFilter = EventFilter(),
    readSize: Int = LogReader.defaultReadSize
  ) {
    self.path = path
    self.start = start
    self.filter = filter
    reader = LogReader(path: path, readSize: readSize)
  }

  /// Stops `follow` (from any thread): it returns once the event it is delivering, if any, is
  /// handled.
  public func stop() {
    let watcher = control.withLock { control in
      control.stopped = true
      return control.watcher
    }
    watcher?.wake()
  }

  package var isStopped: Bool { control.withLock { $0.stopped } }

  /// Calls `body` with every committed event that passes the filter, from `start` on, then with
  /// each new one as it is committed, until `body` returns false, `stop()` is called, or an
  /// error. `caughtUp` is called each time every committed event has been delivered, before
  /// waiting for more (return false to stop). Blocks the calling thread.
  /// - Throws: `EngineError` (a missing log, a bad line), `FollowError`.
  /// - Parameter last: when given, following ends once the event with this seq has been
  ///   read (delivered or filtered out), without waiting for a later one.
  package func follow(
    through last: Int64? = nil, caughtUp: () throws -> Bool = { true },
    _ body: (EventLine) throws -> Bool
  ) throws {
    let file = try reader.openLog.openForReading()
    defer { file.close() }
    let identity = try file.status()
    // Watch before reading: an append between the read and the watch still wakes us.
    let watcher = try FileWatcher(path: path)
    let stoppedAlready = control.withLock { control in
      control.watcher = watcher
      return control.stopped
    }
    defer { control.withLock { $0.watcher = nil } }
    if stoppedAlready { return }

    var (position, skipThrough, notBefore) = try startingPoint(file)
    // The line before `position`, as it was read; nil until it is known.
    var lastRead: LineMark?
    // A stream or a category: what the writer's index covers is read where it puts it.
    if !filter.streams.isEmpty || !filter.categories.isEmpty, notBefore == nil {
      switch try indexedCatchUp(file, from: position, after: skipThrough, through: last, body) {
      case .notUsed: break
      case .stopped: return
      case .skipping(let delivered): skipThrough = max(skipThrough, delivered)
      case .read(let next, let covered):
        position = next
        lastRead = nil
        skipThrough = max(skipThrough, covered)
      }
    }
    while true {
      let end = try committedEnd(of: file, checking: position, lastRead: &lastRead)
      if end > position.offset {
        var stoppedByBody = false
        // A few new lines need no full-size read buffer: size it to what is there.
        let span = end - position.offset
        let reader =
          span >= Int64(self.reader.readSize)
          ? self.reader : LogReader(path: path, readSize: max(4096, Int(span)))
        let summary = try reader.read(file, from: position, to: end) { line in
          lastRead = LineMark(line)
          if let last, line.sequence > last {
            stoppedByBody = true
            return false
          }
          if line.sequence == last {
            // The last one wanted: after it, stop (whether or not it passes).
            stoppedByBody = true
          }
          if line.sequence <= skipThrough { return !stoppedByBody }
          if let notBefore {
            guard line.timestamp >= notBefore else { return true }
            // Times never go backwards: every later event passes too.
            skipThrough = line.sequence - 1
          }
          if isStopped {
            stoppedByBody = true
            return false
          }
          guard filter.isEmpty || filter.matches(line) else { return !stoppedByBody }
          if try body(line), !stoppedByBody { return true }
          stoppedByBody = true
          return false
        }
        if stoppedByBody { return }
        if let last, summary.lastSequence >= last { return }
        if notBefore != nil, skipThrough > 0 { notBefore = nil }
        position = LogReader.Position(
          offset: summary.endOffset, sequence: summary.lastSequence + 1)
        assert(lastRead.map { $0.end == position.offset } ?? false, "the mark is not the last line")
      }
      if isStopped { return }
      if try !caughtUp() { return }
      // Sleep until the file changes (or stop() wakes us), then look at what changed.
      if watcher.wait() == .woken, isStopped { return }
      guard let current = FileDescriptor.status(atPath: path),
        current.device == identity.device, current.inode == identity.inode
      else {
        throw FollowError.logReplaced(
          path: path, sequence: position.sequence - 1, offset: position.offset,
          replacement: .anotherFile)
      }
    }
  }

  enum IndexedCatchUp {
    case notUsed
    case stopped
    case skipping(through: Int64)
    case read(next: LogReader.Position, covered: Int64)
  }

  /// Delivers the filter's events the index covers, from `position` on (only lines the index
  /// covers, which are committed: it was checked against the committed end). `.notUsed` when
  /// there is no usable index, it covers nothing past `position`, or the lines are too many.
  private func indexedCatchUp(
    _ file: FileDescriptor, from position: LogReader.Position, after skipThrough: Int64,
    through last: Int64?, _ body: (EventLine) throws -> Bool
  ) throws -> IndexedCatchUp {
    let end = try committedEnd(of: file)
    guard case .success(let index) = LogIndexFile.open(forLog: path, log: file, committedEnd: end),
      index.coveredEnd > position.offset
    else { return .notUsed }
    var stopped = false
    var delivered = skipThrough
    let through = min(last ?? .max, index.lastSequence)
    do {
      let used = try reader.forEachEvent(
        matching: filter, from: max(position.sequence, skipThrough + 1), through: through,
        index: index, file: file, end: nil
      ) { line in
        if isStopped {
          stopped = true
          return false
        }
        let goOn = try body(line)
        delivered = line.sequence
        if !goOn { stopped = true }
        return goOn
      }
      guard used else { return .notUsed }
    } catch is LogIndexFile.Damaged {
      // The scan takes over from the start point, skipping what was delivered (in seq order).
      return stopped ? .stopped : .skipping(through: delivered)
    }
    if stopped || (last.map { $0 <= index.lastSequence } ?? false) { return .stopped }
    return .read(
      next: LogReader.Position(offset: index.coveredEnd, sequence: index.lastSequence + 1),
      covered: index.lastSequence)
  }

  /// Where reading starts, the seqs to skip (those at or before `skipThrough`) and, for a time,
  /// the earliest time to deliver until the first such event is found.
  private func startingPoint(
    _ file: FileDescriptor
  ) throws -> (LogReader.Position, Int64, Timestamp?) {
    switch start {
    case .beginning:
      return (.start, 0, nil)
    case .afterSequence(let sequence):
      if sequence <= 0 { return (.start, 0, nil) }
      if let position = try reader.position(afterSequence: sequence) {
        return (position, sequence, nil)
      }
      // Past the end (or seqs that cannot be trusted for a bisection): from the end when the
      // log ends before it, else from the start, skipping what comes before it.
      let tail = try LogTail.examine(file, path: path)
      if tail.lastSequence <= sequence {
        return (
          LogReader.Position(offset: tail.committedEnd, sequence: tail.lastSequence + 1),
          sequence, nil
        )
      }
      return (.start, sequence, nil)
    case .time(let instant):
      // The last event before the time, by bisection; from there every event passes.
      if instant.millisecondsSince1970 > Int64.min,
        let before = try reader.lastSequence(
          atOrBefore: Timestamp(millisecondsSince1970: instant.millisecondsSince1970 - 1)),
        let position = try reader.position(afterSequence: before)
      {
        return (position, before, nil)
      }
      return (.start, 0, instant)
    case .end:
      let tail = try committedTail(of: file)
      return (
        LogReader.Position(offset: tail.committedEnd, sequence: tail.lastSequence + 1),
        tail.lastSequence, nil
      )
    }
  }

  /// The log's committed end, read under a shared lock (so between writers' appends).
  private func committedEnd(of file: FileDescriptor) throws -> Int64 {
    try committedTail(of: file).committedEnd
  }

  /// The log's committed end, once it is known that what was read up to `position` is still
  /// there: the log is not shorter, and the line before `position` holds what was read. Marks
  /// that line first when `lastRead` is nil (a start after a seq, a time or at the end). All
  /// under one shared lock: a writer that rewrites the log holding the exclusive lock is seen
  /// before or after, never half done.
  /// - Throws: `FollowError` when what was read is not there; `EngineError.io`.
  private func committedEnd(
    of file: FileDescriptor, checking position: LogReader.Position, lastRead: inout LineMark?
  ) throws -> Int64 {
    try file.lockShared()
    defer { file.unlock() }
    let end = try LogTail.examine(file, path: path).committedEnd
    guard end >= position.offset else {
      throw FollowError.logTruncated(path: path, delivered: position.offset, size: end)
    }
    if lastRead == nil, position.offset > 0 {
      lastRead = try LineMark.line(
        endingAt: position.offset, sequence: position.sequence - 1, in: file)
    }
    if let mark = lastRead, try !mark.isInPlace(in: file) {
      throw FollowError.logReplaced(
        path: path, sequence: mark.sequence, offset: mark.offset, replacement: .rewrittenLine)
    }
    return end
  }

  private func committedTail(of file: FileDescriptor) throws -> LogTail {
    try file.lockShared()
    defer { file.unlock() }
    return try LogTail.examine(file, path: path)
  }
}

/// A line a follower read, as it read it: where it lies and the checksum it ends with. The
/// checksum covers every byte of the line before it, so a line that is still in place, the
/// same length, ending in the same checksum that its bytes still match, is the line read.
struct LineMark: Equatable {
  /// The event's seq.
  var sequence: Int64
  /// The line's first byte.
  var offset: Int64
  /// The line's length without its `\n`.
  var length: Int
  /// The line's `crc` member's 8 hex digits, as the bytes of a little-endian word.
  var checksum: UInt64

  /// Offset just past the line's `\n`.
  var end: Int64 { offset + Int64(length) + 1 }

  /// Marks a line the reader decoded (so it ends with a well-formed `crc` member).
  init(_ line: EventLine) {
    sequence = line.sequence
    offset = line.offset
    length = line.length
    checksum = UnsafeRawPointer(line.base + line.length - 10).loadUnaligned(as: UInt64.self)
  }

  init(sequence: Int64, offset: Int64, length: Int, checksum: UInt64) {
    self.sequence = sequence
    self.offset = offset
    self.length = length
    self.checksum = checksum
  }

  /// The checksum `bytes` (a line without its `\n`) ends with, when its bytes match it; nil
  /// for a line that does not end with a `crc` member, or whose bytes do not match it.
  static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt64? {
    let suffixLength = LogLineCodec.suffixLength
    guard bytes.count >= suffixLength + 2 else { return nil }
    let bodyLength = bytes.count - suffixLength
    let frame = Array(",\"crc\":\"".utf8)
    guard bytes[bodyLength..<bodyLength + 8].elementsEqual(frame),
      bytes[bodyLength + 16] == 0x22, bytes[bodyLength + 17] == 0x7D
    else { return nil }
    let stored = bytes.loadUnaligned(fromByteOffset: bodyLength + 8, as: UInt64.self)
    let computed = EventID.hexDigits(
      CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<bodyLength])))
    return stored == computed ? stored : nil
  }

  /// Whether `file` still holds this line where it was read: the same length between two line
  /// ends, ending in the same checksum, which its bytes still match.
  /// - Complexity: one `pread` of the line and the bytes either side of it.
  func isInPlace(in file: FileDescriptor) throws -> Bool {
    let before: Int64 = offset > 0 ? 1 : 0
    let bytes = try file.readFully(count: length + 1 + Int(before), at: offset - before)
    guard bytes.count == length + 1 + Int(before), bytes.last == 0x0A,
      before == 0 || bytes.first == 0x0A
    else { return false }
    return bytes.withUnsafeBytes { buffer in
      Self.checksum(
        of: UnsafeRawBufferPointer(rebasing: buffer[Int(before)..<Int(before) + length]))
        == checksum
    }
  }

  /// Marks the line that ends (with its `\n`) at `end`, reading back from there in growing
  /// steps; nil when there is none (`end` is 0) or it is not a line with a matching checksum.
  static func line(endingAt end: Int64, sequence: Int64, in file: FileDescriptor) throws
    -> LineMark?
  {
    guard end > 0 else { return nil }
    var window: Int64 = 4096
    while true {
      let start = max(0, end - window)
      let bytes = try file.readFully(count: Int(end - start), at: start)
      guard bytes.count == Int(end - start), bytes.last == 0x0A else { return nil }
      // The `\n` before the line's first byte, if it is in the window.
      if let newline = bytes.dropLast().lastIndex(of: 0x0A) {
        return mark(bytes[(newline + 1)...], at: start + Int64(newline + 1), sequence: sequence)
      }
      if start == 0 { return mark(bytes[...], at: 0, sequence: sequence) }
      window *= 2
    }
  }

  /// Marks `bytes` (a line with its `\n`) when it ends in a checksum its bytes match.
  private static func mark(_ bytes: ArraySlice<UInt8>, at offset: Int64, sequence: Int64)
    -> LineMark?
  {
    let line = bytes.dropLast()
    let checksum = line.withUnsafeBytes { Self.checksum(of: $0) }
    return checksum.map {
      LineMark(sequence: sequence, offset: offset, length: line.count, checksum: $0)
    }
  }
}
