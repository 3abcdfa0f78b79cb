import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Reads a large range of the log on two cores: a background thread reads chunks, splits them
/// into lines and checks every line's checksum and envelope; the calling thread receives the
/// decoded lines, in order, and runs the caller's body on them (payload decoding, projections).
///
/// Chunks travel between the threads through two small queues (empty buffers back, full ones
/// forward), so memory stays at a few chunks whatever the log's size.
///
/// The reading thread can also do some of the caller's work on a line ahead of time
/// (`prepare`, say decoding its payload): what it returns travels with the line's chunk and
/// reaches `body` with the line, with no lock taken per line.
struct PipelinedScan<Prepared> {
  /// Bytes per chunk.
  var chunkSize: Int
  /// Chunks in flight: one being filled, one being consumed, two spare (so that a burst of
  /// costly events on either side does not stall the other at once).
  static var chunkCount: Int { 4 }

  /// One chunk of the file and what the producer found in it.
  ///
  /// - Note: `@unchecked Sendable` because a chunk belongs to exactly one thread at a time: the
  ///   producer until it hands it over through `Handoff`, then the consumer until it hands it
  ///   back. The handoff's mutex orders every access.
  final class Chunk: @unchecked Sendable {
    var storage: UnsafeMutablePointer<UInt8>
    var capacity: Int
    /// Bytes of file data in `storage`.
    var filled = 0
    /// The decoded lines, pointing into `storage`.
    var lines: [EventLine] = []
    /// What `prepare` returned for some of the lines, in line order; `preparedLines` holds
    /// the index in `lines` of each.
    var prepared = MoveQueue<Prepared>()
    var preparedLines: [Int] = []
    /// What stopped the producer after the lines of this chunk, if anything.
    var failure: (any Error)?
    /// Whether this is the last chunk.
    var isLast = false

    init(capacity: Int) {
      self.capacity = capacity
      storage = .allocate(capacity: capacity)
    }

    func grow(to newCapacity: Int) {
      let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
      larger.update(from: storage, count: filled)
      storage.deallocate()
      storage = larger
      capacity = newCapacity
    }

    deinit {
      storage.deallocate()
      prepared.free()
    }
  }

  /// A blocking single-producer, single-consumer queue of chunks.
  final class Handoff: Sendable {
    private let items = Mutex<[Chunk]>([])
    private let available = DispatchSemaphore(value: 0)

    func put(_ chunk: Chunk) {
      items.withLock { $0.append(chunk) }
      available.signal()
    }

    func take() -> Chunk {
      available.wait()
      return items.withLock { $0.removeFirst() }
    }
  }

  /// What both threads share: the two queues and the stop flag.
  final class Shared: Sendable {
    let empty = Handoff()
    let full = Handoff()
    let stop = Atomic<Bool>(false)
  }

