import Events

/// What a writer must know about the committed log to append to it: the next sequence number,
/// every stream's version (for expected-version checks) and where every event id's line starts
/// (for idempotency).
///
/// Two parts: a saved index (`base`, a `LogIndexFile` read in place) covering the log up to its
/// `coveredEnd`, and what was read or appended since, in memory. Without a saved index the
/// memory part holds the whole log. Kept current as the writer appends and caught up when
/// another process has appended.
struct LogIndex {
  /// Offset just past the last committed line.
  var committedEnd: Int64 = 0
  /// The last event's sequence number (0 when the log is empty).
  var lastSequence: Int64 = 0
  /// Where the last committed line starts.
  var lastLineStart: Int64 = 0
  /// The saved index, when one was found and checked against the log.
  var base: LogIndexFile?
  /// Each stream's line offsets past the saved index, in version order.
  var streams = StreamTable()
  /// Each event id's line offset, for the lines past the saved index.
  var eventOffsets = EventIDTable<Int64>()

  /// An index that starts from a saved one.
  init(base: LogIndexFile? = nil) {
    self.base = base
    if let base {
      committedEnd = base.coveredEnd
      lastSequence = base.lastSequence
      lastLineStart = base.lastLineStart
    }
  }

  /// How many lines the memory part holds (what a new save would add to the saved index).
  var linesSinceBase: Int { eventOffsets.count }
  /// How many of them were read from the file (appended by others, or before this writer
  /// opened the log) rather than appended by this writer.
  var linesReadSinceBase = 0

  /// The stream's current version; 0 when it has no events.
  func version(of stream: String) throws -> Int64 {
    if let entry = streams.entry(of: stream) {
      try checkBase(of: entry)
      return entry.baseVersion + Int64(entry.offsets.count)
    }
    return try baseVersion(of: stream)
  }

  /// Checks what the memory part assumed of a stream it met past the saved index: that the
  /// saved index holds exactly the versions before its first line there. (Lines read past the
  /// saved index are not looked up in it one by one, which would cost a binary search per line
  /// on every open; a stream is checked when it is used.)
  private func checkBase(of entry: StreamTable.Entry) throws {
    guard base != nil else { return }
    let saved = try baseVersion(of: entry.name)
    guard saved == entry.baseVersion else {
      throw LogIndexFile.Damaged(
        problem:
          "it holds \(saved) events of '\(entry.name)', but the log's next line of it is version \(entry.baseVersion + 1)"
      )
    }
  }

  /// The stream's version in the saved index.
  func baseVersion(of stream: String) throws -> Int64 {
    guard let base else { return 0 }
    var name = stream
    return try name.withUTF8 { bytes in
      Int64(try base.stream(named: UnsafeRawBufferPointer(bytes))?.count ?? 0)
    }
  }

  /// The line offsets of a stream's events, in version order.
  func lineOffsets(ofStream stream: String) throws -> [Int64] {
    var offsets: [Int64] = []
    if let base {
      var name = stream
      offsets = try name.withUTF8 { bytes in
        guard let saved = try base.stream(named: UnsafeRawBufferPointer(bytes)) else {
          return []
        }
        return try base.lineOffsets(of: saved)
      }
    }
    if let entry = streams.entry(of: stream) {
      try checkBase(of: entry)
      offsets += entry.offsets
    }
    return offsets
  }

  /// The line offset of the event with this id, if it is in the log.
  func lineOffset(of id: EventID) throws -> Int64? {
    if let offset = eventOffsets[id] { return offset }
    return try base?.lineOffset(of: id)
  }

  /// Every stream's name (in no particular order) that starts with `prefix`.
  func streamNames(withPrefix prefix: String) throws -> [String] {
    // Keyed by bytes: a `Set<String>` would merge "é" with its decomposed twin.
    var names: [[UInt8]: String] = [:]
    for entry in streams.entries where entry.name.utf8.starts(with: prefix.utf8) {
      names[Array(entry.name.utf8)] = entry.name
    }
    if let base {
      // Names with the prefix sit together in byte order, from where the prefix would go.
      let prefixBytes = Array(prefix.utf8)
      var position = try prefixBytes.withUnsafeBytes { bytes in
        try base.search(bytes).position
      }
      while position < base.streamCount {
        let stream = try base.stream(at: position)
        guard stream.name.starts(with: prefixBytes) else { break }
        names[Array(stream.name)] = String(decoding: stream.name, as: UTF8.self)
        position += 1
      }
    }
    return Array(names.values)
  }

  /// The number of distinct streams.
  func streamCount() throws -> Int {
    let added = streams.entries.count { $0.baseVersion == 0 }
    return (base?.streamCount ?? 0) + added
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
    var lastLineStart = self.lastLineStart
    let summary = try reader.read(
      file, from: LogReader.Position(offset: committedEnd, sequence: lastSequence + 1), to: end
    ) { line in
      try add(line, path: path)
      lastLineStart = line.offset
      return true
    }
    linesReadSinceBase += Int(summary.lastSequence - lastSequence)
    committedEnd = summary.endOffset
    lastSequence = summary.lastSequence
    self.lastLineStart = lastLineStart
  }

  /// Records one line, checking that versions run on within the memory part and that ids are
  /// unique there. A stream's first line past the saved index is taken at its word (its
  /// version minus one is what the saved index must hold, checked when the stream is used:
  /// `checkBase`); ids are not looked up in the saved index (a writer checks the ids it
  /// appends, and `replay verify` checks the whole log).
  mutating func add(_ line: EventLine, path: String) throws {
    let assumed = line.version - 1
    // Escaped names (rare) are decoded; others are read straight from the line.
    let previous: Int64
    if line.streamSlice.hasEscapes {
      var stream = line.stream
      previous = stream.withUTF8 { bytes in
        streams.append(
          line.offset, toStreamNamed: bytes, name: { line.stream }, baseVersion: { _ in assumed })
      }
    } else {
      previous = streams.append(
        line.offset, toStreamNamed: line.streamBytes, name: { line.stream },
        baseVersion: { _ in assumed })
    }
    guard LogRules.versionFollows(previous, line.version) else {
      throw EngineError.corruptLine(
        path: path, line: line.lineNumber, offset: line.offset,
        problem: LogRules.Violation.version(
          stream: line.stream, previous: previous, found: line.version
        ).description)
    }
    if let earlier = eventOffsets.updateValue(line.offset, forKey: line.id) {
      throw EngineError.corruptLine(
        path: path, line: line.lineNumber, offset: line.offset,
        problem: LogRules.Violation.duplicateID(line.id, earlier: .offset(earlier)).description)
    }
  }

  /// Records a line this writer appended at `version` of `stream` (checked by the write's plan).
  mutating func addAppended(_ offset: Int64, stream: String, version: Int64, id: EventID) {
    var name = stream
    name.withUTF8 { bytes in
      _ = streams.append(
        offset, toStreamNamed: bytes, name: { stream }, baseVersion: { _ in version - 1 })
    }
    eventOffsets.updateValue(offset, forKey: id)
    lastLineStart = offset
  }
}
