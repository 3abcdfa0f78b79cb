import Dispatch
import Engine
import Events
import Foundation
import Projections
import Synchronization

extension AuditReport {
  /// Gathers a report: one pass over the log folds the read models at `request.point` and
  /// counts the window for the timeline, while another thread hashes the log's first bytes
  /// for the digest at the point; then the lines of the window's most recently changed
  /// entities are read, one by one, for their histories.
  /// - Parameter replayer: the log, its checkpoints and the rules for points (the CLI refuses
  ///   a seq inside an atomic write).
  /// - Throws: `EngineError` for a missing or damaged log or an event that cannot be decoded;
  ///   `ReportError.emptyWindow` when the window's bounds are the wrong way round.
  public static func build(replayer: Replayer, request: Request) throws -> AuditReport {
    let warnings = Mutex<[String]>([])
    var replayer = replayer
    let passOn = replayer.reader.warn
    replayer.reader.warn = { message in
      warnings.withLock { $0.append(message) }
      passOn(message)
    }
    let reader = replayer.reader
    try request.checkWindow()
    // One pass folds the read models and counts the window (the report reads every line from
    // the first anyway, so a checkpoint would save folding but not reading), while another
    // thread hashes the log's first bytes for the digest.
    let hasher = PrefixHasher(
      path: reader.path, resuming: resumableDigest(replayer.checkpoints, point: request.point))
    hasher.start()
    // The scan runs on the reading thread, beside the folding: a lock it alone takes.
    let scanning = Mutex(WindowScan(request: request))
    var folding = replayer
    folding.checkpoints = nil
    let folded = Result {
      try folding.readModels(at: request.point) { line in
        scanning.withLock { _ = $0.add(line) }
      }
    }
    var scan = scanning.withLock { $0 }
    if case .success = folded, request.to != nil {
      // The window may go on past the point.
      try reader.forEachEvent(
        from: LogReader.Position(offset: scan.readEnd, sequence: scan.lastSequenceRead + 1)
      ) { line in scan.add(line) }
    }
    hasher.stop(at: scan.digestedBytes)
    let point = try folded.get()
    scan.finish()
    if scan.pointSequence != point.lastFoldedSequence {
      // Only a log whose times go backwards (written before the writer kept them in order)
      // folds a set of events at a time that is not a prefix: scan again up to the seq found.
      var retry = request
      retry.point = .sequence(point.lastFoldedSequence)
      scan = WindowScan(request: retry)
      try reader.forEachEvent { line in scan.add(line) }
      scan.finish()
    }
    var integrity = Integrity()
    integrity.linesChecked = scan.linesRead
    integrity.lastSequenceRead = scan.lastSequenceRead
    integrity.byteCount = FileManager.default.fileSize(atPath: reader.path)
    integrity.digest = try scan.digest(from: hasher, reader: reader)
    if integrity.digest != nil || request.signedHead != nil {
      // From `<log>.tree` when there is one, caught up in memory: the report writes its page
      // and nothing beside the log.
      let tree = try LogTree.open(reader, saving: false)
      if let size = integrity.digest?.sequence {
        integrity.treeHead = TreeHead(size: size, root: try tree.root(size: size))
      }
      if let head = request.signedHead {
        integrity.noteCheck = try Self.check(head, signedBy: request.signedBy, against: tree)
      }
    }
    integrity.quarantined = Quarantine.entries(forLog: reader.path)
    integrity.checkpointCount = replayer.checkpoints?.entries().count ?? 0
    integrity.warnings = warnings.withLock { $0 }
    if request.verifies {
      integrity.verification = Verification(
        try LogVerifier(path: reader.path, readSize: reader.readSize).verify())
    }
    let log = reader.openLog
    let changes = try histories(
      from: scan, limits: request.limits,
      events: { try events(reader, scan: scan, sequences: $0) },
      fold: { try LogReader.fold($0, of: $1, log: log, recordingFrom: $2) })
    return AuditReport(
      logPath: reader.path, request: request, point: point, scan: scan, changes: changes,
      integrity: integrity)
  }

  /// The report's parts that come from the pass and the histories, the same for any log.
  init(
    logPath: String, request: Request, point: Replayer.Result, scan: WindowScan,
    changes: (histories: [EntityHistory], leftOut: Int, eventsLeftOut: Int),
    integrity: Integrity
  ) {
    self.init(
      logPath: logPath, request: request, models: point.models,
      pointSequence: point.lastFoldedSequence, pointTime: scan.pointTime,
      timeline: scan.timeline(limits: request.limits), changes: changes.histories,
      changesLeftOut: changes.leftOut, changeEventsLeftOut: changes.eventsLeftOut,
      integrity: integrity)
  }

  /// Whether the log's tree at the head's size has the head's root, in `replay verify
  /// --note`'s words.
  static func check(_ head: TreeHead, signedBy: String, against tree: LogTree) throws
    -> NoteCheck
  {
    try check(head, signedBy: signedBy, logSize: tree.size) { try tree.root(size: $0) }
  }

