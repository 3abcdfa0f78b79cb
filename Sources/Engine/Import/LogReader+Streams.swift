import Events

extension LogReader {
  /// Every event of each of `streams`, scanning the whole log without taking its lock or
  /// changing it in any way (not even cutting a torn tail): for `replay import --dry-run` and
  /// `replay history`. Streams without events are absent; a missing log has no events.
  /// - Complexity: O(n) in the log's size; a line's stream name becomes a `String` only when
  ///   its bytes hash like one of `streams`.
  public func events(inStreams streams: Set<String>) throws -> [String: EventLog.StreamHistory] {
    let hashes = Set(
      streams.map { name in
        var name = name
        return name.withUTF8 { StreamTable.hash($0) }
      })
    var histories: [String: EventLog.StreamHistory] = [:]
    do {
      try forEachEvent { line in
        // Another tool may escape what the engine writes raw: compare the decoded name then.
        if line.streamSlice.hasEscapes || hashes.contains(StreamTable.hash(line.streamBytes)) {
          let stream = line.stream
          // Names are bytes: a `Set<String>` alone would also take a canonically equivalent name.
          if let wanted = streams.firstIndex(of: stream),
            streams[wanted].utf8.elementsEqual(stream.utf8)
          {
            histories[stream, default: .empty].events.append(line.recordedEvent())
          }
        }
        return true
      }
    } catch EngineError.fileNotFound {
      return [:]
    }
    // Versions are positions from 1: a stream's version is its number of events.
    return histories.mapValues { history in
      var history = history
      history.version = Int64(history.events.count)
      return history
    }
  }
}
