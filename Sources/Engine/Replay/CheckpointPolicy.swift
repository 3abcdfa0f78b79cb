import Foundation

/// When read commands save checkpoints on their own, and how many they keep.
///
/// Writers never save one (an append stays one write). A replay that reads more than
/// `minimumEvents` events past the checkpoint it started from saves, while it has the models in
/// hand: one at every multiple of the log's grid spacing it passes that has none, and one at its
/// last event when it read to the end of the log. The grid spacing is the smallest
/// `baseSpacing · 2^k` that puts at most `gridCount` multiples in the log, so as the log grows
/// the spacing doubles and every other grid checkpoint falls out of it. Pruning keeps the grid
/// multiples and the `recentCount` newest checkpoints and deletes the rest: at most
/// `gridCount + recentCount` files, whatever the number of saves. A log with a `replay
/// checkpoint --every` interval keeps what that interval asks for: nothing is pruned.
public struct CheckpointPolicy: Sendable, Equatable {
  /// Events a replay must read past its starting checkpoint before it saves any.
  public var minimumEvents: Int64
  /// At most this many grid checkpoints.
  public var gridCount: Int64
  /// The smallest grid spacing.
  public var baseSpacing: Int64
  /// The newest checkpoints kept besides the grid.
  public var recentCount: Int

  public init(
    minimumEvents: Int64 = 10_000, gridCount: Int64 = 16, baseSpacing: Int64 = 1024,
    recentCount: Int = 2
  ) {
    self.minimumEvents = max(0, minimumEvents)
    self.gridCount = max(1, gridCount)
    self.baseSpacing = max(1, baseSpacing)
    self.recentCount = max(1, recentCount)
  }

  /// The CLI's policy.
  public static let standard = CheckpointPolicy()

  /// The grid spacing for a log of `lastSequence` events.
  public func spacing(lastSequence: Int64) -> Int64 {
    var spacing = baseSpacing
    while lastSequence / spacing > gridCount, spacing < Int64.max / 2 { spacing *= 2 }
    return spacing
  }

  /// The seqs among `sequences` that pruning keeps for a log of `lastSequence` events.
  public func kept(_ sequences: [Int64], lastSequence: Int64) -> Set<Int64> {
    let spacing = spacing(lastSequence: lastSequence)
    var kept = Set(sequences.sorted().suffix(recentCount))
    for sequence in sequences where sequence > 0 && sequence % spacing == 0 {
      kept.insert(sequence)
    }
    return kept
  }
}

extension CheckpointStore {
  /// Deletes the checkpoints `policy` does not keep for a log of `lastSequence` events; none
  /// when the log has a `--every` interval. A file another process deletes first is no error.
  /// - Returns: the seqs deleted.
  @discardableResult
  public func prune(
    _ policy: CheckpointPolicy, lastSequence: Int64, explain: (String) -> Void = { _ in }
  ) -> [Int64] {
    guard interval == nil else { return [] }
    let entries = entries()
    let kept = policy.kept(entries.map(\.sequence), lastSequence: lastSequence)
    var removed: [Int64] = []
    for entry in entries where !kept.contains(entry.sequence) {
      if PathOperations.unlink(entry.path) == 0 || errno == ENOENT {
        removed.append(entry.sequence)
      } else {
        explain("could not delete the checkpoint '\(entry.path)': \(systemErrorMessage(errno))")
      }
    }
    return removed
  }
}
