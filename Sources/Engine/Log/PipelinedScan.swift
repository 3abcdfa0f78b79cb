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
struct PipelinedScan {
  /// Bytes per chunk.
  var chunkSize: Int
  /// Chunks in flight: one being filled, one being consumed, two spare (so that a burst of
  /// costly events on either side does not stall the other at once).
  static let chunkCount = 4

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

    deinit { storage.deallocate() }
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
  func scan(
    _ file: FileDescriptor, path: String, from start: LogReader.Position, to end: Int64,
    through last: Int64 = .max, observe: (@Sendable (EventLine) -> Void)? = nil,
    _ body: (EventLine) throws -> Bool
  ) throws -> (lastSequence: Int64, endOffset: Int64, stoppedEarly: Bool) {
    let shared = Shared()
    for _ in 0..<Self.chunkCount { shared.empty.put(Chunk(capacity: chunkSize)) }
    let finished = DispatchSemaphore(value: 0)
    let chunkSize = self.chunkSize
    Thread.detachNewThread {
      Self.produce(
        file, path: path, from: start, to: end, through: last, chunkSize: chunkSize,
        shared: shared, observe: observe)
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
      for line in chunk.lines {
        guard line.sequence == expectedSequence else {
          throw EngineError.corruptLine(
            path: path, line: Int(expectedSequence), offset: line.offset,
            problem:
              "seq is \(line.sequence) where \(expectedSequence) was expected (seq runs gapless from 1)"
          )
        }
        expectedSequence += 1
        endOffset = line.offset + Int64(line.length) + 1
        if try !body(line) {
          return (expectedSequence - 1, endOffset, true)
        }
      }
      if let failure = chunk.failure { throw failure }
      if chunk.isLast { return (expectedSequence - 1, endOffset, false) }
      chunk.lines.removeAll(keepingCapacity: true)
      shared.empty.put(chunk)
    }
  }

  /// The background half: reads chunks, splits them into lines, checks and decodes each line.
  static func produce(
    _ file: FileDescriptor, path: String, from start: LogReader.Position, to end: Int64,
    through last: Int64, chunkSize: Int, shared: Shared,
    observe: (@Sendable (EventLine) -> Void)? = nil
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
          lines.append(consume line)
        } catch {
          chunk.failure = EngineError.corruptLine(
            path: path, line: Int(lineNumber), offset: chunkOffset + Int64(lineStart),
            problem: error.message)
          chunk.isLast = true
          chunk.lines = lines
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
