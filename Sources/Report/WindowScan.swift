import Engine
import Events
import Projections

/// The report's pass over the log: finds where the report's point ends (for its digest) and
/// counts the window's events by time, domain, type, actor and stream.
struct WindowScan {
  let request: AuditReport.Request
  /// The last event of the report's point, when known before the scan (a seq); otherwise it
  /// is found by the scan (the end, or the last event at or before a time).
  private(set) var pointSequence: Int64
  private let pointInstant: Timestamp?
  private let pointIsEnd: Bool
  /// The end of the point's last line, and its seq.
  private(set) var digestedBytes: Int64 = 0
  private(set) var digestedSequence: Int64 = 0
  /// The time of the point's last event.
  private(set) var pointTime: Timestamp?
  /// Lines read.
  private(set) var linesRead = 0
  /// The last seq read, and where its line ends.
  private(set) var lastSequenceRead: Int64 = 0
  private(set) var readEnd: Int64 = 0
  /// The window's first and last seq.
  private(set) var firstSequence: Int64?
  private(set) var lastSequence: Int64?
  /// Each window event's time (milliseconds) and domain, in log order.
  private var times: [Int64] = []
  private var domains: [UInt8] = []
  private var timestamps = TimestampCache()
  private var types = ByteNameTable()
  /// The last line's type bytes and position: lines of one write often share a type.
  private var lastType: (bytes: [UInt8], position: Int)?
  private var typeCounts: [Int] = []
  private var actors: [String: Int] = [:]
  /// The last line's `meta` bytes and its actor: lines of one write usually share them.
  private var lastMeta: [UInt8] = []
  private var lastActor = AuditReport.noActor
  /// Every stream read (through the window's end), how many of its events are in the window
  /// and the seq of its last one.
  private(set) var streams = ByteNameTable()
  private(set) var streamWindowCounts: [Int] = []
  private(set) var streamLastSequences: [Int64] = []
  /// Each line's stream, by seq (`lineStreams[seq - 1]`).
  private(set) var lineStreams: [Int32] = []
  private var streamDomains: [UInt8] = []
  /// Each line's offset, by seq (`lineOffsets[seq - 1]`), and the end of the last line read.
  private(set) var lineOffsets: [Int64] = []
  private(set) var endOffset: Int64 = 0

  init(request: AuditReport.Request) {
    self.request = request
    switch request.point {
    case .end:
      pointSequence = .max
      pointInstant = nil
      pointIsEnd = true
    case .sequence(let sequence):
      pointSequence = sequence
      pointInstant = nil
      pointIsEnd = false
    case .instant(let instant):
      pointSequence = .max
      pointInstant = instant
      pointIsEnd = false
    }
  }

  /// Takes one line; returns false once neither the digest nor the window needs more.
  mutating func add(_ line: EventLine) -> Bool {
    let sequence = line.sequence
    // Events appended together share their `at`: parsed only when it differs.
    let time = timestamps.timestamp(of: line)
    linesRead += 1
    lastSequenceRead = sequence
    readEnd = line.offset + Int64(line.length) + 1
    if let pointInstant, time > pointInstant, pointSequence == .max {
      // Times never go backwards: the point is the event before this one.
      pointSequence = sequence - 1
    }
    if sequence <= pointSequence {
      digestedBytes = line.offset + Int64(line.length) + 1
      digestedSequence = sequence
      pointTime = time
    }
    let windowEnded: Bool
    switch request.to {
    case .sequence(let last)?: windowEnded = sequence > last
    case .instant(let last)?: windowEnded = time > last
    case nil: windowEnded = sequence > pointSequence
    }
    if windowEnded { return sequence < pointSequence }
    lineOffsets.append(line.offset)
    endOffset = line.offset + Int64(line.length) + 1
    let stream = streams.position(
      of: line.streamBytes, escaped: line.streamSlice.hasEscapes, decoded: { line.stream })
    if stream == streamWindowCounts.count {
      streamWindowCounts.append(0)
      streamLastSequences.append(0)
      let kind = EventVocabulary.entityKind(ofStream: streams[stream])
      let domain = kind.flatMap { AuditReport.domains.firstIndex(of: $0) }
      streamDomains.append(UInt8(domain ?? AuditReport.domains.count))
    }
    lineStreams.append(Int32(truncatingIfNeeded: stream))
    switch request.from {
    case .sequence(let first)?: if sequence < first { return true }
    case .instant(let first)?: if time < first { return true }
    case nil: break
    }
    if firstSequence == nil { firstSequence = sequence }
    lastSequence = sequence
    streamWindowCounts[stream] += 1
    streamLastSequences[stream] = sequence
    times.append(time.millisecondsSince1970)
    domains.append(streamDomains[stream])
    let type: Int
    if let lastType, line.typeBytes.elementsEqual(lastType.bytes) {
      type = lastType.position
    } else {
      type = types.position(
        of: line.typeBytes, escaped: line.typeSlice.hasEscapes, decoded: { line.type })
      lastType = (Array(line.typeBytes), type)
    }
    if type == typeCounts.count { typeCounts.append(0) }
    typeCounts[type] += 1
    actors[actor(of: line), default: 0] += 1
    return true
  }

