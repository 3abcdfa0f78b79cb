import Engine
import Events
import Projections

extension AuditReport {
  /// A log kept in a database rather than a file, as a report reads it: its lines (each the
  /// line the file's writer wrote), the read models at a point, its keys and its verifier.
  package struct DatabaseLog {
    /// What the page says of the database (the URL in it without its password).
    package var database: Database
    /// The log's name in errors and on the page: the database's URL without its password.
    package var name: String
    /// The key table's name in errors.
    package var keyStoreName: String
    /// Reads the contacts' keys as they are now: `.present`, `.erased` for a destroyed one,
    /// `.missing`. Called after the read models are folded, so that the keys of every row
    /// folded are in it, however many rows were added meanwhile.
    package var keys: () throws -> (KeyStore.KeyID) throws -> KeyStore.Lookup
    /// The lines, checked and decoded, in seq order from seq 1, each time it is called.
    package var lines: LineSource
    /// The read models at a point, as `Replayer.readModels(at:)` gives them for a file
    /// (a seq inside an atomic write refused).
    package var readModels: (ReplayPoint) throws -> Replayer.Result
    /// `replay verify` on the database.
    package var verify: () throws -> Verification

    /// - Parameters:
    ///   - description: what it is and where, on the page (`PostgreSQL database <URL>`).
    ///   - rowCount: rows of its events' table.
    ///   - checkpoints: the checkpoints it keeps, in a few words.
    package init(
      description: String, rowCount: Int64, checkpoints: String, name: String,
      keyStoreName: String,
      keys: @escaping () throws -> (KeyStore.KeyID) throws -> KeyStore.Lookup,
      lines: @escaping LineSource,
      readModels: @escaping (ReplayPoint) throws -> Replayer.Result,
      verify: @escaping () throws -> Verification
    ) {
      database = Database(name: description, rowCount: rowCount, checkpoints: checkpoints)
      self.name = name
      self.keyStoreName = keyStoreName
      self.keys = keys
      self.lines = lines
      self.readModels = readModels
      self.verify = verify
    }
  }

  /// Gathers the report of a log kept in a database: the page a file of the same lines gives,
  /// but for what only a file has (its size, quarantine and checkpoint folder).
  ///
  /// The read models come from the database's own fold; then one pass over the lines reads
  /// the same lines the file's report reads, into the same scan. The digest and the tree head
  /// are computed over the lines' bytes as they pass: a row holds its line exactly as the file
  /// writer wrote it, so both equal the file's (`replay digest`, `replay head`).
  /// - Throws: what `log` throws (an unreachable database, a damaged line, a seq inside an
  ///   atomic write); `ReportError.emptyWindow` when the window's bounds are the wrong way
  ///   round.
  package static func build(database log: DatabaseLog, request: Request) throws -> AuditReport {
    try request.checkWindow()
    let point = try log.readModels(request.point)
    var pass = try DatabasePass.read(log, request: request, point: point)
    if pass.scan.pointSequence != point.lastFoldedSequence {
      // As for a file: a log whose times go backwards folds, at a time, a set of events that
      // is not a prefix; scan again up to the seq found.
      var retry = request
      retry.point = .sequence(point.lastFoldedSequence)
      pass = try DatabasePass.read(log, request: retry, point: point)
    }
    var integrity = Integrity()
    integrity.linesChecked = pass.scan.linesRead
    integrity.lastSequenceRead = pass.scan.lastSequenceRead
    integrity.database = log.database
    if pass.scan.digestedSequence > 0 {
      let size = pass.scan.digestedSequence
      integrity.digest = LogDigest(
        sequence: size, sha256: pass.prefix.finalize(), byteCount: pass.prefixByteCount)
      integrity.treeHead = TreeHead(
        size: size, root: MerkleTree.root(leafHashes: Array(pass.leafHashes.prefix(Int(size)))))
    }
    if let head = request.signedHead {
      integrity.noteCheck = try check(
        head, signedBy: request.signedBy, logSize: Int64(pass.leafHashes.count)
      ) { size in MerkleTree.root(leafHashes: Array(pass.leafHashes.prefix(Int(size)))) }
    }
    if request.verifies {
      integrity.verification = try log.verify()
    }
    let lines = log.lines
    let seen = Int64(pass.scan.lineStreams.count)
    // Read now, not before the fold: a row shipped since then may seal a new contact.
    let keys = try log.keys()
    let changes = try histories(
      from: pass.scan, limits: request.limits,
      events: { sequences in
        // The chosen streams' events through the window's end, in one more pass.
        let names = Dictionary(
          uniqueKeysWithValues: sequences.keys.map { (pass.scan.streams[$0], $0) })
        let histories = try LogReader.events(
          inStreams: Set(names.keys.map { StreamName($0) }), lines: lines)
        var events: [Int: [RecordedEvent]] = [:]
        for (name, index) in names {
          events[index] = histories[name]?.events.filter { $0.sequence <= seen } ?? []
        }
        return events
      },
      fold: {
        try LogReader.fold(
          $0, of: $1, logName: log.name, keyStoreName: log.keyStoreName, keys: keys,
          recordingFrom: $2)
      })
    return AuditReport(
      logPath: log.name, request: request, point: point, scan: pass.scan, changes: changes,
      integrity: integrity)
  }
}

/// The report's pass over a database's lines: the lines a file's report reads (through the
/// point, and on through the window's end), into the scan, hashing the point's prefix and
/// each line's leaf on the way.
private struct DatabasePass {
  var scan: WindowScan
  var prefix = SHA256()
  var prefixByteCount: Int64 = 0
  /// Each line's leaf hash, by seq: through the point, or through the whole log when a
  /// signed head is to be checked.
  var leafHashes: [[UInt8]] = []

  static func read(
    _ log: AuditReport.DatabaseLog, request: AuditReport.Request, point: Replayer.Result
  ) throws -> DatabasePass {
    var pass = DatabasePass(scan: WindowScan(request: request))
    // The lines the fold of a file reads: all for the end, through the seq asked for, or
    // through the last event at or before a time.
    let foldEnd: Int64
    switch request.point {
    case .end: foldEnd = .max
    case .sequence(let sequence): foldEnd = sequence
    case .instant: foldEnd = point.lastFoldedSequence
    }
    var scanning = foldEnd > 0 || request.to != nil
    let wholeLog = request.signedHead != nil
    let newline: [UInt8] = [0x0A]
    try log.lines { line in
      if scanning {
        let wanted = pass.scan.add(line)
        if line.sequence >= foldEnd, request.to == nil || !wanted { scanning = false }
        if pass.scan.digestedSequence == line.sequence {
          pass.prefix.update(line.bytes)
          newline.withUnsafeBytes { pass.prefix.update($0) }
          pass.prefixByteCount += Int64(line.length) + 1
        }
      }
      pass.leafHashes.append(MerkleTree.leafHash(line.bytes))
      return scanning || wholeLog
    }
    pass.scan.finish()
    return pass
  }
}
