import Engine
import Events

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
      Option(
        names: ["--digest"], valueName: "seq:sha256",
        help: "Also prove the log still begins with the events a 'replay digest' covered."),
      Option(
        names: ["--note"], valueName: "file",
        help: "Instead: check the log against a signed tree head ('replay head --sign')."),
      Option(
        names: ["--key"], valueName: "verifier-key",
        help: "The key the --note must be signed with (or a file holding it)."),
      Option.flag(
        ["--rehash"],
        help: "With --note: rebuild the tree from every line, not from the <log>.tree cache."),
      CommonOptions.json,
    ],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    if invocation.value("--note") != nil || invocation.value("--key") != nil {
      return try verifyNote(invocation)
    }
    guard !invocation.flag("--rehash") else {
      throw UsageError("'--rehash' rebuilds the tree for '--note': give '--note' and '--key'")
    }
    let expectedDigest = try invocation.parse(
      "--digest", expecting: "expected <seq>:<64 hex digits>, as 'replay digest' prints"
    ) { LogDigest.parse($0) }
    var verifier = LogVerifier(path: invocation.logPath, expectedDigest: expectedDigest)
    let progress = ProgressLine.forStandardError(invocation.terminal)
    defer { progress?.finish() }
    verifier.progress = progress?.reading("verifying")
    let report = try verifier.verify()
    progress?.finish()
    let digestMatched = expectedDigest != nil && report.digest?.sha256 == expectedDigest?.sha256
    let digestMessage =
      digestMatched ? "lines 1...\(expectedDigest?.sequence ?? 0) match the digest" : nil
    if invocation.flag("--json") {
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("valid")
      writer.bool(report.isValid)
      writer.key("events")
      writer.integer(report.eventCount)
      writer.key("streams")
      writer.integer(report.streamCount)
      writer.key("lastSeq")
      writer.integer(report.lastSequence)
      writer.key("bytes")
      writer.integer(report.byteCount)
      writer.key("problems")
      writer.beginArray()
      for problem in report.problems {
        writer.beginObject()
        // A problem of the whole log (a digest mismatch) has no line: null, not 0.
        writer.key("line")
        if problem.line > 0 { writer.integer(problem.line) } else { writer.null() }
        writer.key("offset")
        if problem.line > 0 { writer.integer(problem.offset) } else { writer.null() }
        writer.key("message")
        writer.string(problem.message)
        writer.endObject()
      }
      writer.endArray()
      writer.key("digest")
      if let expectedDigest {
        writer.beginObject()
        writer.key("seq")
        writer.integer(expectedDigest.sequence)
        writer.key("expected")
        writer.string(SHA256.hex(expectedDigest.sha256))
        writer.key("found")
        if let found = report.digest {
          writer.string(SHA256.hex(found.sha256))
        } else {
          writer.null()
        }
        writer.key("matches")
        writer.bool(digestMatched)
        writer.endObject()
      } else {
        writer.null()
      }
      writer.key("uncommittedTail")
      if let tail = report.uncommittedTail { writer.string(tail) } else { writer.null() }
      writer.key("checkpointsChecked")
      writer.integer(report.checkpointsChecked)
      writer.key("quarantined")
      writer.beginArray()
      for entry in report.quarantined {
        writer.beginObject()
        writer.key("path")
        writer.string(entry.path)
        writer.key("bytes")
        writer.integer(entry.byteCount)
        writer.endObject()
      }
      writer.endArray()
      writer.endObject()
      invocation.terminal.write(bytes: writer.bytes + [0x0A])
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
      if report.isValid {
        invocation.terminal.write("ok: \(summary)\n")
        if let digestMessage { invocation.terminal.write("ok: \(digestMessage)\n") }
      } else {
        for problem in report.problems {
          let place =
            problem.line > 0 ? "\(invocation.logPath):\(problem.line)" : invocation.logPath
          invocation.terminal.write("\(place): \(problem.message)\n")
        }
        let count = report.problems.count == 1 ? "1 problem" : "\(report.problems.count) problems"
        invocation.terminal.write("FAILED: \(count); \(summary)\n")
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
    guard let note = invocation.value("--note"), let key = invocation.value("--key") else {
      throw UsageError("'--note <file>' and '--key <verifier key>' go together: give both")
    }
    guard invocation.value("--digest") == nil, !invocation.flag("--json") else {
      throw UsageError(
        "'--note' checks a signed tree head alone: leave out '--digest' and '--json'")
    }
    let verifier = try CheckCommand.readVerifier(key)
    let head = try CheckCommand.openNote(note, verifier: verifier)
    let tree = try LogTree.open(invocation.logReader, usingSidecar: !invocation.flag("--rehash"))
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
