import Events
import Projections

/// Where in the log a replay stops.
public enum ReplayPoint: Sendable, Equatable, CustomStringConvertible {
  /// Every committed event.
  case end
  /// Events 1 through `seq`.
  case sequence(Int64)
  /// Every event whose `at` is at or before the instant, wherever it sits in the log.
  case instant(Timestamp)

  public var description: String {
    switch self {
    case .end: "the end of the log"
    case .sequence(let sequence): "seq \(sequence)"
    case .instant(let instant): "\(instant)"
    }
  }
}

/// Rebuilds read models from the log: from the newest usable checkpoint at or before the point
/// asked for, then event by event.
public struct Replayer: Sendable {
  /// The log.
  public var reader: LogReader
  /// The checkpoint sidecar, or `nil` to replay from the first event.
  public var checkpoints: CheckpointStore?
  /// Where checkpoint decisions are explained (`--verbose`).
  public var explain: @Sendable (String) -> Void

  public init(
    reader: LogReader, checkpoints: CheckpointStore? = nil,
    explain: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.reader = reader
    self.checkpoints = checkpoints
    self.explain = explain
  }

  /// What a replay produced.
  public struct Result: Sendable {
    /// The read models at the point.
    public var models: ReadModels
    /// The last event read (0 for none): with `.instant`, events after it may have been read
    /// and left out.
    public var lastSequence: Int64
    /// The last event folded in (0 for none).
    public var lastFoldedSequence: Int64
    /// The checkpoint the replay started from, if any.
    public var startedFrom: Int64?
    /// Events read from the log (after the checkpoint).
    public var eventsRead: Int
    /// Checkpoints saved along the way.
    public var checkpointsSaved: [Int64]
  }

  /// The stream categories each model's events live in.
  static let categories: [String: [UInt8]] = [
    ContactList.name: Array("contact-".utf8), ZipCodeList.name: Array("state-".utf8),
    ObservationList.name: Array("observation-".utf8), AnimalCatalog.name: Array("animal-".utf8),
    LocationList.name: Array("location-".utf8),
  ]

  /// Folds the log into read models as they were at `point`.
  /// - Parameters:
  ///   - point: where to stop.
  ///   - names: the models wanted (all when `nil`); other domains' events are not even decoded.
  ///   - saveEvery: save a checkpoint at every multiple of this seq that has none (only when
  ///     folding every model up to a seq or the end: a filtered state is no checkpoint).
  /// - Throws: `EngineError` for a bad or undecodable line or a missing log.
  public func readModels(
    at point: ReplayPoint, models names: Set<String>? = nil, saveEvery: Int64? = nil
  ) throws -> Result {
    if point == .sequence(0) {
      // Before the first event: every model is empty (the log must still exist).
      _ = try reader.forEachEvent { _ in false }
      return Result(
        models: ReadModels(), lastSequence: 0, lastFoldedSequence: 0, startedFrom: nil,
        eventsRead: 0,
        checkpointsSaved: [])
    }
    let wanted = names.flatMap { $0.count < ReadModels.modelNames.count ? $0 : nil }
    var models = ReadModels()
    var position = LogReader.Position.start
    var startedFrom: Int64?
    var hasher = SHA256()
    var latest = Timestamp.earliest
    // Lines sampled to tie a new checkpoint to the log; those of the one we start from carry on.
    var samples: [CheckpointStore.Anchor.Sample] = []
    if let loaded = startingCheckpoint(for: point, models: wanted) {
      models = loaded.models
      position = LogReader.Position(offset: loaded.anchor.offset, sequence: loaded.sequence + 1)
      startedFrom = loaded.sequence
      latest = loaded.anchor.latestTimestamp
      samples = loaded.anchor.samples
      if let resumed = SHA256(midstate: loaded.anchor.midstate) { hasher = resumed }
    }
    // Checkpoints can be saved only by a full replay to a seq, and need the prefix's digest.
    let saving: Int64? = (wanted == nil && !point.isInstant) ? saveEvery : nil
    var existing = Set(checkpoints?.entries().map(\.sequence) ?? [])
    let last: Int64? = if case .sequence(let target) = point { target } else { nil }
    // Hashing the lines is the costliest part of a short replay from a checkpoint: done only
    // when the replay may pass a seq that is due a checkpoint and has none.
    let needsDigest =
      checkpoints != nil
      && saving.map {
        Self.mayPassUnsaved(every: $0, from: position.sequence, through: last, saved: existing)
      } == true
    let wantedCategories = wanted.map { $0.compactMap { Self.categories[$0] } }
    var eventsRead = 0
    var timestamps = TimestampCache()
    // Ids and codes recur all through a log: make each short string once.
    let strings = StringCache()
    var saved: [Int64] = []
    var lastSequence = position.sequence - 1
    var lastFolded = lastSequence
    let newline: [UInt8] = [0x0A]
    try reader.forEachEvent(from: position, through: last) { line in
      if case .sequence(let target) = point, line.sequence > target { return false }
      eventsRead += 1
      if needsDigest {
        hasher.update(line.bytes)
        newline.withUnsafeBytes { hasher.update($0) }
        if line.sequence & (line.sequence - 1) == 0 { samples.append(Self.sample(of: line)) }
      }
      // Events appended together share their `at`: parse it only when it differs.
      let timestamp = timestamps.timestamp(of: line)
      if timestamp > latest { latest = timestamp }
      lastSequence = line.sequence
      let include: Bool
      switch point {
      case .instant(let instant): include = timestamp <= instant
      default: include = true
      }
      if include { lastFolded = line.sequence }
      if include, Self.belongs(line, to: wantedCategories) {
        var cursor = line.dataCursor
        // Favourite toggles, over half of a typical log, go straight to the contacts.
        if let toggle = EventVocabulary.favoriteToggle(
          type: line.typeBytes, schemaVersion: line.schemaVersion, data: &cursor)
        {
          models.contacts.setFavorite(toggle.isFavorite, contactID: toggle.contactID)
        } else {
          cursor.strings = Unmanaged.passUnretained(strings)
          let event: DomainEvent?
          do throws(EventsError) {
            event = try EventVocabulary.decode(
              type: line.typeBytes, schemaVersion: line.schemaVersion, data: &cursor,
              strict: false)
          } catch {
            throw Self.undecodable(error, line: line, path: reader.path)
          }
          // Consumed, not copied: the model takes the payload and the optional is never
          // destroyed as a whole (which costs a trip through the runtime's generic value
          // witnesses).
          if case .some(let decoded) = consume event {
            models.apply(
              decoded,
              at: EventContext(
                sequence: line.sequence, streamVersion: line.version, timestamp: timestamp))
          }
        }
      }
      if needsDigest, let saving, let checkpoints, line.sequence % saving == 0,
        !existing.contains(line.sequence)
      {
        let anchor = CheckpointStore.Anchor(
          offset: line.offset + Int64(line.length) + 1, sha256: hasher.finalize(),
          midstate: hasher.midstate, latestTimestamp: latest,
          samples: samples + [Self.sample(of: line)])
        do {
          try checkpoints.save(models, sequence: line.sequence, anchor: anchor)
          existing.insert(line.sequence)
          saved.append(line.sequence)
        } catch {
          // A checkpoint is a cache: failing to write one costs speed, never correctness.
          explain("could not save a checkpoint at seq \(line.sequence): \(error)")
        }
      }
      return true
    }
    withExtendedLifetime(strings) {}
    if case .sequence(let target) = point, lastSequence < target {
      throw EngineError.invalidEvent(
        location: reader.path,
        problem: "the log has \(lastSequence) events; there is no seq \(target)")
    }
    return Result(
      models: models, lastSequence: lastSequence, lastFoldedSequence: lastFolded,
      startedFrom: startedFrom, eventsRead: eventsRead, checkpointsSaved: saved)
  }

