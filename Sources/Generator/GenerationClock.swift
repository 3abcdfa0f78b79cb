import Engine
import Events
import Synchronization

/// The clock of a generated log: a fixed start, moved on by a fixed step after every chunk, so
/// the same generation stamps the same times.
package final class GenerationClock: Sendable {
  /// 2024-01-01T00:00:00.000Z, where generated logs start by default.
  public static let defaultStart = Timestamp(millisecondsSince1970: 1_704_067_200_000)

  /// The time of the first chunk.
  public let start: Timestamp
  /// How far each chunk is after the one before, in milliseconds.
  public let millisecondsPerChunk: Int64
  /// Chunks stamped so far.
  private let chunks = Mutex<Int64>(0)

  /// A clock at `start`, one minute per chunk unless told otherwise.
  public init(start: Timestamp = defaultStart, millisecondsPerChunk: Int64 = 60_000) {
    self.start = start
    self.millisecondsPerChunk = millisecondsPerChunk
  }

  /// The time the current chunk is stamped with.
  public var now: Timestamp {
    let chunks = chunks.withLock { $0 }
    return Timestamp(
      millisecondsSince1970: start.millisecondsSince1970 + chunks * millisecondsPerChunk)
  }

  /// Moves on to the next chunk's time.
  public func advance() {
    chunks.withLock { $0 += 1 }
  }
}

extension EventLog.Configuration {
  /// How a generated log is written: stamped by `clock`, with event ids derived from `seed` and
  /// each event's seq exactly as `--id-seed <seed>` derives them, and the keys and nonces that
  /// seal the contacts' personal data derived from `seed` (`sealingSeed`): generated data only.
  /// - Parameters:
  ///   - seed: the generation's seed.
  ///   - clock: the clock the generation moves on after each chunk.
  ///   - syncPolicy: `.always` syncs each chunk; `.never` for scratch logs.
  ///   - lockTimeout: how long to wait for another writer's lock, in seconds.
  ///   - report: where recovery reports go.
  package static func generating(
    seed: String, clock: GenerationClock, syncPolicy: EventLog.SyncPolicy = .always,
    lockTimeout: Double = 10, report: @escaping @Sendable (String) -> Void = { _ in }
  ) -> EventLog.Configuration {
    var configuration = EventLog.Configuration(
      clock: { clock.now },
      makeEventID: { sequence in EventID.derived(fromName: "\(seed)/\(sequence)") },
      syncPolicy: syncPolicy, lockTimeout: lockTimeout, report: report)
    // A seed gives the same bytes: the contacts' keys and nonces derive from it too.
    configuration.sealingSeed = seed
    return configuration
  }
}