  /// The line's actor; decoded only when its `meta` differs from the previous line's.
  private mutating func actor(of line: EventLine) -> String {
    guard let range = line.metaRange else { return AuditReport.noActor }
    let meta = UnsafeBufferPointer(start: line.base + range.lowerBound, count: range.count)
    if !meta.elementsEqual(lastMeta) {
      lastMeta = Array(meta)
      lastActor = line.metadata().actor ?? AuditReport.noActor
    }
    return lastActor
  }

  /// The point's last event: as asked, or as found.
  mutating func finish() {
    if pointSequence == .max { pointSequence = digestedSequence }
    if !pointIsEnd, pointInstant == nil, pointSequence > digestedSequence {
      pointSequence = digestedSequence
    }
  }

  /// The window's streams with the number of their events in the window and the seq of the
  /// last one (none without).
  var windowStreams: [(stream: Int, name: String, count: Int, last: Int64)] {
    streamWindowCounts.indices.compactMap { index in
      streamWindowCounts[index] == 0
        ? nil
        : (
          index, streams[index], streamWindowCounts[index],
          streamLastSequences[index]
        )
    }
  }

  /// The seqs of every event of each of `chosen` streams read (through the window's end).
  func sequences(ofStreams chosen: Set<Int>) -> [Int: [Int64]] {
    var sequences: [Int: [Int64]] = [:]
    for (index, stream) in lineStreams.enumerated() where chosen.contains(Int(stream)) {
      sequences[Int(stream), default: []].append(Int64(index) + 1)
    }
    return sequences
  }

  /// The digest through the point, or `nil` when the point is before the first event.
  func digest(from hasher: PrefixHasher, reader: LogReader) throws -> LogDigest? {
    guard digestedSequence > 0 else { return nil }
    guard let sha256 = try hasher.digest(through: digestedBytes) else {
      // The point lies before the checkpoint the hasher resumed from: hash from the start.
      return try LogDigest.compute(reader, through: digestedSequence)
    }
    return LogDigest(sequence: digestedSequence, sha256: sha256, byteCount: digestedBytes)
  }

  /// The counts, with the window's times cut into at most `limits.timelineBuckets` columns of
  /// equal length.
  func timeline(limits: AuditReport.Limits) -> AuditReport.Timeline {
    var timeline = AuditReport.Timeline()
    timeline.eventCount = times.count
    if let firstSequence, let lastSequence {
      timeline.sequences = firstSequence...lastSequence
    }
    if let first = times.min(), let last = times.max() {
      timeline.times =
        Timestamp(
          millisecondsSince1970: first)...Timestamp(
          millisecondsSince1970: last)
      let span = last - first + 1
      let columns = Int64(max(1, min(limits.timelineBuckets, Int(min(span, Int64(Int.max))))))
      let width = (span + columns - 1) / columns
      let domainCount = AuditReport.domains.count + 1
      timeline.buckets = (0..<columns).map { column in
        AuditReport.Timeline.Bucket(
          start: Timestamp(millisecondsSince1970: first + column * width),
          end: Timestamp(millisecondsSince1970: min(last, first + (column + 1) * width - 1)),
          counts: [Int](repeating: 0, count: domainCount))
      }
      for (time, domain) in zip(times, domains) {
        let column = Int(min(columns - 1, (time - first) / width))
        timeline.buckets[column].counts[Int(domain)] += 1
      }
    }
    func ranked(_ counts: [String: Int], limit: Int) -> [AuditReport.Timeline.Count] {
      counts.map { AuditReport.Timeline.Count(name: $0.key, count: $0.value) }
        .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        .prefix(limit).map { $0 }
    }
    let typeCounts = Dictionary(
      zip((0..<types.count).map { types[$0] }, self.typeCounts), uniquingKeysWith: +)
    timeline.types = ranked(typeCounts, limit: .max)
    timeline.actors = ranked(actors, limit: limits.busiest)
    timeline.actorCount = actors.count
    let streamCounts = Dictionary(
      windowStreams.map { ($0.name, $0.count) }, uniquingKeysWith: +)
    timeline.busiest = ranked(streamCounts, limit: limits.busiest)
    timeline.streamCount = streamCounts.count
    return timeline
  }
}

extension AuditReport {
  /// What the report calls the actor of events that name none.
  public static let noActor = "(no actor)"
}
