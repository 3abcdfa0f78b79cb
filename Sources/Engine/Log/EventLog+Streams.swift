import Events

extension EventLog {
  /// One stream's events, in version order, and its version (the number of events).
  public struct StreamHistory: Sendable, Equatable {
    /// The events, oldest first.
    public var events: [RecordedEvent]
    /// The stream's version: what an append must expect next. 0 when it has no events.
    public var version: Int64

    /// A stream with no events.
    public static let empty = StreamHistory(events: [], version: 0)
  }

  /// Every event of each of `streams`, read under ONE acquisition of the lock with the index
  /// current, so the histories are one consistent snapshot and each version is the one an
  /// append must expect next. A stream with no events maps to `StreamHistory.empty`.
  ///
  /// An import decides on thousands of streams at once: one lock instead of one per stream.
  /// - Complexity: one read per event of the streams asked for; the rest of the log is not read.
  ///
  /// Names are compared as bytes: two canonically equivalent names are two streams.
  public func events(inStreams streams: some Sequence<String>) throws -> StreamHistories {
    try withLockedLog(creating: false) { state in
      var histories = StreamHistories()
      for stream in streams where histories[stream] == nil {
        let offsets = try state.index.lineOffsets(ofStream: stream)
        guard let file = state.file, !offsets.isEmpty else {
          histories[stream] = .empty
          continue
        }
        let events = try Self.streamEvents(stream, at: offsets, in: file, path: path)
        histories[stream] = StreamHistory(events: events, version: Int64(offsets.count))
      }
      return histories
    }
  }
}
