import Events

/// One event of the log, lent to the closure that reads it (`LogReader.forEachEvent`,
/// `LogFollower.follow`): decoded in place from the line's bytes, which are valid only while
/// that closure runs.
///
/// It is noncopyable and handed out `borrowing`, so it cannot be stored or leave the closure:
/// the compiler refuses `saved = line`. What it returns is a copy that can (the payload's bytes,
/// the metadata, ``recordedEvent()``).
///
/// ```swift
/// try LogReader(path: "events.jsonl").forEachEvent { line in
///   if line.hasType("ContactFavorited") { print(line.sequence, line.stream) }
///   return true
/// }
/// ```
public struct EventLineView: ~Copyable {
  /// The decoded line, whose pointer must not outlive the closure that lends this view.
  package let line: EventLine

  package init(_ line: EventLine) {
    self.line = line
  }

  /// 1-based line number in the file.
  public var lineNumber: Int { line.lineNumber }
  /// Byte offset of the line's start in the file.
  public var offset: Int64 { line.offset }
  /// The event's seq.
  public var sequence: Int64 { line.sequence }
  /// The event's version in its stream.
  public var version: Int64 { line.version }
  /// The payload's schema version.
  public var schemaVersion: Int { line.schemaVersion }
  /// The seqs of the batch the event was appended in, when it was one of several.
  public var batch: ClosedRange<Int64>? { line.batch }
  /// The event's id.
  public var id: EventID { line.id }
  /// When the event was appended.
  public var timestamp: Timestamp { line.timestamp }
  /// The stream name.
  public var stream: String { line.stream }
  /// The event type's name.
  public var type: String { line.type }

  /// Whether the type is `name`, compared as bytes (no `String` is made).
  public func hasType(_ name: StaticString) -> Bool { line.hasType(name) }

  /// A copy of the payload object's bytes (`data`), compact JSON.
  public var data: [UInt8] { Array(line.data) }

  /// A copy of the whole line's bytes, without the `\n`.
  public var bytes: [UInt8] { Array(line.bytes) }

  /// The audit fields (`meta`); empty when the line has none.
  public func metadata() -> EventMetadata { line.metadata() }

  /// A self-contained copy of the event, which may be kept.
  public func recordedEvent() -> RecordedEvent { line.recordedEvent() }
}

extension LogReader {
  /// Calls `body` with each committed event from `position` on; `body` returns false to stop.
  /// - Parameters:
  ///   - position: where to start (`.start` for the first line).
  ///   - last: when given, the seq of the last event to read.
  ///   - body: gets each event, lent for the call only; returns false to stop.
  /// - Returns: where the read ended.
  /// - Throws: `EngineError.fileNotFound` when there is no log, `.corruptLine` at the first bad
  ///   line, `.io` when reading fails.
  @_disfavoredOverload
  @discardableResult
  public func forEachEvent(
    from position: Position = .start, through last: Int64? = nil,
    _ body: (borrowing EventLineView) throws -> Bool
  ) throws -> Summary {
    try forEachEvent(from: position, through: last) { (line: EventLine) in
      try body(EventLineView(line))
    }
  }

  /// Calls `body` with each committed event that passes `filter`, in seq order, from seq
  /// `first` through `last`; `body` returns false to stop. With streams or categories in the
  /// filter, a saved index beside the log that checks is used to read only their lines.
  /// - Parameters:
  ///   - filter: which events `body` gets.
  ///   - first: the seq to start from.
  ///   - last: when given, the seq of the last event to read.
  ///   - body: gets each event, lent for the call only; returns false to stop.
  /// - Throws: `EngineError.fileNotFound` when there is no log, `.corruptLine` for a bad line.
  @_disfavoredOverload
  public func forEachEvent(
    matching filter: EventFilter, from first: Int64 = 1, through last: Int64? = nil,
    _ body: (borrowing EventLineView) throws -> Bool
  ) throws {
    try forEachEvent(matching: filter, from: first, through: last) { (line: EventLine) in
      try body(EventLineView(line))
    }
  }
}

extension EventFilter {
  /// Whether the event of `line` passes.
  public func matches(_ line: borrowing EventLineView) -> Bool {
    matches(line.line)
  }
}

extension LogFollower {
  /// Calls `body` with every committed event that passes the filter, from `start` on, then with
  /// each new one as it is committed, until `body` returns false, `stop()` is called, or an
  /// error. `caughtUp` is called each time every committed event has been delivered, before
  /// waiting for more (return false to stop). Blocks the calling thread.
  /// - Parameters:
  ///   - last: when given, following ends once the event with this seq has been read
  ///     (delivered or filtered out), without waiting for a later one.
  ///   - caughtUp: called each time every committed event has been delivered.
  ///   - body: gets each event, lent for the call only; returns false to stop.
  /// - Throws: `EngineError` (a missing log, a bad line), `FollowError`.
  @_disfavoredOverload
  public func follow(
    through last: Int64? = nil, caughtUp: () throws -> Bool = { true },
    _ body: (borrowing EventLineView) throws -> Bool
  ) throws {
    try follow(through: last, caughtUp: caughtUp) { (line: EventLine) in
      try body(EventLineView(line))
    }
  }
}

extension Replayer {
  /// Folds the log into read models as they were at `point`.
  /// - Parameters:
  ///   - point: where to stop.
  ///   - names: the models wanted (all when `nil`); other domains' events are not even decoded.
  ///   - saveEvery: save a checkpoint at every multiple of this seq that has none (only when
  ///     folding every model up to a seq or the end: a filtered state is no checkpoint).
  ///   - saveLast: also save one at the last event folded, when it has none (same condition).
  /// - Returns: the models, and how the replay went.
  /// - Throws: `EngineError` for a bad or undecodable line or a missing log.
  @_disfavoredOverload
  public func readModels(
    at point: ReplayPoint, models names: Set<String>? = nil, saveEvery: Int64? = nil,
    saveLast: Bool = false
  ) throws -> Result {
    try readModels(
      at: point, models: names, saveEvery: saveEvery, saveLast: saveLast, observe: nil)
  }
}
