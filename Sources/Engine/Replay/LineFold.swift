import Events

/// Checks and decodes log lines kept somewhere other than the log file, as a reader of the
/// file does (checksum, envelope), requiring seqs in order from 1 with none missing.
package struct LineDecoder {
  /// Where the lines come from, in errors (a database's redacted URL).
  package let source: String
  /// The seq of the last line decoded (0 before any).
  package private(set) var lastSequence: Int64 = 0
  private var memo = LogLineCodec.Memo()

  /// - Parameter lastSequence: The seq of the line before the first one handed in (0: the
  ///   lines start at seq 1; a verifier resuming after a bad line gives that line's seq).
  package init(source: String, after lastSequence: Int64 = 0) {
    self.source = source
    self.lastSequence = lastSequence
  }

  /// Calls `body` with `bytes` (a line without its `\n`) decoded; the line borrows them.
  /// - Throws: `EngineError.corruptLine` for a line a reader of the file would refuse,
  ///   `.invalidEvent` for a seq out of order, and what `body` throws.
  package mutating func decode<Result>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ body: (EventLine) throws -> Result
  ) throws -> Result {
    let number = Int(lastSequence + 1)
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      throw EngineError.corruptLine(
        path: source, line: number, offset: 0, problem: "empty line where seq \(number) belongs")
    }
    let line: EventLine
    do throws(LogLineCodec.Problem) {
      line = try LogLineCodec.decode(
        base, length: bytes.count, lineNumber: number, offset: 0, memo: &memo)
    } catch {
      throw EngineError.corruptLine(path: source, line: number, offset: 0, problem: error.message)
    }
    guard line.sequence == lastSequence + 1 else {
      throw EngineError.invalidEvent(
        location: source,
        problem:
          "expected seq \(lastSequence + 1) after seq \(lastSequence), found seq \(line.sequence): events are missing or repeated"
      )
    }
    lastSequence = line.sequence
    return try body(line)
  }
}

/// Folds log lines kept somewhere other than the log file (PostgreSQL's `messages`, which holds
/// each line as it was written) into the read models, with the decoder and the fold a replay of
/// the file uses (`Replayer.FoldDecoder`, `Replayer.fold`): there is no second fold, so the
/// models equal the file's at the same point.
///
/// Each line is checked as a reader of the file checks it (checksum, envelope), and the lines
/// must come in seq order from seq 1 with none missing.
package struct LineFold {
  /// Where the lines come from, in errors (a database's redacted URL).
  package var source: String { lines.source }
  /// The models after the lines folded so far.
  package private(set) var models = ReadModels()
  /// The seq of the last line handed in (0 before any).
  package var lastSequence: Int64 { lines.lastSequence }
  /// The seq of the last line folded (with `asOf`, later lines may be read and left out).
  package private(set) var lastFoldedSequence: Int64 = 0
  /// The atomic write the last line belongs to, when it was one of several events.
  package private(set) var lastBatch: ClosedRange<Int64>?
  private let instant: Timestamp?
  private var startedFrom: Int64?
  private var decoder: Replayer.FoldDecoder
  private var lines: LineDecoder
  private var timestamps = TimestampCache()
  private var eventsRead = 0

  /// - Parameters:
  ///   - source: Where the lines come from, in errors.
  ///   - keyStoreName: Where the keys are, in errors.
  ///   - asOf: Fold only the events whose time is at or before it (`--as-of`); nil: all.
  ///   - checkpoint: The models after seq `sequence`, from a checkpoint: the lines handed in
  ///     start after it. nil: they start at seq 1.
  ///   - keys: The contacts' keys: `.present`, `.erased` for a destroyed one, `.missing`.
  package init(
    source: String, keyStoreName: String, asOf instant: Timestamp? = nil,
    from checkpoint: (models: ReadModels, sequence: Int64)? = nil,
    keys: @escaping (KeyStore.KeyID) throws -> KeyStore.Lookup
  ) {
    lines = LineDecoder(source: source, after: checkpoint?.sequence ?? 0)
    if let checkpoint {
      models = checkpoint.models
      lastFoldedSequence = checkpoint.sequence
      startedFrom = checkpoint.sequence
    }
    self.instant = instant
    decoder = Replayer.FoldDecoder(
      keys: PersonalData.KeyRing(logName: source, keyStoreName: keyStoreName, lookup: keys))
  }

  /// Checks, decodes and folds one line (its bytes without the `\n`).
  /// - Throws: `EngineError.corruptLine` for a line a reader of the file would refuse,
  ///   `.invalidEvent` for a seq out of order, and what opening sealed personal data throws.
  package mutating func fold(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    try lines.decode(bytes) { line in
      lastBatch = line.batch.flatMap { $0.count > 1 ? $0 : nil }
      eventsRead += 1
      let timestamp = timestamps.timestamp(of: line)
      if let instant, timestamp > instant { return }
      lastFoldedSequence = line.sequence
      Replayer.fold(try decoder.input(for: line), of: line, at: timestamp, into: &models)
    }
  }

  /// The models as a replay's result.
  package var result: Replayer.Result {
    Replayer.Result(
      models: models, lastSequence: lastSequence, lastFoldedSequence: lastFoldedSequence,
      startedFrom: startedFrom, eventsRead: eventsRead, checkpointsSaved: [])
  }
}
