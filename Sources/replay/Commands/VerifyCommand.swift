import Engine
import Events
import Postgres

/// `replay verify`: check every line; read-only.
enum VerifyCommand {
  static let command = Command(
    name: "verify",
    abstract: "Check the whole log's integrity without changing it.",
    discussion: """
      Checks every line: its checksum and envelope, seq gapless from 1, versions consecutive per \
      stream, ids unique, multi-event writes complete, payloads valid JSON. Also re-hashes the \
      prefix every checkpoint in <log>.checkpoints/ covers (a checkpoint past the log's end \
      means the log is shorter than it was) and lists the files in <log>.quarantine/ (bytes \
      recovery or 'replay repair' cut). Prints a one-line summary and exits 0, or lists every \
      problem with its line number and exits 74. It never repairs anything ('replay repair' \
      does). On a terminal, standard error shows the progress of a long check.
      """,
    options: [
      CommonOptions.log,
      digest,
      CheckCommand.note.withHelp(
        "Instead: check the log against a signed tree head ('replay head --sign')."),
      CheckCommand.key.withHelp("The key the --note must be signed with (or a file holding it)."),
      rehash,
      CommonOptions.json,
    ],
    run: run)

  static let digest = ValueOption(
    names: ["--digest"], valueName: "seq:sha256",
    help: "Also prove the log still begins with the events a 'replay digest' covered.",
    expecting: "expected <seq>:<64 hex digits>, as 'replay digest' prints"
  ) { LogDigest.parse($0) }

  static let rehash = Flag(
    ["--rehash"],
    help: "With --note: rebuild the tree from every line, not from the <log>.tree cache.")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    if invocation.postgresLog != nil { return try verifyDatabase(invocation) }
    if invocation[CheckCommand.note] != nil || invocation[CheckCommand.key] != nil {
      return try verifyNote(invocation)
    }
    guard !invocation[rehash] else {
      throw UsageError("'--rehash' rebuilds the tree for '--note': give '--note' and '--key'")
    }
    let expectedDigest = try invocation[digest]
    var verifier = LogVerifier(path: invocation.logPath, expectedDigest: expectedDigest)
    let progress = ProgressLine.forStandardError(invocation.terminal)
    defer { progress?.finish() }
    verifier.progress = progress?.reading("verifying")
    let report = try verifier.verify()
    progress?.finish()
    let digestMatched = expectedDigest != nil && report.digest?.sha256 == expectedDigest?.sha256
    let digestMessage =
      digestMatched ? "lines 1...\(expectedDigest?.sequence ?? 0) match the digest" : nil
    if invocation[CommonOptions.json] {
      writeJSON(
        valid: report.isValid, events: report.eventCount, streams: report.streamCount,
        lastSeq: report.lastSequence, invocation
      ) { writer in
        writer.member("bytes", report.byteCount)
        writer.member("problems", objects: report.problems) { writer, problem in
          // A problem of the whole log (a digest mismatch) has no line: null, not 0.
          writer.member("line", problem.line > 0 ? problem.line : nil)
          writer.member("offset", problem.line > 0 ? problem.offset : nil)
          writer.member("message", problem.message)
        }
        writer.key("digest")
        if let expectedDigest {
          writer.beginObject()
          writer.member("seq", expectedDigest.sequence)
          writer.member("expected", SHA256.hex(expectedDigest.sha256))
          writer.member("found", report.digest.map { SHA256.hex($0.sha256) })
          writer.member("matches", digestMatched)
          writer.endObject()
        } else {
          writer.null()
        }
        writer.member("uncommittedTail", report.uncommittedTail)
        writer.member("checkpointsChecked", report.checkpointsChecked)
        writer.member("quarantined", objects: report.quarantined) { writer, entry in
          writer.member("path", entry.path)
          writer.member("bytes", entry.byteCount)
        }
      }
    } else {
      if let tail = report.uncommittedTail {
        invocation.terminal.writeError(
          "note: the log ends with \(tail); readers ignore it and the next append moves it into quarantine\n"
        )
      }
      for entry in report.quarantined {
        invocation.terminal.writeError(
          "note: \(entry.byteCount) bytes cut from this log are kept in '\(entry.path)'\n")
      }
      let summary =
        "\(report.eventCount) events, \(report.streamCount) streams, last seq \(report.lastSequence), \(report.byteCount) bytes"
      writeVerdict(
        report.problems.map { problem in
          let place =
            problem.line > 0 ? "\(invocation.logPath):\(problem.line)" : invocation.logPath
          return "\(place): \(problem.message)"
        }, summary: summary, invocation)
      if report.isValid, let digestMessage {
        invocation.terminal.write("ok: \(digestMessage)\n")
      }
    }
    return report.isValid ? .success : .ioError
  }
}

