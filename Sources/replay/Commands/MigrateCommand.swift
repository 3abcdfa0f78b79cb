import Engine
import Events
import Foundation

/// `replay migrate --encrypt-personal-data --output <new log>`.
enum MigrateCommand {
  static let command = Command(
    name: "migrate",
    abstract: "Write a copy of the log with every contact's personal data sealed.",
    discussion: """
      Reads the log (--log) and writes a new one (--output, which must not exist) with the \
      same seqs, ids, streams, versions, types, times, atomic writes and meta; each schema 1 \
      ContactAdded and ContactUpdated becomes its sealed schema 2 form under its contact's \
      key, in <output>.keys (keys already in <log>.keys are carried over). Every other line is \
      copied byte for byte. Then it replays both logs and compares every read model at up to \
      12 points spread over the log; a difference removes the new files and exits 74. The old \
      log is never written: its plaintext copy of the personal data stays where it is until \
      you delete it (and its backups), and only then is an erasure in the new log complete. \
      What a migrate into the same --output that was killed left (<output>.migrating-<pid> \
      and the key store it began) is removed first, and said so on standard error; while \
      that process still runs, migrate refuses (exit 73).
      """,
    options: [
      CommonOptions.log,
      encryptPersonalData, output,
      CommonOptions.json.withHelp(
        "Print the summary as JSON: {\"output\", \"events\", \"sealed\", \"alreadySealed\", \"keys\": {\"path\", \"made\", \"carriedOver\"}, \"comparedAt\", \"oldLogHeldPersonalDataInClear\", \"note\"}."
      ),
    ],
    run: run)

  static let encryptPersonalData = Flag(
    ["--encrypt-personal-data"],
    help: "Seal the contacts' personal fields (the one migration there is; required).")
  static let output = TextOption(
    names: ["--output"], valueName: "path", help: "The new log; it must not exist.",
    defaultDescription: "required")

  /// What is left in the old log, and what an erasure in the new one still needs: true for a
  /// log in clear, a partly sealed one and one sealed already.
  static func oldLogNote(_ summary: LogMigration.Summary, source: String) -> String {
    if summary.sourceHeldPersonalDataInClear {
      return
        "the old log '\(source)' still holds the personal data in clear, with its checkpoints "
        + "and index; deleting it (and its backups) is your step, and erasures are complete "
        + "only then\n"
    }
    if summary.keysCarriedOver > 0 {
      return
        "the old log '\(source)' held no personal data in clear (it was sealed already), but "
        + "its key store '\(KeyStore.path(forLog: source))' still holds the \(summary.keysCarriedOver) "
        + "keys carried over: an erasure in the new log is complete only once the old log, its "
        + "key store and checkpoints (and their backups) are deleted\n"
    }
    return "the old log '\(source)' held no personal data in clear\n"
  }

  /// Refuses an output whose folder does not exist (or is no folder) before anything is read
  /// or written, naming the folder.
  static func refuseMissingFolder(of output: String) throws {
    let folder = (output as NSString).deletingLastPathComponent
    guard !folder.isEmpty else { return }
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
      throw ExportError.cannotCreateOutput(
        path: output, reason: "its folder '\(folder)' does not exist; create it first")
    }
    if !isDirectory.boolValue {
      throw ExportError.cannotCreateOutput(
        path: output, reason: "'\(folder)' is not a folder")
    }
  }

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    guard invocation[encryptPersonalData] else {
      throw UsageError(
        "'replay migrate' needs '--encrypt-personal-data' (the one migration there is)")
    }
    guard let output = invocation[output] else {
      throw UsageError("Missing '--output <path>': the new log to write")
    }
    guard !output.isEmpty else {
      throw UsageError("'--output' is empty: give the path of the new log to write")
    }
    try refuseMissingFolder(of: output)
    var migration = LogMigration(source: invocation.logPath, output: output)
    migration.sealingSeed = invocation.insecureSealingSeed
    let progress = ProgressLine.forStandardError(invocation.terminal)
    defer { progress?.finish() }
    migration.progress = progress?.reading("copying and sealing")
    let summary = try migration.run()
    progress?.finish()
    let source = invocation.logPath
    for leftover in summary.removedLeftovers {
      invocation.terminal.writeError(
        "note: removed what a migrate that was killed (process \(leftover.processID)) left: "
          + leftover.paths.map { "'\($0)'" }.joined(separator: ", ") + "\n")
    }
    if invocation[CommonOptions.json] {
      invocation.terminal.write(bytes: json(summary, source: source, output: output))
      return .success
    }
    var text =
      "wrote '\(output)': \(summary.eventCount) events, \(summary.sealedCount) contact payloads sealed"
    if summary.alreadySealedCount > 0 {
      text += ", \(summary.alreadySealedCount) already sealed"
    }
    text +=
      "; keys in '\(KeyStore.path(forLog: output))' (\(summary.keysMade) new"
      + (summary.keysCarriedOver > 0 ? ", \(summary.keysCarriedOver) carried over" : "") + ")\n"
    text +=
      "compared every read model of the two logs at \(summary.comparedAt.count) points "
      + "(seq \(summary.comparedAt.map(String.init).joined(separator: ", "))): identical\n"
    text += oldLogNote(summary, source: source)
    invocation.terminal.write(text)
    return .success
  }

  /// The summary as data; `note` is the text's last line, about what the old log still holds.
  /// (`comparedAt` lists the seqs where the read models were compared; a difference fails
  /// before this is printed.)
  static func json(_ summary: LogMigration.Summary, source: String, output: String) -> [UInt8] {
    return JSONWriter.objectLine { writer in
      writer.member("output", output)
      writer.member("events", summary.eventCount)
      writer.member("sealed", summary.sealedCount)
      writer.member("alreadySealed", summary.alreadySealedCount)
      writer.key("keys")
      writer.beginObject()
      writer.member("path", KeyStore.path(forLog: output))
      writer.member("made", summary.keysMade)
      writer.member("carriedOver", summary.keysCarriedOver)
      writer.endObject()
      writer.key("comparedAt")
      writer.beginArray()
      for sequence in summary.comparedAt { writer.integer(sequence) }
      writer.endArray()
      writer.member("oldLogHeldPersonalDataInClear", summary.sourceHeldPersonalDataInClear)
      var note = oldLogNote(summary, source: source)
      if note.hasSuffix("\n") { note.removeLast() }
      writer.member("note", note)
    }
  }
}
