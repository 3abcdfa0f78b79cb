import Engine
import Events
import Foundation

/// `replay repair`: the way out when damage at the end of the log stops every writer.
enum RepairCommand {
  static let command = Command(
    name: "repair",
    abstract: "Show, and with --apply make, the cut that makes a damaged log writable again.",
    discussion: """
      Reads the log from the start, checking every line as a writer does, and finds the end of \
      the last whole write before the first problem. Without --apply it only prints what it \
      would cut and changes nothing. With --apply it copies those bytes to \
      <log>.quarantine/<time>-after-seq<N>-byte<offset>.jsonl, syncs that file, and only then \
      cuts the log back. When the damage is inside a write that was committed (its last line is \
      there), the lines of that write before the damaged one are kept: they are written again \
      as a write of their own (their "batch" names only them). It says which seqs were cut and \
      kept, the quarantine file, and the command that undoes the cut; nothing is deleted. A file that is not a log is never cut. Exits 0 when there is nothing to cut or the cut \
      was made; without --apply, exits 74 when there is something to cut.

      With --from <copy> (a backup or a replica of the log), the damaged write and everything \
      after it are put back from the copy instead of cut: the copy's lines from the damaged \
      write on, then this log's own whole lines after the copy's end. The repaired log's Merkle \
      root must equal the copy's at the copy's size (and, with --note/--key, the signed note's \
      at the note's size) before a byte changes; a copy whose lines differ from this log's \
      whole ones, or that ends before the damage, is refused (exit 65). Everything replaced \
      still goes to quarantine first.
      """,
    options: [
      CommonOptions.log,
      apply, from,
      CheckCommand.note.withHelp(
        "With --from: a signed tree head the repaired log must match (with --key)."),
      CheckCommand.key.withHelp("The key the --note must be signed with (or a file holding it)."),
      CommonOptions.lockTimeout, CommonOptions.json,
    ],
    run: run)

