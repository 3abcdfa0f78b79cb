import Engine
import Events

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
      cuts the log back. Nothing is deleted: 'cat' the quarantine file back onto the log to undo \
      it. A file that is not a log is never cut. Exits 0 when there is nothing to cut or the cut \
      was made; without --apply, exits 74 when there is something to cut.
      """,
    options: [
      CommonOptions.log,
      Option.flag(["--apply"], help: "Make the cut (into quarantine) instead of only showing it."),
      CommonOptions.lockTimeout,
    ],
    run: run)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let lockTimeout =
      try invocation.parse("--lock-timeout", expecting: "expected a number of seconds ≥ 0") {
        Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
      } ?? 10
    let repair = LogRepair(path: invocation.logPath, lockTimeout: lockTimeout)
    let path = invocation.logPath
    if invocation.flag("--apply") {
      guard let (cut, quarantine) = try repair.apply() else {
        invocation.terminal.write("nothing to repair: '\(path)' is whole\n")
        return .success
      }
      invocation.terminal.write(
        "cut \(describe(cut)) of '\(path)'; the bytes are in '\(quarantine)'\n")
      return .success
    }
    guard let cut = try repair.examine() else {
      invocation.terminal.write("nothing to repair: '\(path)' is whole\n")
      return .success
    }
    invocation.terminal.write(
      "would cut \(describe(cut)) of '\(path)' into \(Quarantine.directory(forLog: path))/\n"
        + "run 'replay repair --apply' to make the cut; nothing was changed\n")
    return .ioError
  }

  static func describe(_ cut: LogRepair.Cut) -> String {
    "\(cut.range.count) bytes from byte \(cut.range.lowerBound) (after seq \(cut.keptSequence): \(cut.reason))"
  }
}