extension VerifyCommand {
  /// `verify --note <file> --key <key> [--rehash]`: the note's signature, then the log's tree
  /// at the note's size against the note's root.
  ///
  /// The tree comes from the `<log>.tree` cache, caught up with the lines appended since it
  /// was saved: O(log n) hashes once the cache exists. The cache is bound to its log (the
  /// file's identity, its first bytes, the last line it covers, reread), so a cut, a rewrite
  /// or another log's cache rebuilds it; a line changed in place inside what it covers, with
  /// its checksum recomputed, is found only by `--rehash`, which rebuilds the tree from every
  /// line (each checked as any read checks it) and trusts no cache.
  static func verifyNote(_ invocation: ParsedInvocation) throws -> ExitCode {
    guard let note = invocation[CheckCommand.note], let key = invocation[CheckCommand.key] else {
      throw UsageError("'--note <file>' and '--key <verifier key>' go together: give both")
    }
    guard !invocation.isGiven(digest), !invocation[CommonOptions.json] else {
      throw UsageError(
        "'--note' checks a signed tree head alone: leave out '--digest' and '--json'")
    }
    let verifier = try CheckCommand.readVerifier(key)
    let head = try CheckCommand.openNote(note, verifier: verifier)
    let tree = try LogTree.open(invocation.logReader, usingSidecar: !invocation[rehash])
    guard tree.size >= head.size else {
      throw TreeError.mismatch(
        problem: "the log has \(tree.size) events, fewer than the \(head.size) the note signs: "
          + "events after seq \(tree.size) were cut off (or the note is of another log)")
    }
    let root = try tree.root(size: head.size)
    guard root == head.root else {
      throw TreeError.mismatch(
        problem: "the log's first \(head.size) events have root \(SHA256.hex(root)), the note "
          + "signs \(SHA256.hex(head.root)): a line among them was changed, removed, reordered "
          + "or replaced since the note was signed (or the note is of another log)")
    }
    invocation.terminal.write(
      "ok: the log's first \(head.size) events have the root signed by '\(verifier.name)' "
        + "(\(head.origin)); the log has \(tree.size) events and extends it\n")
    return .success
  }
}

extension VerifyCommand {
  /// `verify --log postgresql://…`: every row of `messages` against its line
  /// (`MessageStoreVerifier`); problems name the row's `global_position`.
  static func verifyDatabase(_ invocation: ParsedInvocation) throws -> ExitCode {
    let fileOnly: [any OptionDeclaration] = [digest, CheckCommand.note, CheckCommand.key, rehash]
    for declaration in fileOnly where invocation.isGiven(declaration) {
      throw UsageError(
        "'\(declaration.option.names[0])' checks a log file: leave it out for a log kept in PostgreSQL"
      )
    }
    let report = try MessageStoreVerifier(url: invocation.logPath).verify()
    let name = invocation.logName
    if invocation[CommonOptions.json] {
      writeJSON(
        valid: report.isValid, events: report.eventCount, streams: report.streamCount,
        lastSeq: report.lastSequence, invocation
      ) { writer in
        writer.member("problems", objects: report.problems) { writer, problem in
          writer.member("globalPosition", problem.globalPosition)
          writer.member("message", problem.message)
        }
      }
    } else {
      let summary =
        "\(report.eventCount) events, \(report.streamCount) streams, last seq \(report.lastSequence)"
      writeVerdict(
        report.problems.map {
          "\(name): global_position \($0.globalPosition): \($0.message)"
        }, summary: summary, invocation)
    }
    return report.isValid ? .success : .ioError
  }

  /// The `--json` verdict, one line: the members a log file and a database share, then
  /// those `members` adds.
  static func writeJSON(
    valid: Bool, events: Int, streams: Int, lastSeq: Int64, _ invocation: ParsedInvocation,
    members: (inout JSONWriter) -> Void
  ) {
    invocation.writeJSONObject { writer in
      writer.member("valid", valid)
      writer.member("events", events)
      writer.member("streams", streams)
      writer.member("lastSeq", lastSeq)
      members(&writer)
    }
  }

  /// `ok: <summary>`, or each problem on its line and `FAILED: <n> problems; <summary>`.
  static func writeVerdict(
    _ problems: [String], summary: String, _ invocation: ParsedInvocation
  ) {
    guard !problems.isEmpty else {
      invocation.terminal.write("ok: \(summary)\n")
      return
    }
    for problem in problems { invocation.terminal.write(problem + "\n") }
    let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
    invocation.terminal.write("FAILED: \(count); \(summary)\n")
  }
}