  static let apply = Flag(
    ["--apply"], help: "Make the cut (into quarantine) instead of only showing it.")
  static let from = TextOption(
    names: ["--from"], valueName: "copy",
    help: "Restore the damaged lines from this copy of the log instead of cutting them.")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let lockTimeout = try invocation[CommonOptions.lockTimeout] ?? 10
    let repair = LogRepair(path: invocation.logPath, lockTimeout: lockTimeout)
    let path = invocation.logPath
    let applies = invocation[apply]
    if let copy = invocation[from] {
      return try restore(
        repair, from: copy, note: invocation[CheckCommand.note], key: invocation[CheckCommand.key],
        applies: applies, json: invocation[CommonOptions.json], terminal: invocation.terminal)
    }
    if invocation[CheckCommand.note] != nil || invocation[CheckCommand.key] != nil {
      throw UsageError("'--note' and '--key' check a repair from a copy: they need '--from <copy>'")
    }
    let cut: LogRepair.Cut?
    var quarantine: String?
    if applies {
      let made = try repair.apply()
      cut = made?.cut
      quarantine = made?.quarantine
    } else {
      cut = try repair.examine()
    }
    if invocation[CommonOptions.json] {
      invocation.terminal.write(bytes: json(cut, log: path, quarantine: quarantine))
    } else if let cut {
      invocation.terminal.write(describe(cut, of: path, quarantine: quarantine))
    } else {
      invocation.terminal.write("nothing to repair: '\(path)' is whole\n")
    }
    return cut == nil || applies ? .success : .ioError
  }

  /// `seq 50...147`, `seq 50`, or `seq 50 onward` when no cut line after the first decodes.
  static func sequences(_ first: Int64, _ last: Int64?) -> String {
    guard let last, last >= first else { return "seq \(first) onward" }
    return last == first ? "seq \(first)" : "seq \(first)...\(last)"
  }

  /// What was (or would be) cut and kept, where the bytes are and how to put them back:
  ///
  ///     cut seq 50...147 (98 lines) of 'log.jsonl': line 50 (byte 23731): …
  ///     kept seq 1...49: seq 18...49 of the write of seq 18...88 (the lines before the damage) were written again as a write of their own, "batch":[18,49]
  ///     moved 110376 bytes (byte 8298 to the end: seq 18...88 and after, as they were) into 'log.jsonl.quarantine/…'
  ///     to undo: truncate -s 8298 'log.jsonl' && cat '…' >> 'log.jsonl'
  static func describe(_ cut: LogRepair.Cut, of path: String, quarantine: String?) -> String {
    let applied = quarantine != nil
    let lines = cut.cutLineCount == 1 ? "1 line" : "\(cut.cutLineCount) lines"
    var text =
      (applied ? "cut " : "would cut ")
      + "\(sequences(cut.firstCutSequence, cut.lastCutSequence)) (\(lines)) of '\(path)': "
      + "\(cut.reason)\n"
    text += (applied ? "kept " : "would keep ") + keptText(cut.keptSequence)
    let start = cut.range.lowerBound
    if let rewrite = cut.rewrite {
      let batch =
        rewrite.kept.count > 1
        ? "\"batch\":[\(rewrite.kept.lowerBound),\(rewrite.kept.upperBound)]" : "no \"batch\""
      text +=
        ": \(sequences(rewrite.kept.lowerBound, rewrite.kept.upperBound)) of the write of "
        + "\(sequences(rewrite.write.lowerBound, rewrite.write.upperBound)) (its lines before the "
        + "damage) \(applied ? "were" : "would be") written again as a write of their own, \(batch)"
    }
    text += "\n"
    let moved =
      "\(cut.range.count) bytes (byte \(start) to the end"
      + (cut.rewrite.map {
        ": \(sequences($0.write.lowerBound, $0.write.upperBound)) and after, as they were"
      } ?? "") + ")"
    let checkpoints =
      cut.staleCheckpoints.isEmpty
      ? ""
      : "the checkpoint\(cut.staleCheckpoints.count == 1 ? "" : "s") at "
        + cut.staleCheckpoints.map { "seq \($0)" }.joined(separator: ", ")
        + " (caches of lines the cut changes)"
    guard let quarantine else {
      return text + "would move \(moved) into '\(Quarantine.directory(forLog: path))/'\n"
        + (checkpoints.isEmpty ? "" : "would delete \(checkpoints)\n")
        + "run 'replay repair --apply' to make the cut; nothing was changed\n"
    }
    text += "moved \(moved) into '\(quarantine)'\n"
    if !checkpoints.isEmpty { text += "deleted \(checkpoints)\n" }
    text += "to undo: " + undoCommand(cut, log: path, quarantine: quarantine) + "\n"
    return text
  }

  /// `seq 1...49 (49 events)`, or `no event` for a log cut back to nothing.
  static func keptText(_ sequence: Int64) -> String {
    switch sequence {
    case 0: "no event"
    case 1: "seq 1 (1 event)"
    default: "seq 1...\(sequence) (\(sequence) events)"
    }
  }

  /// The shell command that puts the log back as it was before the cut.
  static func undoCommand(_ cut: LogRepair.Cut, log: String, quarantine: String) -> String {
    let append = "cat \(shellQuoted(quarantine)) >> \(shellQuoted(log))"
    guard cut.rewrite != nil else { return append }
    return "truncate -s \(cut.range.lowerBound) \(shellQuoted(log)) && " + append
  }

  /// `text` in single quotes for a POSIX shell.
  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// `{"cut":null}` for a whole log, else what was (or would be) cut and kept:
  /// `{"applied","cut":{"firstSeq","lastSeq","lines","bytes","fromByte","reason"},"kept":{"lastSeq",
  /// "rewritten":{"write":[first,last],"firstSeq","lastSeq"}|null},"quarantine","undo"}`
  /// (`quarantine` and `undo` are `null` until the cut is applied).
  static func json(_ cut: LogRepair.Cut?, log: String, quarantine: String?) -> [UInt8] {
    JSONWriter.objectLine { writer in
      writer.member("applied", quarantine != nil)
      writer.key("cut")
      guard let cut else {
        writer.null()
        return
      }
      writer.beginObject()
      writer.member("firstSeq", cut.firstCutSequence)
      writer.member(
        "lastSeq", cut.lastCutSequence.flatMap { $0 >= cut.firstCutSequence ? $0 : nil })
      writer.member("lines", cut.cutLineCount)
      writer.member("bytes", cut.range.count)
      writer.member("fromByte", cut.range.lowerBound)
      writer.member("reason", cut.reason)
      writer.endObject()
      writer.key("kept")
      writer.beginObject()
      writer.member("lastSeq", cut.keptSequence)
      writer.key("rewritten")
      if let rewrite = cut.rewrite {
        writer.beginObject()
        writer.key("write")
        writer.beginArray()
        writer.integer(rewrite.write.lowerBound)
        writer.integer(rewrite.write.upperBound)
        writer.endArray()
        writer.member("firstSeq", rewrite.kept.lowerBound)
        writer.member("lastSeq", rewrite.kept.upperBound)
        writer.endObject()
      } else {
        writer.null()
      }
      writer.endObject()
      writer.key("checkpointsRemoved")
      writer.beginArray()
      for sequence in cut.staleCheckpoints { writer.integer(sequence) }
      writer.endArray()
      writer.member("quarantine", quarantine)
      writer.member("undo", quarantine.map { undoCommand(cut, log: log, quarantine: $0) })
    }
  }
}
