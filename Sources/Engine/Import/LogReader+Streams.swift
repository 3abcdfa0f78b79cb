import Events

extension LogReader {
  /// Every event of each of `streams`, scanning the whole log without taking its lock or
  /// changing it in any way (not even cutting a torn tail): for `replay import --dry-run`. A
  /// missing log has no events.
  /// - Complexity: O(n) in the log's size.
  public func events(inStreams streams: Set<String>) throws -> [String: EventLog.StreamHistory] {
    var histories: [String: EventLog.StreamHistory] = [:]
    do {
      try forEachEvent { line in
        let stream = line.stream
        if streams.contains(stream) {
          histories[stream, default: .empty].events.append(line.recordedEvent())
          histories[stream, default: .empty].version += 1
        }
        return true
      }
    } catch EngineError.fileNotFound {
      return [:]
    }
    return histories
  }
}