  /// Reads `start..<end` of `file`, checking each line, and calls `body` with each decoded line
  /// on the calling thread. `body` returns false to stop. Returns the last sequence number
  /// handed out and the offset past its line.
  /// `observe`, when given, sees each decoded line on the reading thread, in order, while the
  /// calling thread works on earlier ones (it may see lines past where `body` stops).
  /// `prepare`, when given, runs next on the reading thread; what it returns for a line is
  /// handed to `body` with that line (`nil` where it returned `nil`).
  func scan(
    _ file: FileDescriptor, path: String, from start: LogReader.Position, to end: Int64,
    through last: Int64 = .max, observe: (@Sendable (EventLine) -> Void)? = nil,
    prepare: (@Sendable (EventLine) -> Prepared?)? = nil,
    _ body: (EventLine, consuming Prepared?) throws -> Bool
  ) throws -> (lastSequence: Int64, endOffset: Int64, stoppedEarly: Bool) {
    let shared = Shared()
    for _ in 0..<Self.chunkCount { shared.empty.put(Chunk(capacity: chunkSize)) }
    let finished = DispatchSemaphore(value: 0)
    let chunkSize = self.chunkSize
    Thread.detachNewThread {
      Self.produce(
        file, path: path, from: start, to: end, through: last, chunkSize: chunkSize,
        shared: shared, observe: observe, prepare: prepare)
      finished.signal()
    }
    // Whatever happens here, stop the producer and wait for it before returning: it reads the
    // caller's open file.
    defer {
      shared.stop.store(true, ordering: .relaxed)
      // Wake it if it waits for an empty chunk, so that it sees `stop`.
      for _ in 0..<Self.chunkCount { shared.empty.put(Chunk(capacity: 1)) }
      finished.wait()
    }
    var expectedSequence = start.sequence
    var endOffset = start.offset
    while true {
      let chunk = shared.full.take()
      do {
        // In a local while its values are moved out, and back in the chunk however this block
        // ends (before the chunk goes back to the reading thread).
        var prepared = chunk.prepared
        defer { chunk.prepared = prepared }
        let preparedLines = chunk.preparedLines
        var nextPrepared = 0
        var index = 0
        for line in chunk.lines {
          var ready: Prepared?
          if nextPrepared < preparedLines.count, preparedLines[nextPrepared] == index {
            ready = prepared.popFirst()
            nextPrepared += 1
          }
          index += 1
          guard line.sequence == expectedSequence else {
            throw EngineError.corruptLine(
              path: path, line: Int(expectedSequence), offset: line.offset,
              problem: LogRules.Violation.sequence(found: line.sequence, expected: expectedSequence)
                .description)
          }
          expectedSequence += 1
          endOffset = line.offset + Int64(line.length) + 1
          if try !body(line, consume ready) {
            return (expectedSequence - 1, endOffset, true)
          }
        }
        prepared.removeAll()
      }
      if let failure = chunk.failure { throw failure }
      if chunk.isLast { return (expectedSequence - 1, endOffset, false) }
      chunk.lines.removeAll(keepingCapacity: true)
      chunk.preparedLines.removeAll(keepingCapacity: true)
      shared.empty.put(chunk)
    }
  }

