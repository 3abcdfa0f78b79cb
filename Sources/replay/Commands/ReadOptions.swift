import Engine
import Events
import Foundation
import Projections

/// Options of the commands that rebuild read models.
enum ReadOptions {
  static let at = ValueOption(
    names: ["--at"], valueName: "seq", help: "The state after this event.",
    defaultDescription: "the last event", expecting: "expected a whole number ≥ 0"
  ) { Int64($0).flatMap { $0 >= 0 ? $0 : nil } }
  static let asOf = ValueOption(
    names: ["--as-of"], valueName: "time",
    help: "The state after every event whose time is at or before this ISO 8601 time.",
    expecting: "expected an ISO 8601 time such as 2026-11-03T12:00:00Z"
  ) { Timestamp.parseISO8601($0) }
  static let noCheckpoints = Flag(
    ["--no-checkpoints"], help: "Replay from the first event, ignoring saved checkpoints.")
  static let verbose = Flag(
    ["--verbose"], help: "Explain which checkpoint is used and why others are not.")
  static let locale = TextOption(
    names: ["--locale"], valueName: "identifier", help: "The locale dates are formatted for.",
    defaultValue: "en_US")
  static let timeZone = TextOption(
    names: ["--time-zone"], valueName: "zone", help: "The time zone dates are shown in.",
    defaultValue: "UTC")

  /// The point options and checkpoint options every rebuilding command takes.
  static let point: [any OptionDeclaration] = [at, asOf, noCheckpoints, verbose]
}

extension ParsedInvocation {
  /// `--at <seq>` or `--as-of <time>` (not both); the end of the log when neither is given.
  func replayPoint() throws -> ReplayPoint {
    let sequence = try self[ReadOptions.at]
    let instant = try self[ReadOptions.asOf]
    switch (sequence, instant) {
    case (let sequence?, nil): return .sequence(sequence)
    case (nil, let instant?): return .instant(instant)
    case (nil, nil): return .end
    case (.some, .some): throw UsageError.notBoth(ReadOptions.at, ReadOptions.asOf)
    }
  }

  /// A replayer over the log, with its checkpoints unless `--no-checkpoints`, saving and
  /// pruning them by the standard ``CheckpointPolicy``.
  var replayer: Replayer {
    var replayer = Replayer(
      reader: logReader, checkpoints: usesCheckpoints ? CheckpointStore(logPath: logPath) : nil,
      explain: explainer)
    replayer.refusesSeqsInsideWrites = true
    // Read commands keep the checkpoints current; a save that fails is only explained.
    replayer.automaticCheckpoints = .standard
    return replayer
  }

  /// Whether checkpoints are used: not with `--no-checkpoints`.
  var usesCheckpoints: Bool {
    !(declares(ReadOptions.noCheckpoints) && self[ReadOptions.noCheckpoints])
  }

  /// Where a replay explains its checkpoint decisions: standard error with `--verbose`.
  var explainer: @Sendable (String) -> Void {
    let terminal = self.terminal
    let verbose = declares(ReadOptions.verbose) && self[ReadOptions.verbose]
    return { message in if verbose { terminal.writeError("note: \(message)\n") } }
  }

  /// Rebuilds read models at the asked point; a full replay saves the checkpoints the log's
  /// interval (`replay checkpoint --every`) calls for.
  func rebuild(models names: Set<String>? = nil, progress: ReadProgress? = nil) throws
    -> Replayer.Result
  {
    let point = try replayPoint()
    if let result = try rebuildFromPostgres(at: point) { return result }
    var replayer = self.replayer
    replayer.reader.progress = progress
    return try replayer.readModels(
      at: point, models: names, saveEvery: replayer.checkpoints?.interval)
  }

  /// `--locale` and `--time-zone` as view options.
  func viewOptions() throws -> ViewOptions {
    let zoneName = self[ReadOptions.timeZone] ?? "UTC"
    guard let zone = TimeZone(identifier: zoneName) else {
      throw UsageError(
        "The value '\(zoneName)' is invalid for '--time-zone <zone>': expected an IANA time zone such as UTC or America/Chicago"
      )
    }
    return ViewOptions(
      locale: Locale(identifier: self[ReadOptions.locale] ?? "en_US"), timeZone: zone)
  }
}
