import Events

/// What a writer must know about the committed log to append to it: the next sequence number,
/// every stream's version (for expected-version checks) and where every event id's line starts
/// (for idempotency). Built by reading the log once; kept current as the writer appends and
/// caught up when another process has appended.
struct LogIndex {
  /// Offset just past the last committed line.
  var committedEnd: Int64 = 0
  /// The last event's sequence number (0 when the log is empty).
  var lastSequence: Int64 = 0
  /// Each stream's line offsets, in version order: the stream's version is their count.
  var streams = StreamTable()
  /// Each event id's line offset.
  var eventOffsets: [EventID: Int64] = [:]

  /// The stream's current version; 0 when it has no events.
  func version(of stream: String) -> Int64 {
    streams.version(of: stream)
  }

  /// Adds the committed lines of `reader`'s file from `committedEnd` to `end`, checking what the
  /// index relies on: versions consecutive per stream, ids unique.
  mutating func catchUp(
    reading file: FileDescriptor, with reader: LogReader, to end: Int64
  ) throws {
    guard end > committedEnd else { return }
    // Lines are rarely shorter than 150 bytes: room for every id at once, with no rehashing.
    eventOffsets.reserveCapacity(eventOffsets.count + Int((end - committedEnd) / 150))
    let path = reader.path
    let summary = try reader.read(
      file, from: LogReader.Position(offset: committedEnd, sequence: lastSequence + 1), to: end
    ) { line in
      try add(line, path: path)
      return true
    }
    committedEnd = summary.endOffset
    lastSequence = summary.lastSequence
  }

  /// Records one line.
  mutating func add(_ line: EventLine, path: String) throws {
    // Escaped names (rare) are decoded; others are read straight from the line.
    let previous: Int64
    if line.streamSlice.hasEscapes {
      var stream = line.stream
      previous = stream.withUTF8 { bytes in
        streams.append(line.offset, toStreamNamed: bytes, name: { line.stream })
      }
    } else {
      previous = streams.append(line.offset, toStreamNamed: line.streamBytes, name: { line.stream })
    }
    guard line.version == previous + 1 else {
      throw EngineError.corruptLine(
        path: path, line: line.lineNumber, offset: line.offset,
        problem:
          "stream '\(line.stream)' jumps from version \(previous) to \(line.version) (versions run from 1 without gaps)"
      )
    }
    if let earlier = eventOffsets.updateValue(line.offset, forKey: line.id) {
      throw EngineError.corruptLine(
        path: path, line: line.lineNumber, offset: line.offset,
        problem: "event id \(line.id) is also on the line at byte \(earlier) (ids are unique)")
    }
  }
}
