import Engine

/// The root of the command tree.
enum ReplayCommand {
  static let version = "0.1.0"

  static let root = Command(
    name: "replay",
    abstract: "An event-sourced store for five small apps: append, replay, time-travel and audit.",
    discussion: """
      Every change is an event appended to a JSON-lines log (--log, else $REPLAY_LOG, else \
      ./events.jsonl). Read models are rebuilt from the log as they were at any point.

      \(ExitCode.documentation)
      """,
    subcommands: [
      AppendCommand.command,
      LogCommand.command,
      VerifyCommand.command,
      RepairCommand.command,
      StatsCommand.command,
      DigestCommand.command,
      HeadCommand.command,
      ProveCommand.command,
      CheckCommand.command,
      KeygenCommand.command,
      StateCommand.command,
      RebuildCommand.command,
      NearestCommand.command,
      CheckpointCommand.command,
      ImportCommand.command,
      GenerateCommand.command,
      ObservationsCommand.command,
      StatesCommand.states,
      StatesCommand.zipCodes,
      AnimalsCommand.command,
      LocationsCommand.command,
      ContactsCommand.command,
      HistoryCommand.command,
      DiffCommand.command,
      ExportCommand.command,
      ReportCommand.command,
      MigrateCommand.command,
      ShipCommand.command,
      PostgresCommand.command,
    ])
}
