import Engine
import Events
import Foundation
import Synchronization

/// `replay checkpoint`: save, list, verify and clear read-model checkpoints.
enum CheckpointCommand {
  static let command = Command(
    name: "checkpoint",
    abstract: "Save read-model checkpoints so that 'state --at' need not replay from the start.",
    discussion: """
      Checkpoints live next to the log in <log>.checkpoints/. Each holds all five read models \
      after one event, tied to that event's seq, the byte offset after it, the SHA-256 of the \
      log up to there, and sample lines that are checked before every use: a checkpoint that no \
      longer matches the log is ignored (state --verbose says so). Deleting the folder loses \
      nothing.

      Without options, saves one checkpoint at the end of the log (or --at). --every <n> also \
      saves one at every multiple of n, now and whenever a later full replay passes one.
      """,
    options: [
      CommonOptions.log,
      every, at, list, verify, clear, CommonOptions.json,
    ],
    run: run)

  static let every = ValueOption(
    names: ["--every"], valueName: "n", help: "Save a checkpoint every n events, from now on.",
    expecting: ProveCommand.positive, Int64.positive)
  static let at = ValueOption(
    names: ["--at"], valueName: "seq", help: "Save the checkpoint after this event.",
    expecting: ProveCommand.positive, Int64.positive)
  static let list = Flag(
    ["--list"], help: "List the checkpoints and whether each still matches the log.")
  static let verify = Flag(
    ["--verify"], help: "Re-hash the log prefix of every checkpoint (slow, exact).")
  static let clear = Flag(["--clear"], help: "Delete every checkpoint and the --every setting.")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let store = CheckpointStore(logPath: invocation.logPath)
    let actions = [list, verify, clear].filter { invocation[$0] }
    if actions.count > 1 {
      throw UsageError(
        "Give only one of \(actions.map { "'\($0.option.preferredName)'" }.joined(separator: ", "))"
      )
    }
    if let exitCode = try invocation.checkpointPostgres() { return exitCode }
    if invocation[clear] {
      try store.removeAll()
      invocation.terminal.write("removed \(store.directory)\n")
      return .success
    }
    if invocation[list] || invocation[verify] {
      return try list(store, verifying: invocation[verify], invocation)
    }
    let every = try invocation[CheckpointCommand.every]
    let at = try invocation[CheckpointCommand.at]
    // Make sure the log exists before writing anything next to it.
    _ = try LogReader(path: invocation.logPath).forEachEvent { _ in false }
    if FileManager.default.fileExists(atPath: store.directory), !isDirectory(store.directory) {
      throw InputError(
        exitCode: .cannotCreateOutput,
        message:
          "cannot save checkpoints: '\(store.directory)' is a file, not a folder; move it away")
    }
    do {
      if let every { try store.setInterval(every) }
    } catch {
      throw InputError(
        exitCode: .cannotCreateOutput,
        message: "cannot save the --every setting in '\(store.directory)': \(error)")
    }
    // A checkpoint a replay cannot save is only explained there (it is a cache); here saving it
    // is the whole job, so a failure is an error.
    let failures = Failures()
    var replayer = Replayer(
      reader: invocation.logReader, checkpoints: store,
      explain: { message in
        if message.hasPrefix("could not save") { failures.messages.withLock { $0.append(message) } }
      })
    replayer.refusesSeqsInsideWrites = true
    if let every {
      // Start before the first multiple that has no checkpoint, so that the replay passes
      // (and saves) every missing one, even when a later checkpoint exists.
      replayer.startsAtOrBefore = firstMissingMultiple(of: every, among: store.entries()) - 1
    }
    let point = at.map(ReplayPoint.sequence) ?? .end
    // One pass saves the interval's checkpoints and the last event's.
    let saved = try replayer.readModels(
      at: point, saveEvery: every ?? store.interval, saveLast: true
    ).checkpointsSaved
    if let failure = failures.messages.withLock({ $0.first }) {
      throw InputError(
        exitCode: .cannotCreateOutput,
        message: "\(failure); saved \(saved.count) checkpoint\(saved.count == 1 ? "" : "s")")
    }
    if saved.isEmpty {
      invocation.terminal.write(
        "checkpoints are up to date (the newest is at seq \(store.entries().last?.sequence ?? 0))\n"
      )
    } else {
      let list =
        saved.count <= 6
        ? saved.map(String.init).joined(separator: ", ")
        : "\(saved.count) of them, seq \(saved[0])...\(saved[saved.count - 1])"
      invocation.terminal.write("saved checkpoints at seq \(list) in \(store.directory)\n")
    }
    return .success
  }

  /// The smallest multiple of `every` with no checkpoint.
  static func firstMissingMultiple(of every: Int64, among entries: [CheckpointStore.Entry])
    -> Int64
  {
    let saved = Set(entries.map(\.sequence))
    var multiple = every
    while saved.contains(multiple) { multiple += every }
    return multiple
  }

  static func isDirectory(_ path: String) -> Bool {
    var flag: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
  }

  static func list(_ store: CheckpointStore, verifying: Bool, _ invocation: ParsedInvocation) throws
    -> ExitCode
  {
    var rows: [(entry: CheckpointStore.Entry, problem: String?)] = []
    let entries = store.entries()
    // Every prefix re-hashed in one pass over the log.
    let digestProblems = verifying ? store.verifyDigests(of: entries) : []
    for (index, entry) in entries.enumerated() {
      if verifying {
        rows.append((entry, digestProblems[index]))
      } else {
        do {
          _ = try store.load(entry, models: ["contacts"])
          rows.append((entry, nil))
        } catch {
          rows.append((entry, error.reason))
        }
      }
    }
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("every", store.interval)
        writer.member("checkpoints", objects: rows) { writer, row in
          writer.member("seq", row.entry.sequence)
          writer.member("bytes", row.entry.byteCount)
          writer.member("problem", row.problem)
        }
      }
    } else if rows.isEmpty {
      invocation.terminal.write("no checkpoints in \(store.directory)\n")
    } else {
      var table = TextTable([
        .init(title: "SEQ", alignment: .right), .init(title: "BYTES", alignment: .right),
        .init(title: "STATUS", maximumWidth: 100),
      ])
      for row in rows {
        let status =
          row.problem.map { "ignored: \($0)" }
          ?? (verifying ? "digest matches" : "sample lines match (--verify re-hashes)")
        table.append([String(row.entry.sequence), String(row.entry.byteCount), status])
      }
      let every = store.interval.map { "; saved every \($0) events" } ?? ""
      invocation.terminal.write(
        "\(rows.count) checkpoint\(rows.count == 1 ? "" : "s") in \(store.directory)\(every)\n"
          + table.render())
    }
    return verifying && rows.contains { $0.problem != nil } ? .ioError : .success
  }
}

/// Checkpoints a replay could not save, collected from its explanations.
private final class Failures: Sendable {
  let messages = Mutex<[String]>([])
}
