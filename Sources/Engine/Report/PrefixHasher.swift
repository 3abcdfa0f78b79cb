import Dispatch
import Events
import Foundation
import Synchronization

/// Hashes a log from its first byte on its own thread, in large blocks, while other passes read
/// the same file: the SHA-256 of any prefix is then the hasher's state at the last block
/// boundary before the prefix's end, plus the bytes after it.
///
/// Bytes of a log's committed lines never change, so reading them twice (here and in the pass
/// that finds where the prefix ends) gives the same bytes. The hasher stops at the end of the
/// file as it was when it started, or earlier once told where the prefix ends.
final class PrefixHasher: Sendable {
  static let blockSize = 1 << 20

  private struct State {
    /// The hasher after `index` whole blocks past `start`, at each block boundary.
    var snapshots: [SHA256]
    var failure: EngineError?
  }

  private let path: String
  /// Where hashing starts: 0, or the end of a prefix whose hasher state is known (a
  /// checkpoint's midstate).
  let startOffset: Int64
  private let state: Mutex<State>
  /// Where the prefix ends, once known; blocks past it are not read.
  private let limit = Atomic<Int64>(.max)
  private let done = DispatchSemaphore(value: 0)

  /// A hasher of the log at `path`, from byte 0, or from `resuming.offset` with the hasher's
  /// state after the bytes before it.
  init(path: String, resuming: (offset: Int64, hasher: SHA256)? = nil) {
    self.path = path
    startOffset = resuming?.offset ?? 0
    state = Mutex(State(snapshots: [resuming?.hasher ?? SHA256()]))
  }

  /// Starts hashing on a thread of its own.
  func start() {
    let thread = Thread { [self] in
      run()
      done.signal()
    }
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// Says that no byte past `end` is needed.
  func stop(at end: Int64) {
    limit.store(end, ordering: .relaxed)
  }

  private func run() {
    do throws(EngineError) {
      let file = try FileDescriptor.open(path, .readOnly)
      defer { file.close() }
      var hasher = state.withLock { $0.snapshots[0] }
      var offset = startOffset
      let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: Self.blockSize, alignment: 64)
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
        let snapshot = hasher
        state.withLock { $0.snapshots.append(snapshot) }
      }
    } catch {
      state.withLock { $0.failure = error }
    }
  }

  /// Waits for the thread, then returns the SHA-256 of bytes `0..<end`, or `nil` when `end`
  /// is before where hashing started.
  func digest(through end: Int64) throws -> [UInt8]? {
    stop(at: end)
    done.wait()
    guard end >= startOffset else { return nil }
    let (snapshots, failure) = state.withLock { ($0.snapshots, $0.failure) }
    if let failure { throw failure }
    let whole = min(Int((end - startOffset) / Int64(Self.blockSize)), snapshots.count - 1)
    var hasher = snapshots[whole]
    let start = startOffset + Int64(whole) * Int64(Self.blockSize)
    if end > start {
      let file = try FileDescriptor.open(path, .readOnly)
      defer { file.close() }
      let rest = try file.readFully(count: Int(end - start), at: start)
      guard rest.count == Int(end - start) else {
        throw EngineError.invalidEvent(
          location: path, problem: "the log is shorter than \(end) bytes while being read")
      }
      rest.withUnsafeBytes { hasher.update($0) }
    }
    return hasher.finalize()
  }
}
