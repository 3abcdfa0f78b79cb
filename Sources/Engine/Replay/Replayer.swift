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
  /// Whether a seq inside a multi-event write is refused as a point to stop at (the CLI's
  /// rule for every `--at`: no reader ever saw that state); the library allows it by default.
  public var refusesSeqsInsideWrites = false
  /// Where checkpoint decisions are explained (`--verbose`).
  public var explain: @Sendable (String) -> Void
  /// When set, long replays save checkpoints on their own and prune them (see
  /// ``CheckpointPolicy``); `nil` saves only what the caller asks for.
  public var automaticCheckpoints: CheckpointPolicy?
  /// When set, the replay starts from no checkpoint after this seq, so that it passes every
  /// seq after it (and saves the checkpoints due there: `replay checkpoint --every`); `nil`
  /// starts from the newest usable one.
  public var startsAtOrBefore: Int64?
  /// How far ahead of the fold (bytes) the reading thread must be to decode a line itself (see
  /// `ReadAhead`); `nil` for two of the reader's chunks. Tests pin it at 0 (always) and `.max`
  /// (never).
  var readAheadLead: Int64?

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
  ///   - saveLast: also save one at the last event folded, when it has none (same condition).
  ///   - observe: called with every line the replay reads, in order (so that one pass can also
  ///     serve a caller that looks at every line); on a long replay it runs on the reading
  ///     thread, in parallel with the folding.
  /// - Throws: `EngineError` for a bad or undecodable line or a missing log.
  package func readModels(
    at point: ReplayPoint, models names: Set<String>? = nil, saveEvery: Int64? = nil,
    saveLast: Bool = false, observe: (@Sendable (EventLine) -> Void)? = nil
  ) throws -> Result {
    if point == .sequence(0) {
      // Before the first event: every model is empty (the log must still exist).
      _ = try reader.forEachEvent { _ in false }
      return Result(
        models: ReadModels(), lastSequence: 0, lastFoldedSequence: 0, startedFrom: nil,
        eventsRead: 0,
        checkpointsSaved: [])
    }
    // Where the log ends, and for a time the last event at or before it, found by bisection
    // (nil when it cannot be trusted: then the whole log is read, as before).
    let plan = try ReplayPlan(point: point, log: reader.openLog)
    if case .instant = point, plan.target == 0 {
      _ = try reader.forEachEvent { _ in false }
      return Result(
        models: ReadModels(), lastSequence: plan.lastSequence, lastFoldedSequence: 0,
        startedFrom: nil, eventsRead: 0, checkpointsSaved: [])
    }
    var wanted = names.flatMap { $0.count < ReadModels.modelNames.count ? $0 : nil }
    var models = ReadModels()
    var position = LogReader.Position.start
    var startedFrom: Int64?
    // Where the digest can resume: the checkpoint started from, with its midstate.
    var resumable: (offset: Int64, hasher: SHA256)?
    var latest = Timestamp.earliest
    // Lines sampled to tie a new checkpoint to the log; those of the one we start from carry on.
    var samples: [CheckpointStore.Anchor.Sample] = []
    // Listed once: the checkpoint to start from and the seqs that already have one.
    let entries = checkpoints?.entries() ?? []
    var automatic = automaticSaves(for: point, plan: plan, among: entries)
    // Saving needs every model: fold them all, the wanted ones included.
    if automatic != nil { wanted = nil }
    var rejected: Set<Int64> = []
    let end = plan.target ?? plan.lastSequence
    let startsAt = entries.last { $0.sequence <= min(end, startsAtOrBefore ?? end) }?.sequence ?? 0
    if wanted?.contains(ContactList.name) ?? true, end - startsAt >= Self.keyIndexAheadEvents {
      // A long replay of the contacts opens many sealed payloads: the key store's index is
      // read on another thread while the checkpoint loads (nothing happens without a store).
      reader.openLog.keys.prepareIndex()
    }
    var loadedStart = startingCheckpoint(
      for: point, target: plan.target, models: wanted, among: entries, rejected: &rejected)
    if automatic == nil, !rejected.isEmpty,
      let redo = automaticSaves(
        for: point, plan: plan, among: entries.filter { !rejected.contains($0.sequence) })
    {
      // The checkpoint counted on was unusable: the replay is long after all, and replaces it.
      automatic = redo
      if wanted != nil, let checkpoints {
        wanted = nil
        loadedStart = entries.first { $0.sequence == loadedStart?.sequence }.flatMap {
          try? checkpoints.load($0)
        }
      }
    }
    var saveEvery = saveEvery
    var saveLast = saveLast
    if let automatic {
      saveEvery = saveEvery ?? automatic.every
      saveLast = saveLast || automatic.last
    }
    if let loaded = loadedStart {
      models = loaded.models
      position = LogReader.Position(offset: loaded.anchor.offset, sequence: loaded.sequence + 1)
      startedFrom = loaded.sequence
      latest = loaded.anchor.latestTimestamp
      samples = loaded.anchor.samples
      resumable = SHA256(midstate: loaded.anchor.midstate).map { (loaded.anchor.offset, $0) }
    }
    // Checkpoints can be saved only by a full replay to a seq, and need the prefix's digest.
    let canSave = wanted == nil && !point.isInstant
    let saving: Int64? = canSave ? saveEvery : nil
    var existing = Set(entries.map(\.sequence)).subtracting(rejected)
    let last: Int64? = plan.target
    let instant: Timestamp? = if case .instant(let instant) = point { instant } else { nil }
    // Hashing the lines is the costliest part of a short replay from a checkpoint: done only
    // when the replay may pass a seq that is due a checkpoint and has none.
    let needsDigest =
      checkpoints != nil
      && ((canSave && saveLast)
        || saving.map {
          Self.mayPassUnsaved(every: $0, from: position.sequence, through: last, saved: existing)
        } == true)
    // The digest is hashed on a thread of its own, beside the reading and the folding.
    let prefixHasher = needsDigest ? PrefixHasher(path: reader.path, resuming: resumable) : nil
    prefixHasher?.start()
    // Whatever happens, no more of it is needed once the replay returns.
    defer { prefixHasher?.stop(at: 0) }
    let wantedCategories = wanted.map { $0.compactMap { Self.categories[$0] } }
    var eventsRead = 0
    var timestamps = TimestampCache()
    var saved: [Int64] = []
    var lastSequence = position.sequence - 1
    var lastFolded = lastSequence
    var decoder = FoldDecoder(log: reader.openLog)
    // Lines are decoded on the reading thread, ahead of the fold, while the fold is the slower
    // thread (see `ReadAhead`).
    let readAhead = ReadAhead(
      log: reader.openLog, categories: wantedCategories,
      lead: readAheadLead ?? 2 * Int64(reader.readSize))
    // Where the last line read ends and its sample: what a checkpoint there is tied to.
    var lastLine: (end: Int64, sample: CheckpointStore.Anchor.Sample)?
    // The write the event at `--at` belongs to, when that write holds more events after it.
    var splitWrite: ClosedRange<Int64>?
    // The reader stops after `last`: every line handed out is at or before it.
    try reader.forEachEvent(
      from: position, through: last, observe: observe, prepare: readAhead.prepare
    ) { (line: EventLine, ready: consuming FoldInput?) in
      eventsRead += 1
      readAhead.reached(line)
      if refusesSeqsInsideWrites, !point.isInstant, line.sequence == last, let batch = line.batch,
        batch.upperBound > line.sequence
      {
        splitWrite = batch
      }
      if needsDigest, line.sequence & (line.sequence - 1) == 0 {
        samples.append(Self.sample(of: line))
      }
      // Events appended together share their `at`: parse it only when it differs.
      let timestamp = timestamps.timestamp(of: line)
      if timestamp > latest { latest = timestamp }
      lastSequence = line.sequence
      let include = instant.map { timestamp <= $0 } ?? true
      if include { lastFolded = line.sequence }
      if include, Self.belongs(line, to: wantedCategories) {
        // Decoded on the reading thread, or here when it was not.
        let input: FoldInput
        if let prepared = consume ready {
          input = prepared
        } else {
          input = try decoder.input(for: line)
        }
        Self.fold(input, of: line, at: timestamp, into: &models)
      }
      if needsDigest {
        let end = line.offset + Int64(line.length) + 1
        if let saving, line.sequence % saving == 0, !existing.contains(line.sequence),
          let digest = digestState(prefixHasher, through: end)
        {
          let anchor = CheckpointStore.Anchor(
            offset: end, sha256: digest.finalize(), midstate: digest.midstate,
            latestTimestamp: latest, samples: samples + [Self.sample(of: line)])
          if save(models, at: line.sequence, anchor: anchor) {
            existing.insert(line.sequence)
            saved.append(line.sequence)
          }
        }
        if saveLast { lastLine = (end, Self.sample(of: line)) }
      }
      return true
    }
    if case .sequence(let target) = point, lastSequence < target {
      throw EngineError.invalidEvent(
        location: reader.path,
        problem: "the log has \(lastSequence) events; there is no seq \(target)")
    }
    if refusesSeqsInsideWrites, case .sequence(let target) = point, startedFrom == target {
      splitWrite = try CheckpointStore.write(
        endingAt: position.offset, of: reader.path, through: target)
    }
    if let batch = splitWrite, case .sequence(let target) = point {
      // Readers see a multi-event write whole or not at all: no one ever saw this state.
      throw EngineError.invalidEvent(
        location: reader.path,
        problem:
          "seq \(target) is inside the atomic write of events \(batch.lowerBound)...\(batch.upperBound), a state no reader could see; use --at \(batch.lowerBound - 1) (before that write) or --at \(batch.upperBound) (after it)"
      )
    }
    if point == .end, let newest = entries.last, newest.sequence > lastSequence {
      reader.warn(
        "'\(reader.path)' ends at seq \(lastSequence), but it had a checkpoint at seq \(newest.sequence) (\(newest.path)): the log is shorter than it was; 'replay verify' says more"
      )
    }
    // Nothing past the last line read is needed.
    if let lastLine { prefixHasher?.stop(at: lastLine.end) }
    if let lastLine, !existing.contains(lastSequence),
      let digest = digestState(prefixHasher, through: lastLine.end)
    {
      let anchor = CheckpointStore.Anchor(
        offset: lastLine.end, sha256: digest.finalize(), midstate: digest.midstate,
        latestTimestamp: latest, samples: samples + [lastLine.sample])
      if save(models, at: lastSequence, anchor: anchor) { saved.append(lastSequence) }
    }
    if let policy = automaticCheckpoints, let checkpoints, !saved.isEmpty {
      let removed = checkpoints.prune(
        policy, lastSequence: max(plan.lastSequence, lastSequence), explain: explain)
      if !removed.isEmpty {
        explain(
          "deleted \(removed.count) older checkpoint\(removed.count == 1 ? "" : "s") to keep the folder's size bounded"
        )
      }
    }
    if case .instant = point, plan.target != nil {
      // Events after the instant were not read, but the answer names the log's last event as
      // a full read would have.
      lastSequence = plan.lastSequence
    }
    return Result(
      models: models, lastSequence: lastSequence, lastFoldedSequence: lastFolded,
      startedFrom: startedFrom, eventsRead: eventsRead, checkpointsSaved: saved)
  }

  /// The digest's state through `end` for a checkpoint's anchor, or `nil` (explained) when the
  /// log could not be hashed that far: then no checkpoint is saved there, and the replay goes on.
  func digestState(_ hasher: PrefixHasher?, through end: Int64) -> SHA256? {
    guard let hasher else { return nil }
    do {
      return try hasher.state(through: end)
    } catch {
      explain("could not hash the log's first \(end) bytes for a checkpoint: \(error)")
      return nil
    }
  }

  /// Saves `models` as the checkpoint at `sequence`; whether it was saved. A checkpoint is a
  /// cache: failing to write one costs speed, never correctness, so a failure is explained.
  func save(_ models: ReadModels, at sequence: Int64, anchor: CheckpointStore.Anchor) -> Bool {
    guard let checkpoints else { return false }
    do {
      try checkpoints.save(models, sequence: sequence, anchor: anchor)
      return true
    } catch {
      explain("could not save a checkpoint at seq \(sequence): \(error)")
      return false
    }
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

  /// Replays at least this long read the key store's index ahead, beside the checkpoint's
  /// load; shorter ones find their few keys line by line.
  static let keyIndexAheadEvents: Int64 = 4_096

  /// The newest checkpoint usable for `point` (at or before `target`, the seq it resolves
  /// to), loaded and checked; unusable ones are explained and added to `rejected`, so that a
  /// save at their seq replaces them (they are kept until then: one past the log's end is
  /// evidence that the log lost events, which `verify` and the end-of-log warning report).
  func startingCheckpoint(
    for point: ReplayPoint, target: Int64?, models: Set<String>?,
    among entries: [CheckpointStore.Entry], rejected: inout Set<Int64>
  ) -> CheckpointStore.Loaded? {
    guard let checkpoints else { return nil }
    for entry in entries.reversed() {
      if let target, entry.sequence > target { continue }
      if let limit = startsAtOrBefore, entry.sequence > limit { continue }
      do {
        let loaded = try checkpoints.load(entry, models: models)
        if case .instant(let instant) = point, loaded.anchor.latestTimestamp > instant {
          // Some event it covers is later than the instant: it holds too much.
          continue
        }
        explain("starting from the checkpoint at seq \(loaded.sequence)")
        explain(
          "trusted because the log is at least \(loaded.anchor.offset) bytes long and its \(loaded.anchor.samples.count) sample lines are unchanged; the lines between them are not re-read ('replay verify' re-hashes every checkpoint's prefix)"
        )
        return loaded
      } catch {
        explain(error.description)
        rejected.insert(entry.sequence)
      }
    }
    return nil
  }

  /// What a replay to `point` saves on its own under `automaticCheckpoints`: the grid spacing
  /// and whether to save at its last event; `nil` when it saves nothing (a short replay, a
  /// replay to a time, or one that passes no missing grid seq and stops before the end).
  func automaticSaves(
    for point: ReplayPoint, plan: ReplayPlan, among entries: [CheckpointStore.Entry]
  ) -> (every: Int64, last: Bool)? {
    guard let policy = automaticCheckpoints, checkpoints != nil, !point.isInstant else {
      return nil
    }
    let target = plan.target ?? plan.lastSequence
    let start = entries.last { $0.sequence <= target }?.sequence ?? 0
    guard target - start > policy.minimumEvents else { return nil }
    let every = policy.spacing(lastSequence: plan.lastSequence)
    let reachesEnd = target >= plan.lastSequence
    let passesMissing = Self.mayPassUnsaved(
      every: every, from: start + 1, through: target, saved: Set(entries.map(\.sequence)))
    guard reachesEnd || passesMissing else { return nil }
    return (every, reachesEnd)
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
}

extension ReplayPoint {
  var isInstant: Bool {
    if case .instant = self { return true }
    return false
  }
}
