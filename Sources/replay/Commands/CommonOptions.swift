import Engine
import Events
import Foundation

/// Options shared by many subcommands, declared once.
enum CommonOptions {
  /// The default log file when neither `--log` nor `REPLAY_LOG` names one.
  static let defaultLogPath = "events.jsonl"

  static let log = TextOption(
    names: ["--log"], valueName: "path",
    help: "The event log file.",
    defaultDescription: "$REPLAY_LOG, else ./\(defaultLogPath)")

  static let json = Flag(["--json"], help: "Print JSON instead of a table.")

  static let actor = TextOption(
    names: ["--actor"], valueName: "name", help: "Who makes the change (recorded in meta.actor).")

  static let reason = TextOption(
    names: ["--reason"], valueName: "text", help: "Why (recorded in meta.reason).")

  static let correlation = TextOption(
    names: ["--correlation"], valueName: "id",
    help: "An id shared by every event of one operation (meta.correlation).")

  static let causation = TextOption(
    names: ["--causation"], valueName: "id",
    help: "The id of what caused this change (meta.causation).")

  static let expectedVersion = ValueOption(
    names: ["--expected-version"], valueName: "version",
    help: "Append only if the stream is at this version: a number, 'no-stream' or 'any'.",
    defaultValue: "any", expecting: "expected a whole number, 'no-stream' or 'any'"
  ) { ExpectedVersion($0) }

  static let lockTimeout = ValueOption(
    names: ["--lock-timeout"], valueName: "seconds",
    help: "How long to wait for another writer's lock.", defaultValue: "10",
    expecting: "expected a number of seconds ≥ 0"
  ) { text in DecimalNumber.parse(text).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }

  static let noFsync = Flag(
    ["--no-fsync"],
    help: "Do not fsync appends (scratch logs only: a machine crash can lose them).")

  static let clock = TextOption(
    names: ["--clock"], valueName: "time",
    help: "Stamp appended events with this ISO 8601 time instead of now (reproducible logs).",
    defaultDescription: "$REPLAY_CLOCK, else the system clock")

  static let idSeed = TextOption(
    names: ["--id-seed"], valueName: "seed",
    help: "Derive new event ids from this seed and each event's seq (reproducible logs).",
    defaultDescription: "$REPLAY_ID_SEED, else random ids")

  /// `--chunk-size`: how many events one atomic write (and fsync) holds.
  ///
  /// - Parameters:
  ///   - help: One line of help, as the command uses the chunks.
  ///   - defaultValue: The chunk size when the option is not given.
  /// - Returns: The declaration.
  static func chunkSize(help: String, defaultValue: Int) -> ValueOption<Int> {
    ValueOption(
      names: ["--chunk-size"], valueName: "n", help: help, defaultValue: String(defaultValue),
      expecting: "expected a whole number ≥ 1"
    ) { Int($0).flatMap { $0 >= 1 ? $0 : nil } }
  }

  /// Options every writing subcommand takes.
  static let writing: [any OptionDeclaration] = writingWithDerivedIDs + [idSeed]

  /// The writing options of commands whose event ids are derived from their input (imports).
  static let writingWithDerivedIDs: [any OptionDeclaration] = [log, lockTimeout, noFsync, clock]

  /// The audit options every writing subcommand takes.
  static let audit: [any OptionDeclaration] = [actor, reason, correlation, causation]
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
    if let path = self[CommonOptions.log] { return path }
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
      actor: self[CommonOptions.actor], reason: self[CommonOptions.reason],
      correlation: self[CommonOptions.correlation], causation: self[CommonOptions.causation])
  }

  /// `--expected-version`.
  func expectedVersion() throws(UsageError) -> ExpectedVersion {
    try self[CommonOptions.expectedVersion] ?? .any
  }

  /// `--no-fsync`, warned about on standard error when given.
  func noFsyncWarned() -> Bool {
    let noFsync = self[CommonOptions.noFsync]
    if noFsync {
      terminal.writeError(
        "warning: --no-fsync: appends are not synced to disk; a machine crash can lose them\n")
    }
    return noFsync
  }

  /// Opens the log for appending with the writing options applied.
  func openLogForWriting() throws -> EventLog {
    try EventLog(path: logPath, configuration: writingConfiguration())
  }

  /// The writing options (lock timeout, fsync, clock, id seed) as a log's configuration.
  func writingConfiguration() throws -> EventLog.Configuration {
    let terminal = self.terminal
    let lockTimeout = try self[CommonOptions.lockTimeout] ?? 10
    let noFsync = noFsyncWarned()
    let environment = ProcessInfo.processInfo.environment
    var configuration = EventLog.Configuration(
      syncPolicy: noFsync ? .never : .always, lockTimeout: lockTimeout,
      report: { terminal.writeError("replay: \($0)\n") })
    let clockText =
      self[CommonOptions.clock] ?? environment["REPLAY_CLOCK"].flatMap { $0.isEmpty ? nil : $0 }
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
      declares(CommonOptions.idSeed)
      ? self[CommonOptions.idSeed]
        ?? environment["REPLAY_ID_SEED"].flatMap { $0.isEmpty ? nil : $0 }
      : nil
    if let seed {
      configuration.makeEventID = { sequence in EventID.derived(fromName: "\(seed)/\(sequence)") }
    }
    configuration.sealingSeed = insecureSealingSeed
    return configuration
  }
}

extension ParsedInvocation {
  /// Writes one JSON object, as `members` writes its members, and a line break: the line a
  /// command's `--json` prints.
  func writeJSONObject(_ members: (inout JSONWriter) throws -> Void) rethrows {
    terminal.write(bytes: try JSONWriter.objectLine(members))
  }

  /// Writes what a command found, as `--json` asks: `json`'s object and a line break, or
  /// `text`; only the one asked for is made.
  func writeJSONOrText(json: () -> [UInt8], text: () -> String) {
    if self[CommonOptions.json] {
      terminal.write(bytes: json() + [0x0A])
    } else {
      terminal.write(text())
    }
  }
}

extension Int64 {
  /// A whole number ≥ 1 (a seq to list from, a tree size); `nil` for anything else.
  ///
  /// - Parameter text: The text as typed.
  /// - Returns: The number, or `nil`.
  static func positive(_ text: String) -> Int64? {
    Int64(text).flatMap { $0 >= 1 ? $0 : nil }
  }
}
