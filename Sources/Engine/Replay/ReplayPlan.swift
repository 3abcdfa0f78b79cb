import Events

/// Where a replay stops, worked out before it starts: the log's last committed seq, and the
/// seq to read through (for a time, the last event at or before it, found by bisection).
struct ReplayPlan {
  /// The last seq to read; `nil` to read to the end.
  var target: Int64?
  /// The log's last committed event when the replay began.
  var lastSequence: Int64

  /// Examines the log's tail, and for a time bisects the log; a time the bisection cannot
  /// place (a log whose seqs or times are out of order at the probes) leaves `target` `nil`,
  /// and the replay reads the whole log, filtering by time, as it always could.
  init(point: ReplayPoint, log: OpenLog) throws {
    let resolved = try LogSeek.withLog(log) { seek throws -> (Int64?, Int64) in
      switch point {
      case .end: (nil, seek.lastSequence)
      case .sequence(let sequence): (sequence, seek.lastSequence)
      case .instant(let instant): (try seek.lastSequence(atOrBefore: instant), seek.lastSequence)
      }
    }
    target = resolved.0
    lastSequence = resolved.1
  }
}
