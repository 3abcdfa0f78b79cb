import Engine
import Events

/// `replay repair --from <copy> [--note <file> --key <key>] [--apply]`.
extension RepairCommand {
  static func restore(
    _ repair: LogRepair, from copy: String, note notePath: String?, key: String?, applies: Bool,
    json: Bool, terminal: Terminal
  ) throws -> ExitCode {
    guard (notePath == nil) == (key == nil) else {
      throw UsageError("'--note <file>' and '--key <verifier key>' go together: give both")
    }
    var note: Checkpoint?
    if let notePath, let key {
      note = try CheckCommand.openNote(notePath, verifier: try CheckCommand.readVerifier(key))
    }
    let restoration: LogRepair.Restoration?
    var quarantine: String?
    do {
      if applies {
        let made = try repair.applyRestoration(from: copy, note: note)
        restoration = made?.restoration
        quarantine = made?.quarantine
      } else {
        restoration = try repair.restoration(from: copy, note: note)
      }
    } catch TreeError.mismatch(let problem) {
      // A copy that cannot restore this log is input refused (65), not damage found (74).
      throw TreeError.invalidInput(problem: problem)
    }
    if json {
      terminal.write(bytes: self.json(restoration, log: repair.path, quarantine: quarantine))
    } else if let restoration {
      terminal.write(describe(restoration, of: repair.path, copy: copy, quarantine: quarantine))
    } else {
      terminal.write("nothing to repair: '\(repair.path)' is whole\n")
    }
    return restoration == nil || applies ? .success : .ioError
  }

  /// What was (or would be) put back, and what proves it:
  ///
  ///     damage: line 50 (byte 23731): …
  ///     restored seq 18...88 from 'backup.jsonl' (the copy ends at seq 88); kept this log's own seq 89...120 after it
  ///     the repaired log's first 88 events have the copy's root 3f…; its first 100 the root the note signs (origin)
  ///     moved 110376 bytes (byte 8298 to the end, as they were) into '…'
  static func describe(
    _ restoration: LogRepair.Restoration, of path: String, copy: String, quarantine: String?
  ) -> String {
    let applied = quarantine != nil
    let cut = restoration.cut
    var text = "damage in '\(path)': \(cut.reason)\n"
    let from = restoration.fromCopy
    text +=
      (applied ? "restored " : "would restore ")
      + "\(sequences(from.lowerBound, from.upperBound)) from '\(copy)' (the copy ends at seq "
      + "\(from.upperBound))"
    if let kept = restoration.keptAfter {
      text += "; kept this log's own \(sequences(kept.lowerBound, kept.upperBound)) after it"
    }
    text += "\n"
    if let lost = restoration.notRestored {
      text +=
        "not restored: \(sequences(lost.lowerBound, lost.upperBound)) of this log (damaged or "
        + "unfinished after the copy's end; a later copy may hold them)\n"
    }
    switch restoration.witness {
    case .copy(let size, let root):
      text +=
        "proof: the repaired log's first \(size) events have the copy's tree root "
        + "\(SHA256.hex(root))\n"
    case .note(let note, let copySize):
      text +=
        "proof: the repaired log's first \(copySize) events have the copy's tree root, and its "
        + "first \(note.size) the root the note signs (\(note.origin))\n"
    }
    text +=
      "the repaired log: \(restoration.size) events, root \(SHA256.hex(restoration.root))\n"
    let moved = "\(cut.range.count) bytes (byte \(cut.range.lowerBound) to the end, as they were)"
    guard let quarantine else {
      return text + "would move \(moved) into '\(Quarantine.directory(forLog: path))/'\n"
        + "run 'replay repair --from \(shellQuoted(copy)) --apply' to make it; nothing was "
        + "changed\n"
    }
    return text + "moved \(moved) into '\(quarantine)'\n"
  }

  /// `{"applied","damage","restored":[first,last],"keptAfter":[first,last]|null,
  /// "notRestored":[first,last]|null,"size","root","proof":{"copySize","copyRoot"|"noteSize",
  /// "origin"},"quarantine"}`; `{"applied":false,"restored":null}` for a whole log.
  static func json(
    _ restoration: LogRepair.Restoration?, log: String, quarantine: String?
  ) -> [UInt8] {
    JSONWriter.objectLine { writer in
      writer.key("applied")
      writer.bool(quarantine != nil)
      guard let restoration else {
        writer.key("restored")
        writer.null()
        return
      }
      func range(_ key: String, _ range: ClosedRange<Int64>?) {
        writer.key(key)
        guard let range else { return writer.null() }
        writer.beginArray()
        writer.integer(range.lowerBound)
        writer.integer(range.upperBound)
        writer.endArray()
      }
      writer.key("damage")
      writer.string(restoration.cut.reason)
      range("restored", restoration.fromCopy)
      range("keptAfter", restoration.keptAfter)
      range("notRestored", restoration.notRestored)
      writer.key("size")
      writer.integer(restoration.size)
      writer.key("root")
      writer.string(SHA256.hex(restoration.root))
      writer.key("proof")
      writer.beginObject()
      switch restoration.witness {
      case .copy(let size, let root):
        writer.key("copySize")
        writer.integer(size)
        writer.key("copyRoot")
        writer.string(SHA256.hex(root))
      case .note(let note, let copySize):
        writer.key("copySize")
        writer.integer(copySize)
        writer.key("noteSize")
        writer.integer(note.size)
        writer.key("origin")
        writer.string(note.origin)
      }
      writer.endObject()
      writer.member("quarantine", quarantine)
    }
  }
}
