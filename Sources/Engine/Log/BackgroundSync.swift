import Dispatch
import Foundation
import Synchronization

/// Runs `fdatasync` on a thread of its own, so that a multi-chunk write checks and encodes its
/// next chunk while the previous one reaches the disk. `wait()` returns once the sync started last has
/// finished, and throws its error if it failed.
///
/// Each side spins for a short while (``spinLimit``) before it sleeps: at 100 events a chunk a
/// sync and the encoding of the next chunk each take about 0.2 ms here, and a hand-over through
/// a sleeping thread (a dispatch queue's worker, or a condition variable) costs a good part of
/// that, twice a chunk. Measured on 200,000 events at 100 a chunk: 0.777 s with a dispatch
/// queue, 0.691 s with this (raw write + `fdatasync` of the same bytes: 0.441 s); BENCHMARKS.md,
/// "Where the import's time goes".
final class BackgroundSync: Sendable {
  /// How long a side spins on the other before it sleeps, in nanoseconds.
  static let spinLimit: UInt64 = 250_000

  /// What the two threads share; the thread holds this, not the `BackgroundSync`, so that
  /// dropping the last `BackgroundSync` stops the thread.
  private final class Shared: @unchecked Sendable {
    /// Syncs asked for and syncs done, counted; the thread stops when `stopping` is set.
    let requested = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    /// Where sleepers wait; every change of the counters is signalled under its lock.
    let condition = NSCondition()
    /// The file to sync and the first failure (under `condition`'s lock).
    var file: FileDescriptor?
    var failure: EngineError?

    /// Waits until `ready()` holds: spins up to `spinLimit`, then sleeps on the condition.
    func wait(until ready: () -> Bool) {
      if ready() { return }
      let start = DispatchTime.now().uptimeNanoseconds
      while DispatchTime.now().uptimeNanoseconds &- start < BackgroundSync.spinLimit {
        if ready() { return }
      }
      condition.lock()
      while !ready() { condition.wait() }
      condition.unlock()
    }

    func signal() {
      condition.lock()
      condition.broadcast()
      condition.unlock()
    }

    /// The thread's loop: sync each time one is asked for, until stopped.
    func run() {
      var done = 0
      while true {
        wait { requested.load(ordering: .acquiring) > done || stopping.load(ordering: .acquiring) }
        let wanted = requested.load(ordering: .acquiring)
        guard wanted > done else { return }
        condition.lock()
        let target = file
        condition.unlock()
        if let target {
          do throws(EngineError) {
            try target.synchronize()
          } catch {
            condition.lock()
            failure = failure ?? error
            condition.unlock()
          }
        }
        done = wanted
        completed.store(done, ordering: .releasing)
        signal()
      }
    }
  }

  private let shared = Shared()

  init() {
    let shared = self.shared
    let thread = Thread { shared.run() }
    thread.name = "replay.event-log.sync"
    thread.start()
  }

  deinit {
    shared.stopping.store(true, ordering: .releasing)
    shared.signal()
  }

  /// Starts syncing `file` in the background.
  func start(_ file: FileDescriptor) {
    shared.condition.lock()
    shared.file = file
    shared.condition.unlock()
    shared.requested.add(1, ordering: .releasing)
    shared.signal()
  }

  /// Waits for the syncs started so far; throws the first one's error.
  func wait() throws(EngineError) {
    let shared = self.shared
    let wanted = shared.requested.load(ordering: .acquiring)
    shared.wait { shared.completed.load(ordering: .acquiring) >= wanted }
    shared.condition.lock()
    let failure = shared.failure
    shared.condition.unlock()
    if let failure { throw failure }
  }
}
