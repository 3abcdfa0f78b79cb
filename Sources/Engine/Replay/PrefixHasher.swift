import Events
import Foundation
import Synchronization

/// Hashes a log from its first byte on its own thread, in large blocks, while other passes read
/// the same file: the SHA-256 of any prefix is then the hasher's state at the last block
/// boundary before the prefix's end, plus the bytes after it.
///
/// Two passes use it: the audit report (the digest through its point), and a replay that saves
/// checkpoints (each anchor holds the digest and midstate through its line). SHA-256 runs here at
/// about 320 MB/s, a 308-byte line about 1 µs, more than the rest of a replay spends on it: on
/// the folding thread, as it once was, the first `replay rebuild` of a log took the hashing's
/// time and the fold's one after the other.
///
/// Bytes of a log's committed lines never change, so reading them twice (here and in the pass
/// that finds where the prefix ends) gives the same bytes. The hasher stops at the end of the
/// file as it was when it started, or earlier once told where the prefix ends.
package final class PrefixHasher: Sendable {
  static let blockSize = 1 << 20

  /// What the threads share, under `condition`'s lock.
  private final class Shared: @unchecked Sendable {
    let condition = NSCondition()
    /// The hasher after `index` whole blocks past `startOffset`, at each block boundary.
    var snapshots: [SHA256]
    var failure: EngineError?
    /// Whether the thread has stopped: no more snapshots come.
    var finished = false

    init(_ first: SHA256) {
      snapshots = [first]
    }
  }

  private let path: String
  /// Where hashing starts: 0, or the end of a prefix whose hasher state is known (a
  /// checkpoint's midstate).
  let startOffset: Int64
  private let shared: Shared
  /// Where the prefix ends, once known; blocks past it are not read.
  private let limit = Atomic<Int64>(.max)

  /// A hasher of the log at `path`, from byte 0, or from `resuming.offset` with the hasher's
  /// state after the bytes before it.
  package init(path: String, resuming: (offset: Int64, hasher: SHA256)? = nil) {
    self.path = path
    startOffset = resuming?.offset ?? 0
    shared = Shared(resuming?.hasher ?? SHA256())
  }

  /// Starts hashing on a thread of its own.
  package func start() {
    let thread = Thread { [self] in
      let failure: EngineError?
      do throws(EngineError) {
        try run()
        failure = nil
      } catch {
        failure = error
      }
      shared.condition.lock()
      shared.failure = failure
      shared.finished = true
      shared.condition.broadcast()
      shared.condition.unlock()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// Says that no byte past `end` is needed (0: none at all, the hashing is abandoned).
  package func stop(at end: Int64) {
    limit.store(end, ordering: .relaxed)
  }

  /// Hashes whole blocks until the file or the limit ends, keeping the state after each.
  private func run() throws(EngineError) {
    let file = try OpenLog.named(path).openForReading()
    defer { file.close() }
    shared.condition.lock()
    var hasher = shared.snapshots[0]
    shared.condition.unlock()
    var offset = startOffset
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 64)
    defer { buffer.deallocate() }
    while offset + Int64(Self.blockSize) <= limit.load(ordering: .relaxed) {
      guard let base = buffer.baseAddress else { return }
      var filled = 0
      while filled < Self.blockSize {
        let got = try file.read(
          into: base + filled, count: Self.blockSize - filled, at: offset + Int64(filled))
        if got == 0 { break }
        filled += got
      }
      // Only whole blocks are kept: the rest is hashed once the prefix's end is known.
      guard filled == Self.blockSize else { return }
      hasher.update(UnsafeRawBufferPointer(buffer))
      offset += Int64(Self.blockSize)
      shared.condition.lock()
      shared.snapshots.append(hasher)
      shared.condition.broadcast()
      shared.condition.unlock()
    }
  }

  /// The hasher's state after bytes `0..<end`, or `nil` when `end` is before where hashing
  /// started. Waits until the thread has hashed the last whole block before `end` (or stopped),
  /// not for it to finish: a replay asks at each checkpoint it saves, while the thread goes on.
  /// The bytes from that block's end to `end` (less than a block) are hashed here.
  func state(through end: Int64) throws -> SHA256? {
    guard end >= startOffset else { return nil }
    let wanted = Int((end - startOffset) / Int64(Self.blockSize))
    shared.condition.lock()
    while shared.snapshots.count <= wanted, !shared.finished, shared.failure == nil {
      shared.condition.wait()
    }
    let failure = shared.failure
    let whole = min(wanted, shared.snapshots.count - 1)
    var hasher = shared.snapshots[whole]
    shared.condition.unlock()
    if let failure { throw failure }
    let start = startOffset + Int64(whole) * Int64(Self.blockSize)
    if end > start {
      let file = try OpenLog.named(path).openForReading()
      defer { file.close() }
      let rest = try file.readFully(count: Int(end - start), at: start)
      guard rest.count == Int(end - start) else {
        throw EngineError.invalidEvent(
          location: path, problem: "the log is shorter than \(end) bytes while being read")
      }
      rest.withUnsafeBytes { hasher.update($0) }
    }
    return hasher
  }

  /// The SHA-256 of bytes `0..<end`, or `nil` when `end` is before where hashing started; no
  /// byte past `end` is hashed after this.
  package func digest(through end: Int64) throws -> [UInt8]? {
    stop(at: end)
    return try state(through: end)?.finalize()
  }
}
