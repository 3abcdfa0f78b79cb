import Events
import Foundation

/// `replay migrate --encrypt-personal-data`: a copy of a log with every contact's personal data
/// sealed, the old log untouched.
///
/// The new log has the same seqs, ids, streams, versions, types, times, atomic writes and meta
/// as the old one; each schema 1 `ContactAdded` and `ContactUpdated` becomes its schema 2
/// form, sealed under its contact's key (one key per contact, in `<output>.keys`), bound to the
/// event's id, stream and type. Every other line is copied byte for byte. Keys the old log's
/// store holds (a log already partly sealed) are carried over with their ids, and so are the
/// tombstones of destroyed keys.
///
/// It proves itself: every read model of the two logs is compared at up to `checkpoints`
/// points spread over the log (the ends of atomic writes), the last one the end. A difference
/// removes the new files and is an error; the old log is never written.
public struct LogMigration: Sendable {
  /// The log read.
  public var source: String
  /// The log written; it must not exist, nor its key store.
  public var output: String
  /// How many points of the log the read models are compared at.
  public var comparisonPoints = 12
  /// Draws keys and nonces from a seed instead of the secure random source (generated and
  /// sample logs only; see `EventLog.Configuration.sealingSeed`).
  public var sealingSeed: String?
  /// Told how far the copy has come (bytes of the old log read, bytes in all).
  public var progress: ReadProgress?

  public init(source: String, output: String) {
    self.source = source
    self.output = output
  }

  /// What a migration did.
  public struct Summary: Sendable, Equatable {
    public var eventCount = 0
    /// Contact payloads sealed now.
    public var sealedCount = 0
    /// Contact payloads that were sealed already (copied as they were).
    public var alreadySealedCount = 0
    /// Keys made for contacts, and keys carried over from the old store.
    public var keysMade = 0
    public var keysCarriedOver = 0
    /// The seqs the read models were compared at.
    public var comparedAt: [Int64] = []
    /// What killed migrates into the same output had left, removed before this one began.
    public var removedLeftovers: [Leftovers] = []

    /// Whether the old log held personal data in clear: a contact payload it had not sealed.
    public var sourceHeldPersonalDataInClear: Bool { sealedCount > 0 }
  }

  /// Writes the new log and its key store, then compares the two logs' read models.
  /// - Throws: `EngineError.fileNotFound` for a missing source; `ExportError.cannotCreateOutput`
  ///   when the output or its key store exists (what a killed migrate left is removed first,
  ///   see `removeLeftoversOfKilledMigrations()`), or another migrate is writing it; `ExportError.fileOfLog` when a file of the new
  ///   log (the log, its key store, index, folders, temporary file) is a file of the old one,
  ///   or the other way round; `EngineError.invalidEvent` when the comparison finds a
  ///   difference (the output is then removed); `.keyStore`, `.corruptLine`, `.io` as reading
  ///   and writing do.
  public func run() throws -> Summary {
    guard FileManager.default.fileExists(atPath: source) else {
      throw EngineError.fileNotFound(path: source)
    }
    let temporary = output + Self.temporaryInfix + "\(getpid())"
    // The two logs share no file: the new one's key store or index written over the old
    // log's files would lose its keys or its events.
    var outputFiles = LogFiles(logPath: output)
    outputFiles.temporaryPaths = [temporary]
    try LogFiles(logPath: source).refuseSharingFiles(with: outputFiles)
    // A migrate killed before it finished left its temporary log and key store: removed, so
    // that a rerun is not refused for a key store no log uses.
    let removed = try removeLeftoversOfKilledMigrations()
    let outputKeys = KeyStore.path(forLog: output)
    for path in [output, outputKeys] where FileManager.default.fileExists(atPath: path) {
      throw ExportError.cannotCreateOutput(
        path: path, reason: "it exists; migrate writes a new log, choose another --output")
    }
    var summary = Summary()
    do {
      summary = try write(to: temporary)
      summary.removedLeftovers = removed
      let file = try FileDescriptor.open(temporary, .appendCreating)
      try file.synchronize()
      file.close()
      guard PathOperations.rename(temporary, output) == 0 else {
        throw EngineError.io(path: output, operation: "rename", code: errno)
      }
      FileDescriptor.synchronizeDirectory(containing: output)
      summary.comparedAt = try compare(points: summary.comparedAt)
    } catch {
      for path in [temporary, output, outputKeys] { PathOperations.unlink(path) }
      throw error
    }
    return summary
  }

