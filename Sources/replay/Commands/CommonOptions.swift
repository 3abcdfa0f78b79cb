import Engine
import Events
import Foundation

/// Options shared by many subcommands, declared once.
enum CommonOptions {
  /// The default log file when neither `--log` nor `REPLAY_LOG` names one.
  static let defaultLogPath = "events.jsonl"

  static let log = Option(
    names: ["--log"], valueName: "path",
    help: "The event log file.",
    defaultDescription: "$REPLAY_LOG, else ./\(defaultLogPath)")

  static let json = Option.flag(["--json"], help: "Print JSON instead of a table.")

  static let actor = Option(
    names: ["--actor"], valueName: "name", help: "Who makes the change (recorded in meta.actor).")

  static let reason = Option(
    names: ["--reason"], valueName: "text", help: "Why (recorded in meta.reason).")

  static let correlation = Option(
    names: ["--correlation"], valueName: "id",
    help: "An id shared by every event of one operation (meta.correlation).")

  static let causation = Option(
    names: ["--causation"], valueName: "id",
    help: "The id of what caused this change (meta.causation).")

  static let expectedVersion = Option(
    names: ["--expected-version"], valueName: "version",
    help: "Append only if the stream is at this version: a number, 'no-stream' or 'any'.",
    defaultValue: "any")

  static let lockTimeout = Option(
    names: ["--lock-timeout"], valueName: "seconds",
    help: "How long to wait for another writer's lock.", defaultValue: "10")

  static let noFsync = Option.flag(
    ["--no-fsync"],
    help: "Do not fsync appends (scratch logs only: a machine crash can lose them).")

  static let clock = Option(
    names: ["--clock"], valueName: "time",
    help: "Stamp appended events with this ISO 8601 time instead of now (reproducible logs).",
    defaultDescription: "$REPLAY_CLOCK, else the system clock")

  static let idSeed = Option(
    names: ["--id-seed"], valueName: "seed",
    help: "Derive new event ids from this seed and each event's seq (reproducible logs).",
    defaultDescription: "$REPLAY_ID_SEED, else random ids")

  /// Options every writing subcommand takes.
  static let writing: [Option] = [log, lockTimeout, noFsync, clock, idSeed]

  /// The writing options of commands whose event ids are derived from their input (imports).
  static let writingWithDerivedIDs: [Option] = writing.filter { $0.names != idSeed.names }

  /// The audit options every writing subcommand takes.
  static let audit: [Option] = [actor, reason, correlation, causation]
}

extension ParsedInvocation {
  /// `$REPLAY_INSECURE_SEALING_SEED`: contacts' keys and nonces drawn from this seed, so that
  /// anyone who knows it reads the personal data. Only for logs that must rebuild byte for byte
  /// (the shipped sample, CI's differential); never a flag.
  var insecureSealingSeed: String? {
    ProcessInfo.processInfo.environment["REPLAY_INSECURE_SEALING_SEED"].flatMap {
      $0.isEmpty ? nil : $0
    }
  }

  /// The log's path: `--log`, else `$REPLAY_LOG`, else `./events.jsonl`.
  var logPath: String {
    if let path = value("--log") { return path }
    if let path = ProcessInfo.processInfo.environment["REPLAY_LOG"], !path.isEmpty { return path }
    return CommonOptions.defaultLogPath
  }

  /// A reader for the log; its warnings (a torn tail it stops before) go to standard error,
  /// each once however many times the command reads the log.
  var logReader: LogReader {
    let terminal = self.terminal
    return LogReader(path: logPath, warn: { terminal.warnOnce($0) })
  }

  /// The audit fields given on the command line.
  var metadata: EventMetadata {
    EventMetadata(
      actor: value("--actor"), reason: value("--reason"), correlation: value("--correlation"),
      causation: value("--causation"))
  }

  /// `--expected-version`.
  func expectedVersion() throws(UsageError) -> ExpectedVersion {
    try parse("--expected-version", expecting: "expected a whole number, 'no-stream' or 'any'") {
      ExpectedVersion($0)
    } ?? .any
  }

  /// Opens the log for appending with the writing options applied.
  func openLogForWriting() throws -> EventLog {
    let terminal = self.terminal
    let lockTimeout =
      try parse("--lock-timeout", expecting: "expected a number of seconds ≥ 0") { text in
        DecimalNumber.parse(text).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
      } ?? 10
    let noFsync = flag("--no-fsync")
    if noFsync {
      terminal.writeError(
        "warning: --no-fsync: appends are not synced to disk; a machine crash can lose them\n")
    }
    let environment = ProcessInfo.processInfo.environment
    var configuration = EventLog.Configuration(
      syncPolicy: noFsync ? .never : .always, lockTimeout: lockTimeout,
      report: { terminal.writeError("replay: \($0)\n") })
    let clockText =
      value("--clock") ?? environment["REPLAY_CLOCK"].flatMap { $0.isEmpty ? nil : $0 }
    if let clockText {
      guard let instant = Timestamp.parseISO8601(clockText), instant >= .earliest,
        instant <= .latest
      else {
        throw UsageError(
          "The value '\(clockText)' is invalid for '--clock <time>' (or $REPLAY_CLOCK): expected an ISO 8601 time such as 2026-11-22T10:15:00Z"
        )
      }
      configuration.clock = { instant }
      configuration.clockIsChosen = true
    }
    // Importers derive every event id from the source, so they take no seed.
    let seed =
      declares("--id-seed")
      ? value("--id-seed") ?? environment["REPLAY_ID_SEED"].flatMap { $0.isEmpty ? nil : $0 } : nil
    if let seed {
      configuration.makeEventID = { sequence in EventID.derived(fromName: "\(seed)/\(sequence)") }
    }
    configuration.sealingSeed = insecureSealingSeed
    return try EventLog(path: logPath, configuration: configuration)
  }
}