  /// Whether a replay of seqs `first...last` (to the end of the log when `last` is `nil`) may
  /// pass a multiple of `interval` that is not among `saved`.
  static func mayPassUnsaved(
    every interval: Int64, from first: Int64, through last: Int64?, saved: Set<Int64>
  ) -> Bool {
    guard interval > 0 else { return false }
    var due = (first + interval - 1) / interval * interval
    guard let last else { return true }
    while due <= last {
      if !saved.contains(due) { return true }
      due += interval
    }
    return false
  }

  /// The newest checkpoint usable for `point`, loaded and checked; unusable ones are explained.
  func startingCheckpoint(for point: ReplayPoint, models: Set<String>?) -> CheckpointStore.Loaded? {
    guard let checkpoints else { return nil }
    for entry in checkpoints.entries().reversed() {
      if case .sequence(let target) = point, entry.sequence > target { continue }
      do {
        let loaded = try checkpoints.load(entry, models: models)
        if case .instant(let instant) = point, loaded.anchor.latestTimestamp > instant {
          // Some event it covers is later than the instant: it holds too much.
          continue
        }
        explain("starting from the checkpoint at seq \(loaded.sequence)")
        return loaded
      } catch {
        explain(error.description)
      }
    }
    return nil
  }

  /// Whether a line's stream is in one of the wanted categories (all when `nil`).
  @inline(__always)
  static func belongs(_ line: EventLine, to categories: [[UInt8]]?) -> Bool {
    guard let categories else { return true }
    let stream = line.streamBytes
    return categories.contains { prefix in
      stream.count > prefix.count && stream.prefix(prefix.count).elementsEqual(prefix)
    }
  }

  static func sample(of line: EventLine) -> CheckpointStore.Anchor.Sample {
    let checksum = String(
      decoding: UnsafeBufferPointer(start: line.base + line.length - 10, count: 8), as: UTF8.self)
    return CheckpointStore.Anchor.Sample(
      offset: line.offset, length: line.length, checksum: checksum)
  }

  static func undecodable(_ error: EventsError, line: EventLine, path: String) -> EngineError {
    if case .unsupportedSchemaVersion(let type, let found, let newest) = error {
      return .unsupportedSchemaVersion(
        type: type, found: found, newestKnown: newest, location: "\(path):\(line.lineNumber)")
    }
    return .undecodableEvent(path: path, sequence: line.sequence, problem: error.description)
  }
}

extension ReplayPoint {
  var isInstant: Bool {
    if case .instant = self { return true }
    return false
  }
}