  /// Copies the log line by line into `temporary`, sealing the contact payloads; returns the
  /// counts and, in `comparedAt`, the seqs that end a write (candidates for the comparison).
  private func write(to temporary: String) throws -> Summary {
    var summary = Summary()
    let sourceStore = try OpenLog.named(source).keys.store()
    var store = try KeyStore(logPath: output)
    do throws(KeyStoreError) {
      for entry in sourceStore.keys.values.sorted(by: { $0.id < $1.id }) {
        try store.adopt(entry)
        summary.keysCarriedOver += 1
      }
      for (id, contact) in sourceStore.erasedKeys.sorted(by: { $0.key < $1.key }) {
        try store.adoptTombstone(id, contact: contact)
      }
    } catch {
      throw EngineError.keyStore(error)
    }
    var seeded = sealingSeed.map { GeneratorRandom(seed: "\($0)/personal-data/migration") }
    let file = try FileDescriptor.open(temporary, .appendCreating)
    try file.truncate(to: 0)
    defer { file.close() }
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20)
    var writeEnds: [Int64] = []
    let keysBefore = store.keys.count
    var reader = LogReader(path: source)
    reader.progress = progress
    try reader.forEachEvent { line in
      summary.eventCount += 1
      if line.batch.map({ $0.upperBound == line.sequence }) ?? true {
        writeEnds.append(line.sequence)
      }
      if line.schemaVersion == 1, PersonalData.carriesPersonalData(type: line.typeBytes) {
        let event = line.recordedEvent()
        let sealed = try PersonalData.seal(
          event.data, type: event.type, id: event.id, stream: event.stream, keys: &store,
          seeded: &seeded)
        sealed.withUnsafeBytes { data in
          LogLineCodec.encode(
            sequence: event.sequence, id: event.id, stream: event.stream, version: event.version,
            type: event.type, schemaVersion: ContactAdded.sealedSchemaVersion,
            timestamp: event.timestamp, batch: event.batch, metadata: event.metadata, data: data,
            into: &buffer)
        }
        summary.sealedCount += 1
      } else {
        if line.schemaVersion >= 2, PersonalData.carriesPersonalData(type: line.typeBytes) {
          summary.alreadySealedCount += 1
        }
        buffer.append(contentsOf: line.bytes)
        buffer.append(0x0A)
      }
      if buffer.count >= 1 << 20 {
        // The keys made for these lines, in one write and one sync, before the lines.
        try store.commitPendingKeys()
        try buffer.withUnsafeBytes { try file.writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
      }
      return true
    }
    try store.commitPendingKeys()
    try buffer.withUnsafeBytes { try file.writeAll($0) }
    summary.keysMade = store.keys.count - keysBefore
    OpenLog.named(output).keys.update(store)
    summary.comparedAt = Self.spread(writeEnds, count: comparisonPoints)
    return summary
  }

  /// Up to `count` of `candidates`, evenly spread, always with the last.
  static func spread(_ candidates: [Int64], count: Int) -> [Int64] {
    guard let last = candidates.last else { return [] }
    guard candidates.count > count, count > 1 else { return candidates }
    var points: [Int64] = []
    for step in 1..<count {
      let point = candidates[candidates.count * step / count]
      if points.last != point { points.append(point) }
    }
    if points.last != last { points.append(last) }
    return points
  }

  /// Folds each log once, taking the digest of every read model's checkpoint form at each
  /// point, and compares the two logs' digests; returns the points.
  private func compare(points: [Int64]) throws -> [Int64] {
    let old = try digests(of: source, at: points)
    let new = try digests(of: output, at: points)
    for (index, point) in points.enumerated() {
      guard
        let differing = old[index].indices.first(where: {
          old[index][$0].digest != new[index][$0].digest
        })
      else { continue }
      let name = old[index][differing].name
      throw EngineError.invalidEvent(
        location: output,
        problem:
          "the migrated log's \(name) differ from the old log's at seq \(point); the new log was removed, the old one is untouched"
      )
    }
    return points
  }

  /// The SHA-256 of each read model's checkpoint bytes at each of `points` (ascending), the
  /// log folded once, its contacts' personal data opened.
  private func digests(
    of path: String, at points: [Int64]
  ) throws -> [[(name: String, digest: [UInt8])]] {
    var models = ReadModels()
    var result: [[(name: String, digest: [UInt8])]] = []
    var next = 0
    func take() {
      result.append(
        models.models.map { model in
          (type(of: model).name, SHA256.hash(model.checkpointBytes(personalDataInClear: true)))
        })
      next += 1
    }
    let reader = LogReader(path: path)
    try reader.forEachEvent { line in
      let event = line.recordedEvent()
      if let decoded = try PersonalData.decode(event, log: reader.openLog) {
        models.apply(decoded, at: EventContext(event))
      }
      while next < points.count, points[next] == line.sequence { take() }
      return next < points.count
    }
    while result.count < points.count { take() }
    return result
  }
}