  /// The background half: reads chunks, splits them into lines, checks and decodes each line.
  static func produce(
    _ file: FileDescriptor, path: String, from start: LogReader.Position, to end: Int64,
    through last: Int64, chunkSize: Int, shared: Shared,
    observe: (@Sendable (EventLine) -> Void)? = nil,
    prepare: (@Sendable (EventLine) -> Prepared?)? = nil
  ) {
    var offset = start.offset
    var lineNumber = start.sequence
    // A line cut by the end of a chunk moves to the start of the next one.
    var carry: [UInt8] = []
    var memo = LogLineCodec.Memo()
    while !shared.stop.load(ordering: .relaxed) {
      let chunk = shared.empty.take()
      if shared.stop.load(ordering: .relaxed) { return }
      chunk.lines.removeAll(keepingCapacity: true)
      chunk.prepared.removeAll()
      chunk.preparedLines.removeAll(keepingCapacity: true)
      chunk.failure = nil
      chunk.filled = 0
      if carry.count * 2 > chunk.capacity {
        // A line longer than half a chunk: make room for it and more.
        chunk.grow(to: max(chunk.capacity * 2, carry.count * 2))
      }
      carry.withUnsafeBufferPointer { bytes in
        if let base = bytes.baseAddress { chunk.storage.update(from: base, count: bytes.count) }
      }
      chunk.filled = carry.count
      let chunkOffset = offset - Int64(carry.count)
      carry.removeAll(keepingCapacity: true)
      var atEnd = false
      while chunk.filled < chunk.capacity {
        let wanted = Int(min(Int64(chunk.capacity - chunk.filled), end - offset))
        if wanted <= 0 {
          atEnd = true
          break
        }
        let got: Int
        do {
          got = try file.read(into: chunk.storage + chunk.filled, count: wanted, at: offset)
        } catch {
          chunk.failure = error
          chunk.isLast = true
          shared.full.put(chunk)
          return
        }
        if got == 0 {
          // The file is shorter than it was: a writer cut an uncommitted tail meanwhile.
          atEnd = true
          break
        }
        chunk.filled += got
        offset += Int64(got)
      }
      // The chunk's fields in locals while its lines are decoded: each access to a class's
      // stored property is checked for exclusivity at run time (about 100 instructions a line).
      let storage = chunk.storage
      let filled = chunk.filled
      var lines = chunk.lines
      chunk.lines = []
      var prepared = chunk.prepared
      var preparedLines = chunk.preparedLines
      chunk.preparedLines = []
      var lineStart = 0
      while lineStart < filled,
        let found = memchr(storage + lineStart, 0x0A, filled - lineStart)
      {
        let newline = found.assumingMemoryBound(to: UInt8.self) - storage
        do throws(LogLineCodec.Problem) {
          let line = try LogLineCodec.decode(
            storage + lineStart, length: newline - lineStart, lineNumber: Int(lineNumber),
            offset: chunkOffset + Int64(lineStart), memo: &memo)
          observe?(line)
          if let prepare, let value = prepare(line) {
            prepared.append(consume value)
            preparedLines.append(lines.count)
          }
          lines.append(consume line)
        } catch {
          chunk.failure = EngineError.corruptLine(
            path: path, line: Int(lineNumber), offset: chunkOffset + Int64(lineStart),
            problem: error.message)
          chunk.isLast = true
          chunk.lines = lines
          chunk.prepared = prepared
          chunk.preparedLines = preparedLines
          shared.full.put(chunk)
          return
        }
        lineNumber += 1
        lineStart = newline + 1
        // Nothing past the last event asked for is read, checked or decoded.
        if lineNumber > last {
          atEnd = true
          break
        }
      }
      chunk.lines = lines
      chunk.prepared = prepared
      chunk.preparedLines = preparedLines
      if atEnd || offset >= end {
        chunk.isLast = true
        shared.full.put(chunk)
        return
      }
      carry.append(
        contentsOf: UnsafeBufferPointer(
          start: chunk.storage + lineStart, count: chunk.filled - lineStart))
      shared.full.put(chunk)
    }
  }
}

/// Values moved in at the back and out at the front, never copied: what `PipelinedScan`'s
/// reading thread prepares for a chunk's lines. (An array's elements can only be copied out, or
/// moved out from the end.)
///
/// Its storage is managed by hand: a copy of the struct shares it, so only one copy may be
/// used at a time, and the last one is written back to its owner, which calls `free`.
struct MoveQueue<Element> {
  private var base = UnsafeMutablePointer<Element>.allocate(capacity: 0)
  private var capacity = 0
  /// The first element not yet moved out.
  private var head = 0
  /// One past the last element.
  private var end = 0

  /// Whether every element appended has been moved out.
  var isEmpty: Bool { head == end }

  mutating func append(_ value: consuming Element) {
    if end == capacity { grow() }
    (base + end).initialize(to: value)
    end += 1
  }

  /// Moves the first element out.
  /// - Precondition: not empty.
  mutating func popFirst() -> Element {
    precondition(head < end, "popFirst on an empty MoveQueue")
    let element = (base + head).move()
    head += 1
    return element
  }

  /// Destroys the elements not moved out, keeping the storage.
  mutating func removeAll() {
    if end > head { (base + head).deinitialize(count: end - head) }
    head = 0
    end = 0
  }

  /// Destroys what is left and releases the storage.
  mutating func free() {
    removeAll()
    base.deallocate()
    base = .allocate(capacity: 0)
    capacity = 0
  }

  private mutating func grow() {
    let larger = max(64, capacity * 2)
    let storage = UnsafeMutablePointer<Element>.allocate(capacity: larger)
    storage.moveInitialize(from: base + head, count: end - head)
    base.deallocate()
    end -= head
    head = 0
    base = storage
    capacity = larger
  }
}
