import Events

extension LogReader {
  /// Every event of each of `streams`, without taking the log's lock or changing it in any way
  /// (not even cutting a torn tail): for `replay import --dry-run` and `replay history`.
  /// Streams without events are absent; a missing log has no events.
  ///
  /// With a saved index (`<log>.index`, kept by writers) that checks against the log, the
  /// streams' lines are read where the index puts them and only the lines after it are scanned;
  /// otherwise the whole log is scanned.
  /// - Complexity: with an index, one read per event of the streams plus a scan of the lines
  ///   appended since it was saved; without, O(n) in the log's size (a line's stream name
  ///   becomes a `String` only when its bytes hash like one of `streams`).
  ///
  /// Names are compared as bytes: two canonically equivalent names are two streams.
  public func events(inStreams names: some Sequence<String>) throws -> EventLog.StreamHistories {
    var streams: Set<StreamName> = []
    for name in names { streams.insert(StreamName(name)) }
    let file: FileDescriptor
    do {
      file = try openLog.openForReading()
    } catch EngineError.fileNotFound {
      return EventLog.StreamHistories()
    }
    defer { file.close() }
    let tail = try LogTail.examine(file, path: path)
    if case .success(let index) = LogIndexFile.open(
      forLog: path, log: file, committedEnd: tail.committedEnd)
    {
      do {
        return try events(inStreams: streams, from: index, file: file, to: tail.committedEnd)
      } catch let damage as LogIndexFile.Damaged {
        warn(
          "ignoring the index '\(LogIndexFile.path(forLog: path))' (\(damage.problem)): reading the log instead"
        )
      }
    }
    return try scanningEvents(inStreams: streams)
  }

  /// `events(inStreams:)` through a saved index: its lines, then a scan of the rest.
  private func events(
    inStreams streams: Set<StreamName>, from index: LogIndexFile, file: FileDescriptor,
    to end: Int64
  ) throws -> EventLog.StreamHistories {
    var histories = EventLog.StreamHistories()
    for key in streams {
      let stream = key.rawValue
      var name = stream
      let offsets = try name.withUTF8 { bytes in
        try index.stream(named: UnsafeRawBufferPointer(bytes)).map { try index.lineOffsets(of: $0) }
      }
      guard let offsets, !offsets.isEmpty else { continue }
      let events = try EventLog.streamEvents(stream, at: offsets, in: file, path: path)
      histories[stream] = EventLog.StreamHistory(events: events, version: Int64(events.count))
    }
    let hashes = Self.hashes(of: streams)
    _ = try read(
      file, from: Position(offset: index.coveredEnd, sequence: index.lastSequence + 1), to: end
    ) { line in
      if let stream = Self.wantedStream(line, in: streams, hashes: hashes) {
        histories.append(line.recordedEvent(), toStream: stream)
      }
      return true
    }
    histories.countVersions()
    return histories
  }

  /// The stream's name when `line` belongs to one of `streams`.
  private static func wantedStream(
    _ line: EventLine, in streams: Set<StreamName>, hashes: Set<UInt64>
  ) -> String? {
    // Another tool may escape what the engine writes raw: compare the decoded name then.
    guard line.streamSlice.hasEscapes || hashes.contains(StreamTable.hash(line.streamBytes))
    else { return nil }
    let stream = line.stream
    return streams.contains(StreamName(stream)) ? stream : nil
  }

  private static func hashes(of streams: Set<StreamName>) -> Set<UInt64> {
    Set(
      streams.map { name in
        var name = name.rawValue
        return name.withUTF8 { StreamTable.hash($0) }
      })
  }

  /// `events(inStreams:)` by scanning the whole log.
  private func scanningEvents(
    inStreams streams: Set<StreamName>
  ) throws -> EventLog.StreamHistories {
    do {
      return try Self.events(inStreams: streams) { _ = try forEachEvent(from: .start, $0) }
    } catch EngineError.fileNotFound {
      return EventLog.StreamHistories()
    }
  }

  /// Every event of each of `streams` among the lines `lines` hands out (a log kept somewhere
  /// other than a file): `events(inStreams:)` without an index.
  /// - Throws: what `lines` throws.
  package static func events(
    inStreams streams: Set<StreamName>, lines: LineSource
  ) throws -> EventLog.StreamHistories {
    let hashes = Self.hashes(of: streams)
    var histories = EventLog.StreamHistories()
    try lines { line in
      if let stream = Self.wantedStream(line, in: streams, hashes: hashes) {
        histories.append(line.recordedEvent(), toStream: stream)
      }
      return true
    }
    // Versions are positions from 1: a stream's version is its number of events.
    histories.countVersions()
    return histories
  }
}

/// The lines of a log, checked and decoded, in seq order from seq 1: calls its argument with
/// each until it returns false. A file's reader (`LogReader.forEachEvent`) is one; a log kept
/// in a database is another.
package typealias LineSource = ((EventLine) throws -> Bool) throws -> Void
