import Events

/// Counts over a whole log, for `replay stats`.
package struct LogStatistics: Sendable, Equatable {
  /// Committed events.
  public var eventCount: Int = 0
  /// Distinct streams.
  public var streamCount: Int = 0
  /// Events per type name.
  public var eventsByType: [String: Int] = [:]
  /// Events per stream category (the part of the stream name before its first `-`).
  public var eventsByCategory: [String: Int] = [:]
  /// Streams per category.
  public var streamsByCategory: [String: Int] = [:]
  /// The earliest and latest `at` in the log (not necessarily the first and last lines').
  public var firstTimestamp: Timestamp?
  public var lastTimestamp: Timestamp?
  /// The last event's sequence number.
  public var lastSequence: Int64 = 0
  /// The file's size in bytes.
  public var byteCount: Int64 = 0

  public init() {}

  /// Reads the log at `reader.path` once and counts. Stream and type names are keyed by their
  /// bytes: a `String` is made once per distinct name, not once per line.
  public init(reading reader: LogReader) throws {
    var summary: LogReader.Summary?
    try self.init(lines: { summary = try reader.forEachEvent($0) })
    lastSequence = summary?.lastSequence ?? 0
    byteCount =
      FileDescriptor.status(atPath: reader.path)?.size ?? summary?.committedEnd ?? byteCount
  }

  /// Counts the lines `lines` hands out (a log kept somewhere other than a file: then
  /// `byteCount` is the bytes of its lines with their `\n`, the size of a file of them).
  /// - Throws: what `lines` throws.
  package init(lines: LineSource) throws {
    var streams = ByteNameTable()
    var streamCategories: [String] = []
    var types = ByteNameTable()
    var typeCounts: [Int] = []
    var statistics = LogStatistics()
    // Events appended together share their `at`: parse it only when it differs.
    var timestamps = TimestampCache()
    try lines { line in
      statistics.eventCount += 1
      statistics.lastSequence = line.sequence
      statistics.byteCount += Int64(line.length) + 1
      let type = types.position(
        of: line.typeBytes, escaped: line.typeSlice.hasEscapes, decoded: { line.type })
      if type == typeCounts.count { typeCounts.append(0) }
      typeCounts[type] += 1
      let stream = streams.position(
        of: line.streamBytes, escaped: line.streamSlice.hasEscapes, decoded: { line.stream })
      if stream == streamCategories.count {
        let category = String(EnvelopeRules.category(ofStream: streams.names[stream].rawValue))
        streamCategories.append(category)
        statistics.streamsByCategory[category, default: 0] += 1
      }
      statistics.eventsByCategory[streamCategories[stream], default: 0] += 1
      let at = timestamps.timestamp(of: line)
      statistics.firstTimestamp = min(statistics.firstTimestamp ?? at, at)
      statistics.lastTimestamp = max(statistics.lastTimestamp ?? at, at)
      return true
    }
    for (name, count) in zip(types.names, typeCounts) {
      statistics.eventsByType[name.rawValue, default: 0] += count
    }
    statistics.streamCount = streams.count
    self = statistics
  }
}