  /// Whether the tree of a log of `logSize` events, whose root at a size `root` gives, has
  /// the head's root at the head's size.
  static func check(
    _ head: TreeHead, signedBy: String, logSize: Int64, root: (Int64) throws -> [UInt8]
  ) throws -> NoteCheck {
    var check = NoteCheck(head: head, signedBy: signedBy, logSize: logSize, problem: nil)
    if logSize < head.size {
      check.problem =
        "the log has \(logSize) events, fewer than the \(head.size) the note signs: events "
        + "after seq \(logSize) were cut off (or the note is of another log)"
    } else {
      let root = try root(head.size)
      if root != head.root {
        check.problem =
          "the log's first \(head.size) events have root \(SHA256.hex(root)), the note signs "
          + "\(SHA256.hex(head.root)): a line among them was changed, removed, reordered or "
          + "replaced since the note was signed (or the note is of another log)"
      }
    }
    return check
  }

  /// Where the digest's hashing can start: the end of the newest checkpoint at or before the
  /// point that still matches the log, with the SHA-256 state it saved there (checkpoints keep
  /// it for this). `nil` (hash from byte 0) when there is none.
  static func resumableDigest(
    _ checkpoints: CheckpointStore?, point: ReplayPoint
  ) -> (offset: Int64, hasher: SHA256)? {
    guard let checkpoints else { return nil }
    for entry in checkpoints.entries().reversed() {
      if case .sequence(let last) = point, entry.sequence > last { continue }
      guard let anchor = try? checkpoints.anchor(of: entry) else { continue }
      if case .instant(let instant) = point, anchor.latestTimestamp > instant { continue }
      guard let hasher = SHA256(midstate: anchor.midstate) else { continue }
      return (anchor.offset, hasher)
    }
    return nil
  }

  /// The histories of the window's most recently changed entities, cut to the window and to
  /// each entity's latest events.
  /// - Parameters:
  ///   - events: the events of each chosen stream (by its index in the scan), given the seqs
  ///     the scan saw of it (through the window's end).
  ///   - fold: `LogReader.fold` of a stream's events, recording from the given one.
  static func histories(
    from scan: WindowScan, limits: Limits,
    events: ([Int: [Int64]]) throws -> [Int: [RecordedEvent]],
    fold: ([RecordedEvent], EntityStream, Int) throws -> EntityHistory
  ) throws -> (histories: [EntityHistory], leftOut: Int, eventsLeftOut: Int) {
    guard let first = scan.firstSequence, let last = scan.lastSequence else { return ([], 0, 0) }
    let window = first...last
    let entities = scan.windowStreams.compactMap { stream in
      EntityStream(stream.name).map { (stream: $0, index: stream.stream, last: stream.last) }
    }
    .sorted { $0.last > $1.last }
    let chosen = entities.prefix(limits.changedEntities)
    let streamEvents = try events(scan.sequences(ofStreams: Set(chosen.map(\.index))))
    var histories: [EntityHistory] = []
    var eventsLeftOut = 0
    for entity in chosen {
      let events = streamEvents[entity.index] ?? []
      // Only the latest events in the window are shown: entries are built for those alone.
      let windowCount = events.reduce(0) { $0 + (window.contains($1.sequence) ? 1 : 0) }
      let lastInWindow = events.lastIndex { window.contains($0.sequence) } ?? events.count - 1
      let first = max(0, lastInWindow + 1 - min(windowCount, limits.eventsPerEntity))
      var history = try fold(events, entity.stream, first)
      history.events = history.events.filter { window.contains($0.sequence) }
      eventsLeftOut += max(0, windowCount - history.events.count)
      histories.append(history)
    }
    return (histories, entities.count - chosen.count, eventsLeftOut)
  }

  /// The events at `sequences` of the log file, read one by one where the scan saw their
  /// lines.
  private static func events(
    _ reader: LogReader, scan: WindowScan, sequences: [Int: [Int64]]
  ) throws -> [Int: [RecordedEvent]] {
    let file = try reader.openLog.openForReading()
    defer { file.close() }
    return try sequences.mapValues { sequences in
      var events: [RecordedEvent] = []
      for sequence in sequences {
        let index = Int(sequence - 1)
        let start = scan.lineOffsets[index]
        let end = index + 1 < scan.lineOffsets.count ? scan.lineOffsets[index + 1] : scan.endOffset
        _ = try reader.read(
          file, from: LogReader.Position(offset: start, sequence: sequence), to: end,
          through: sequence
        ) { line in
          events.append(line.recordedEvent())
          return false
        }
      }
      return events
    }
  }
}

extension AuditReport.Request {
  /// - Throws: `ReportError.emptyWindow` when the window's bounds are the wrong way round.
  func checkWindow() throws {
    if case .sequence(let first)? = from, case .sequence(let last)? = to, first > last {
      throw ReportError.emptyWindow("--from seq \(first) is after --to seq \(last)")
    }
    if case .instant(let first)? = from, case .instant(let last)? = to, first > last {
      throw ReportError.emptyWindow("--from \(first) is after --to \(last)")
    }
  }
}

extension FileManager {
  /// The size of the file at `path`, 0 when it cannot be read.
  fileprivate func fileSize(atPath path: String) -> Int64 {
    guard let attributes = try? attributesOfItem(atPath: path),
      let size = attributes[.size] as? NSNumber
    else { return 0 }
    return size.int64Value
  }
}

/// Errors of `replay report` that are the request's, not the log's.
package enum ReportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The window's bounds are the wrong way round.
  case emptyWindow(String)

  public var description: String {
    switch self {
    case .emptyWindow(let detail):
      "the report's window is empty: \(detail); give --from before --to"
    }
  }
}
