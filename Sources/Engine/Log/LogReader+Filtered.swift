import Events

extension LogReader {
  /// Calls `body` with each committed event that passes `filter`, in seq order, from seq
  /// `first` through `last`; `body` returns false to stop.
  ///
  /// With streams or categories in the filter and a saved index beside the log that checks
  /// (`<log>.index`), only their lines are read, where the index puts them, and then the lines
  /// appended after the index; otherwise, or when they are more than an eighth of the log, the
  /// log is scanned.
  /// - Throws: `EngineError.fileNotFound` when there is no log, `.corruptLine` for a bad line.
  package func forEachEvent(
    matching filter: EventFilter, from first: Int64 = 1, through last: Int64? = nil,
    _ body: (EventLine) throws -> Bool
  ) throws {
    if !filter.streams.isEmpty || !filter.categories.isEmpty {
      let file = try openLog.openForReading()
      defer { file.close() }
      let tail = try LogTail.examine(file, path: path)
      if case .success(let index) = LogIndexFile.open(
        forLog: path, log: file, committedEnd: tail.committedEnd)
      {
        do {
          if try forEachEvent(
            matching: filter, from: first, through: last, index: index, file: file,
            end: tail.committedEnd, body)
          {
            return
          }
        } catch let damage as LogIndexFile.Damaged {
          warn(
            "ignoring the index '\(LogIndexFile.path(forLog: path))' (\(damage.problem)): reading the log instead"
          )
        }
      }
    }
    var start = LogReader.Position.start
    if first > 1, let position = try position(afterSequence: first - 1) { start = position }
    try forEachEvent(from: start) { line in
      if line.sequence < first { return true }
      if let last, line.sequence > last { return false }
      guard filter.matches(line) else { return true }
      return try body(line)
    }
  }

  /// The indexed way; false when it does not pay (too many lines), and the caller scans.
  /// With `end` nil, only the lines the index covers are read (the caller reads the rest); a
  /// `body` that returns false stops it as it stops a scan.
  func forEachEvent(
    matching filter: EventFilter, from first: Int64, through last: Int64?,
    index: LogIndexFile, file: FileDescriptor, end: Int64?,
    _ body: (EventLine) throws -> Bool
  ) throws -> Bool {
    var offsets: [Int64] = []
    if !filter.streams.isEmpty {
      for stream in filter.streams {
        let name = Array(stream.utf8)
        if let saved = try name.withUnsafeBytes({ try index.stream(named: $0) }) {
          offsets += try index.lineOffsets(of: saved)
        }
      }
    } else {
      for category in filter.categories {
        let prefix = Array(category.utf8) + [0x2D]
        var position = try prefix.withUnsafeBytes { try index.search($0).position }
        while position < index.streamCount {
          let stream = try index.stream(at: position)
          guard stream.name.starts(with: prefix) else { break }
          offsets += try index.lineOffsets(of: stream)
          position += 1
          if Double(offsets.count) > indexedReadShare * Double(index.eventCount) { return false }
        }
      }
    }
    if Double(offsets.count) > indexedReadShare * Double(index.eventCount) { return false }
    offsets.sort()
    // What the offsets were chosen by: every line read there must pass it.
    let chosenBy =
      filter.streams.isEmpty
      ? EventFilter(categories: filter.categories) : EventFilter(streams: filter.streams)
    // Each line once (a stream asked for twice, or under its name and its category).
    var unique: [Int64] = []
    unique.reserveCapacity(offsets.count)
    for offset in offsets where offset != unique.last { unique.append(offset) }
    let readAll = try ScatteredLines.forEach(at: unique, in: file, path: path) { offset, line in
      guard chosenBy.matches(line) else {
        throw LogIndexFile.Damaged(
          problem:
            "it lists the line at byte \(offset), of '\(line.stream)', under another stream")
      }
      if line.sequence < first { return true }
      if let last, line.sequence > last { return false }
      guard filter.matches(line) else { return true }
      return try body(line)
    }
    if !readAll { return true }
    // The lines appended since the index was saved.
    guard let end else { return true }
    if let last, index.lastSequence >= last { return true }
    try read(
      file, from: Position(offset: index.coveredEnd, sequence: index.lastSequence + 1), to: end
    ) { line in
      if line.sequence < first { return true }
      if let last, line.sequence > last { return false }
      guard filter.matches(line) else { return true }
      return try body(line)
    }
    return true
  }
}
