import Events

/// Checks a whole log without changing it: every line's checksum and envelope, `seq` gapless
/// from 1, versions consecutive per stream, ids unique, multi-event writes whole, payloads valid
/// JSON objects. Unlike a reader it does not stop at the first problem: it lists them all.
///
/// It checks the sidecars too: every checkpoint in `<log>.checkpoints/` must cover a prefix the
/// log still has, with the SHA-256 it recorded (a log cut at a line boundary looks like a valid
/// shorter log; a checkpoint past its end says otherwise), and it lists the files recovery and
/// `replay repair` moved into `<log>.quarantine/`.
package struct LogVerifier: Sendable {
  /// One thing wrong with one line.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// Byte offset where the line starts.
    public var offset: Int64
    public var message: String

    public var description: String { "line \(line): \(message)" }
  }

  /// What `verify` found.
  public struct Report: Sendable, Equatable {
    /// Committed events that passed every check.
    public var eventCount: Int
    /// Distinct streams.
    public var streamCount: Int
    /// The last event's sequence number.
    public var lastSequence: Int64
    /// The file's size in bytes.
    public var byteCount: Int64
    /// Everything wrong, in line order.
    public var problems: [Problem]
    /// What lies after the committed events (an unfinished or torn write), which the next
    /// writer will cut; not a problem by itself.
    public var uncommittedTail: String?
    /// With an expected digest: the digest of the same prefix of this log (`nil` when the log
    /// is shorter than the digest's prefix); a mismatch is also listed in `problems`.
    public var digest: LogDigest?
    /// Files of bytes cut from this log, kept in `<log>.quarantine/`.
    public var quarantined: [Quarantine.Entry] = []
    /// Checkpoints whose prefix was re-hashed and matched.
    public var checkpointsChecked = 0

    /// Whether the log passed.
    public var isValid: Bool { problems.isEmpty }
  }

  public let path: String
  public var readSize: Int
  /// Which schema version each known event type is up to; newer versions are problems.
  public var newestSchemaVersions: [String: Int]
  /// A digest (`replay digest`) the log's prefix must still match.
  public var expectedDigest: (sequence: Int64, sha256: [UInt8])?
  /// Logs of at least this many bytes have their payloads checked on a thread of their own
  /// (see `PayloadChecks`); tests set 0 to check a short log that way.
  var pipelineThreshold: Int64 = 8 << 20

  /// Told how far the check has come (bytes checked, bytes in all) every few thousand lines.
  public var progress: ReadProgress?

  public init(
    path: String, readSize: Int = LogReader.defaultReadSize,
    newestSchemaVersions: [String: Int] = EventVocabulary.newestSchemaVersions,
    expectedDigest: (sequence: Int64, sha256: [UInt8])? = nil
  ) {
    self.path = path
    self.readSize = readSize
    self.newestSchemaVersions = newestSchemaVersions
    self.expectedDigest = expectedDigest
  }

  /// Reads the whole log and reports on it.
  /// - Throws: `EngineError.fileNotFound` or `.io`; problems in the content are reported, not
  ///   thrown.
  public func verify() throws -> Report {
    let file = try OpenLog.named(path).openForReading()
    defer { file.close() }
    let tail = try LogTail.examine(file, path: path)
    var problems: [Problem] = []
    // Each stream with its version so far.
    var streams = Names<Int64>(rule: EnvelopeRules.problem(withStreamName:)) { _ in 0 }
    // Each type with its newest schema version this engine knows.
    let newestSchemaVersions = newestSchemaVersions
    var types = Names<Int?>(rule: EnvelopeRules.problem(withTypeName:)) {
      newestSchemaVersions[$0]
    }
    var idLines = EventIDTable<Int>()
    var rules = LogRules.Sequence()
    var lineNumber = 0
    var eventCount = 0
    var digest: LogDigest?
    // Checkpoints, nearest first: each one's prefix is hashed on the way past it.
    let store = CheckpointStore(logPath: path)
    var anchors: [(entry: CheckpointStore.Entry, anchor: CheckpointStore.Anchor)] = []
    for entry in store.entries() {
      do {
        anchors.append(
          (entry, try store.load(entry, models: ["contacts"], checkingLog: false).anchor))
      } catch {
        problems.append(Problem(line: 0, offset: 0, message: error.description))
      }
    }
    anchors.sort { $0.anchor.offset < $1.anchor.offset }
    var nextAnchor = 0
    var checkpointsChecked = 0
    // The prefixes (the digest's, the checkpoints') are hashed on a thread of its own while the
    // lines are checked here: once, however many prefixes.
    let prefixHasher =
      expectedDigest != nil || !anchors.isEmpty ? PrefixHasher(path: path) : nil
    prefixHasher?.start()
    defer { prefixHasher?.stop(at: 0) }
    // Where the digest's prefix ends, once its last line is read.
    var digestEnd: Int64?
    // Checkpoints whose prefix ends at a line's end, compared once the scan is done; a
    // mismatch is listed where the scan would have listed it (`position` in `problems`).
    var pendingAnchors: [PendingAnchor] = []
    // Read every complete line, including a damaged last one, so that it is listed.
    let end = tail.badLastLine?.range.upperBound ?? tail.committedEnd
    var payloads = PayloadChecks(concurrent: end >= pipelineThreshold)
    var memo = LogLineCodec.Memo()
    _ = try LineScanner(readSize: readSize).scan(file, from: 0, to: end) { base, length, offset in
      lineNumber += 1
      if Int64(lineNumber) % progressInterval == 0 { progress?(offset, end) }
      func problem(_ message: String) {
        problems.append(Problem(line: lineNumber, offset: offset, message: message))
      }
      // The digest covers whole lines, bad ones included: it is about bytes, not events.
      if let expected = expectedDigest, Int64(lineNumber) == expected.sequence {
        digestEnd = offset + Int64(length) + 1
      }
      if nextAnchor < anchors.count {
        let end = offset + Int64(length) + 1
        while nextAnchor < anchors.count, anchors[nextAnchor].anchor.offset <= end {
          let (entry, anchor) = anchors[nextAnchor]
          if anchor.offset == end {
            pendingAnchors.append((entry, anchor, lineNumber, offset, problems.count))
          } else {
            // Not at a line's end: no prefix of these lines is what it covered.
            problems.append(Self.changedPrefix(entry, anchor, line: lineNumber, offset: offset))
          }
          nextAnchor += 1
        }
      }
      let line: EventLine
      do throws(LogLineCodec.Problem) {
        line = try LogLineCodec.decode(
          base, length: length, lineNumber: lineNumber, offset: offset, memo: &memo)
      } catch {
        var message = error.message
        if tail.badLastLine?.range.lowerBound == offset {
          message +=
            " (the last line holds NUL bytes: a torn write; the next append moves it into quarantine)"
        }
        problem(message)
        // Assume the line held the expected event, so one bad line is reported once and not
        // again as a gap or a broken write.
        rules.skipUnreadable()
        return true
      }
      var isSound = true
      // The envelope decoder has already refused a line whose id, time or meta breaks the
      // format (docs/FORMAT.md, "What a reader checks"): what is left here is what one line
      // alone cannot show.
      if let violation = rules.violation(sequence: line.sequence) {
        problem(violation.description)
        isSound = false
      }
      let stream = streams.position(of: line.streamSlice, in: line.base)
      if let reason = streams.problems[stream] {
        problem(reason)
        isSound = false
      }
      let type = types.position(of: line.typeSlice, in: line.base)
      if let reason = types.problems[type] {
        problem(reason)
        isSound = false
      }
      if let newest = types[type], line.schemaVersion > newest {
        problem(
          "event type '\(types.names[type].rawValue)' has schema version \(line.schemaVersion), newer than the \(newest) this engine knows"
        )
        isSound = false
      }
      let previousVersion = streams[stream]
      if !LogRules.versionFollows(previousVersion, line.version) {
        problem(
          LogRules.Violation.version(
            stream: streams.names[stream].rawValue, previous: previousVersion, found: line.version
          ).description)
        isSound = false
      }
      streams[stream] = max(previousVersion, line.version)
      if let earlier = idLines.updateValue(lineNumber, forKey: line.id) {
        problem(LogRules.Violation.duplicateID(line.id, earlier: .line(earlier)).description)
        isSound = false
      }
      rules.violations(sequence: line.sequence, write: line.batch) { violation in
        problem(violation.description)
        isSound = false
      }
      rules.accept(sequence: line.sequence, write: line.batch)
      // Checked beside this thread; a failure there takes the line off the count.
      payloads.add(line, lineNumber: lineNumber, wasSound: isSound)
      if isSound { eventCount += 1 }
      return true
    }
    let payloadOutcome = payloads.finish()
    eventCount -= payloadOutcome.unsound
    Self.merge(payloadOutcome.problems, into: &problems, anchors: &pendingAnchors)
    if let prefixHasher {
      prefixHasher.stop(at: max(digestEnd ?? 0, pendingAnchors.last?.anchor.offset ?? 0))
      var inserted = 0
      for pending in pendingAnchors {
        if try prefixHasher.state(through: pending.anchor.offset)?.finalize()
          == pending.anchor.sha256
        {
          checkpointsChecked += 1
        } else {
          problems.insert(
            Self.changedPrefix(
              pending.entry, pending.anchor, line: pending.line, offset: pending.offset),
            at: pending.position + inserted)
          inserted += 1
        }
      }
      if let expected = expectedDigest, let digestEnd,
        let state = try prefixHasher.state(through: digestEnd)
      {
        digest = LogDigest(
          sequence: expected.sequence, sha256: state.finalize(), byteCount: digestEnd)
      }
    }
    if let expected = expectedDigest {
      if let digest {
        if digest.sha256 != expected.sha256 {
          problems.append(
            Problem(
              line: 0, offset: 0,
              message:
                "lines 1...\(expected.sequence) do not match the digest: expected \(SHA256.hex(expected.sha256)), found \(SHA256.hex(digest.sha256)); some of those lines changed"
            ))
        }
      } else {
        problems.append(
          Problem(
            line: 0, offset: 0,
            message:
              "the digest covers \(expected.sequence) lines, but the log has only \(lineNumber)"))
      }
    }
    // Every checkpoint past the end says the same thing: said once, with the way forward.
    if let (first, _) = anchors[nextAnchor...].first, let (last, lastAnchor) = anchors.last {
      let count = anchors.count - nextAnchor
      let which =
        count == 1
        ? "checkpoint '\(last.path)' covers"
        : "\(count) checkpoints (at seq \(first.sequence) to \(last.sequence)) cover more than it holds; the furthest, '\(last.path)', covers"
      problems.append(
        Problem(
          line: 0, offset: 0,
          message:
            "the log is shorter than it was: \(which) seq 1...\(last.sequence) and \(lastAnchor.offset) bytes, but the log's committed events end at seq \(rules.expected - 1), byte \(end); restore the log from a backup, or, if it was shortened on purpose, run 'replay checkpoint --clear --log \(path)' to delete its checkpoints"
        ))
    }
    if let batch = rules.openWrite {
      problems.append(
        Problem(
          line: lineNumber, offset: end,
          message: LogRules.Violation.writeStopsEarly(batch).description))
    }
    return Report(
      eventCount: eventCount, streamCount: streams.count,
      lastSequence: rules.expected - 1, byteCount: tail.fileSize, problems: problems,
      uncommittedTail: tail.badLastLine == nil ? tail.uncommittedDescription : nil, digest: digest,
      quarantined: Quarantine.entries(forLog: path), checkpointsChecked: checkpointsChecked)
  }

  /// A checkpoint whose prefix ends at a line's end, compared once the scan is done: the line,
  /// and where its problem goes in `problems` if the prefix differs.
  typealias PendingAnchor = (
    entry: CheckpointStore.Entry, anchor: CheckpointStore.Anchor, line: Int, offset: Int64,
    position: Int
  )

  /// Merges the payload problems (in line order) into the others (in line order), each after
  /// the others of its line, as a check of one line after another would list them; moves the
  /// places where checkpoint problems will go (an index into `problems`) to match.
  static func merge(
    _ payloadProblems: [Problem], into problems: inout [Problem],
    anchors: inout [PendingAnchor]
  ) {
    guard !payloadProblems.isEmpty else { return }
    // Each anchor's place, as the number of earlier problems: those of the lines before its
    // line (its own line's come after it).
    for index in anchors.indices {
      let line = anchors[index].line
      anchors[index].position += payloadProblems.prefix { $0.line < line }.count
    }
    var merged: [Problem] = []
    merged.reserveCapacity(problems.count + payloadProblems.count)
    var next = 0
    for problem in problems {
      while next < payloadProblems.count, payloadProblems[next].line < problem.line {
        merged.append(payloadProblems[next])
        next += 1
      }
      merged.append(problem)
    }
    merged += payloadProblems[next...]
    problems = merged
  }

  /// A checkpoint whose prefix is not this log's, listed at the line where its prefix ends.
  static func changedPrefix(
    _ entry: CheckpointStore.Entry, _ anchor: CheckpointStore.Anchor, line: Int, offset: Int64
  ) -> Problem {
    Problem(
      line: line, offset: offset,
      message:
        "checkpoint '\(entry.path)' (seq \(entry.sequence)) was built from a log whose first \(anchor.offset) bytes differ from these; some line up to here changed since (delete the checkpoint, or find the change)"
    )
  }
}
